import type {McpInstallResult} from '../../core/ops/mcp/install.js'
import type {McpListing} from '../../core/ops/mcp/list.js'
import type {RegistrySearch} from '../../core/kernel/mcp/registry.js'
import {bold, dim, yellow} from '../style.js'
import {renderTable} from '../table.js'
import {renderInstalled} from './install.js'

/** Text from a registry or someone's config file, with control characters (escape sequences) shown as `?`. */

const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '?')

export const renderMcpInstalled = (result: McpInstallResult): string => {
  const lines = [renderInstalled(result)]
  for (const note of result.notes) lines.push(dim(`  note: ${note}`))
  if (result.requiredEnv.length > 0 && result.status !== 'already-installed') {
    lines.push(
      yellow(
        `  set ${result.requiredEnv.join(', ')} in the environment the agent starts from: the server's entry refers to ${result.requiredEnv.length === 1 ? 'it' : 'them'}, and no value was written`,
      ),
    )
  }
  return lines.join('\n')
}

export const renderMcpList = (listing: McpListing): string => {
  const lines: string[] = []
  if (listing.servers.length === 0) lines.push('no MCP servers configured')
  else {
    lines.push(
      renderTable(
        ['AGENT', 'SCOPE', 'SERVER', 'OWNER', 'RUNS'],
        listing.servers.map((s) => [
          s.agent,
          s.scope,
          bold(printable(s.name)),
          s.owner === 'user' ? dim('user') : s.owner,
          printable(`${s.transport === 'stdio' ? '' : `${s.transport} `}${s.runs}`),
        ]),
      ),
    )
  }
  for (const u of listing.unreadable) lines.push(yellow(`could not read ${u.file}: ${u.message}`))
  return lines.join('\n')
}

export const renderMcpSearch = (result: RegistrySearch): string => {
  if (result.servers.length === 0) return `no MCP server in ${result.registry} matches "${result.query}"`
  return renderTable(
    ['SERVER', 'VERSION', 'DESCRIPTION'],
    result.servers.map((e) => [bold(printable(e.server.name)), printable(e.server.version), printable(e.server.description ?? '')]),
  )
}
