import {Args, Flags} from '@oclif/core'
import {usageError} from '../../core/model/errors.js'
import {installServer, type McpInstallResult} from '../../core/ops/mcp/install.js'
import {localServerSpec} from '../../core/kernel/mcp/spec.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {installOptionsFor} from '../../ui/install-options.js'
import {renderMcpInstalled} from '../../ui/render/mcp.js'
import {targetsForWrite} from '../../ui/select-targets.js'

export default class McpAdd extends LoadoutCommand {
  static override summary = 'Add one MCP server (a command to run, or an https URL) to each chosen agent, recorded like a plugin'
  static override description =
    'Everything after -- is the command and its arguments. `--env NAME` without a value writes a reference the agent expands, never a value.'
  static override examples = [
    '<%= config.bin %> mcp add files --agent claude-code,codex --env ROOT=/srv -- npx -y @modelcontextprotocol/server-filesystem@2025.8.21 /srv',
    '<%= config.bin %> mcp add github --env GITHUB_TOKEN --agent cursor -- docker run -i --rm -e GITHUB_TOKEN ghcr.io/github/github-mcp-server:v0.13.0',
    "<%= config.bin %> mcp add docs --url https://mcp.example.com/mcp --header 'Authorization=Bearer ${DOCS_TOKEN}'",
  ]
  static override strict = false
  static override args = {name: Args.string({required: true, description: 'the name the agents will know the server by'})}
  static override flags = {
    agent: agentFlag,
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
    force: Flags.boolean({char: 'f', description: 'write it again even when the same server is installed'}),
    env: Flags.string({char: 'e', description: 'NAME=value, or NAME to pass NAME through as a reference', multiple: true, multipleNonGreedy: true}),
    url: Flags.string({description: 'the https URL of a remote server (instead of a command)'}),
    transport: Flags.string({description: 'for --url: http (streamable HTTP, the default) or sse', options: ['http', 'sse']}),
    header: Flags.string({description: 'for --url: Name=value; refer to secrets as ${NAME}', multiple: true, multipleNonGreedy: true}),
  }

  async run(): Promise<McpInstallResult> {
    // Everything after the first -- is the server's argv, word for word: oclif never sees it, so a
    // word there that looks like a loadout flag (`-e`, `--agent`) or repeats (`--label a --label b`)
    // is neither taken nor regrouped.
    const split = this.argv.indexOf('--')
    const command = split === -1 ? [] : this.argv.slice(split + 1)
    const {args, argv, flags} = await this.parse(McpAdd, split === -1 ? this.argv : this.argv.slice(0, split))
    const stray = (argv as string[]).slice(1)
    // Without --, the command's own flags would be read as loadout's (`npx -y` as --yes).
    if (stray.length > 0) {
      throw usageError('command-needs-separator', `put the server's command after --: loadout mcp add ${args.name} [flags] -- ${stray.join(' ')}`)
    }
    const spec = localServerSpec({
      name: args.name,
      command,
      ...(flags.url !== undefined ? {url: flags.url} : {}),
      ...(flags.transport ? {transport: flags.transport as 'http' | 'sse'} : {}),
      env: flags.env ?? [],
      headers: flags.header ?? [],
    })
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'mcp'})
    const result = await installServer(
      spec,
      installOptionsFor({env, context, targets, yes: flags.yes, dryRun: flags['dry-run'], force: flags.force, json: this.jsonEnabled()}),
    )
    this.log(renderMcpInstalled(result))
    return result
  }
}
