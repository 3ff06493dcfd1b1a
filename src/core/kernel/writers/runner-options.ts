/**
 * What in an MCP server's command changes the program that starts it (npx, uvx, docker) rather than
 * the server: a registry, a config file, an index, a mount, privileges, or a variable the runner or
 * the dynamic linker reads. Consent names each one as written, so a person sees that `npx` will ask
 * another registry or that `docker` will mount the home folder.
 */
import type {McpServerConfig} from '../../model/plugin.js'

/**
 * How a runner reads one of its options: `value` when it takes the next word, `changes` when it
 * changes the runner itself (where it fetches from, what it reads, what the server may touch), and
 * `chooses` when it picks what runs instead of the package or image named after it.
 */
export interface RunnerOption {
  value: boolean
  changes?: true
  chooses?: true
}

const option = (value: boolean, more: Partial<RunnerOption> = {}): RunnerOption => ({value, ...more})
const SWITCH = option(false)
const VALUE = option(true)
const CHANGES = option(true, {changes: true})
const CHOOSES = option(true, {changes: true, chooses: true})

/** The options loadout knows of each runner it writes; another option is one it cannot tell the effect of. */
export const RUNNER_OPTIONS: Readonly<Record<'npx' | 'uvx' | 'docker', Readonly<Record<string, RunnerOption>>>> = {
  npx: {
    '-y': SWITCH,
    '--yes': SWITCH,
    '-q': SWITCH,
    '--quiet': SWITCH,
    '--prefer-offline': SWITCH,
    '--prefer-online': SWITCH,
    '--offline': SWITCH,
    '--loglevel': VALUE,
    '--include': VALUE,
    '--omit': VALUE,
    '--registry': CHANGES,
    '--userconfig': CHANGES,
    '--globalconfig': CHANGES,
    '--prefix': CHANGES,
    '--cache': CHANGES,
    '--node-options': CHANGES,
    '--script-shell': CHANGES,
    '-p': CHOOSES,
    '--package': CHOOSES,
    '-c': CHOOSES,
    '--call': CHOOSES,
  },
  uvx: {
    '-q': SWITCH,
    '--quiet': SWITCH,
    '--isolated': SWITCH,
    '--offline': SWITCH,
    '--no-cache': SWITCH,
    '--refresh': SWITCH,
    '--native-tls': SWITCH,
    '--pre': option(false, {changes: true}),
    '--cache-dir': VALUE,
    '--python': CHANGES,
    '-p': CHANGES,
    '--index': CHANGES,
    '--index-url': CHANGES,
    '-i': CHANGES,
    '--extra-index-url': CHANGES,
    '--default-index': CHANGES,
    '--find-links': CHANGES,
    '-f': CHANGES,
    '--prerelease': CHANGES,
    '--config-file': CHANGES,
    '--allow-insecure-host': CHANGES,
    '--keyring-provider': CHANGES,
    '--from': CHOOSES,
    '--with': CHOOSES,
    '-w': CHOOSES,
    '--with-requirements': CHOOSES,
    '--with-editable': CHOOSES,
  },
  docker: {
    '-i': SWITCH,
    '--interactive': SWITCH,
    '--rm': SWITCH,
    '-t': SWITCH,
    '--tty': SWITCH,
    '--init': SWITCH,
    '--read-only': SWITCH,
    '--privileged': option(false, {changes: true}),
    '-e': VALUE,
    '--env': VALUE,
    '--name': VALUE,
    '-w': VALUE,
    '--workdir': VALUE,
    '--platform': VALUE,
    '--pull': VALUE,
    '-p': VALUE,
    '--publish': VALUE,
    '-l': VALUE,
    '--label': VALUE,
    '-m': VALUE,
    '--memory': VALUE,
    '--cpus': VALUE,
    '--tmpfs': VALUE,
    '--hostname': VALUE,
    '--shm-size': VALUE,
    '--ulimit': VALUE,
    '--cap-drop': VALUE,
    '-v': CHANGES,
    '--volume': CHANGES,
    '--volumes-from': CHANGES,
    '--mount': CHANGES,
    '--network': CHANGES,
    '--net': CHANGES,
    '--cap-add': CHANGES,
    '--device': CHANGES,
    '--gpus': CHANGES,
    '--pid': CHANGES,
    '--ipc': CHANGES,
    '--uts': CHANGES,
    '--userns': CHANGES,
    '--security-opt': CHANGES,
    '-u': CHANGES,
    '--user': CHANGES,
    '--env-file': CHANGES,
    '--add-host': CHANGES,
    '--dns': CHANGES,
    '--group-add': CHANGES,
    '--cgroupns': CHANGES,
    '--runtime': CHANGES,
    '--entrypoint': CHANGES,
  },
}

/** Variables that change how a program, its interpreter or the dynamic linker behave. */
const RUNNER_ENV =
  /^(NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|NPM_CONFIG_.*|LD_.*|DYLD_.*|UV_.*|PIP_.*|PYTHON(PATH|HOME|STARTUP|SAFEPATH)|DOCKER_.*|BASH_ENV|ENV|PATH|HOME|XDG_CONFIG_HOME|SSL_CERT_FILE|SSL_CERT_DIR)$/i

const SECRET_NAME = /key|token|secret|passw|auth|cookie|credential/i

const runnerOf = (command: string): keyof typeof RUNNER_OPTIONS | undefined => {
  const base = command
    .split(/[\\/]/)
    .pop()!
    .replace(/\.(cmd|exe)$/i, '')
  return base === 'npx' || base === 'uvx' || base === 'docker' ? base : undefined
}

/**
 * The runner's own options before the first word that is not an option (the package or the image),
 * and every variable that changes a runner, as written; a value whose name looks like a credential
 * is shown as `***`.
 */
export const runnerChanges = (config: McpServerConfig): string[] => {
  const out: string[] = []
  const runner = config.command === undefined ? undefined : runnerOf(config.command)
  if (runner) {
    const options = RUNNER_OPTIONS[runner]
    const args = config.args ?? []
    // docker's own options come after `run`; the first word that is no option's value is the package or the image
    for (let i = runner === 'docker' && args[0] === 'run' ? 1 : 0; i < args.length && args[i]!.startsWith('-'); i++) {
      const arg = args[i]!
      const known = Object.hasOwn(options, arg.split('=')[0]!) ? options[arg.split('=')[0]!] : undefined
      const takesValue = !arg.includes('=') && known?.value === true && args[i + 1] !== undefined
      // an option loadout does not know may change the runner too
      if (!known || known.changes) out.push(takesValue ? `${arg} ${args[i + 1]}` : arg)
      if (takesValue) i++
    }
  }
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (RUNNER_ENV.test(name)) out.push(`${name}=${SECRET_NAME.test(name) ? '***' : value}`)
  }
  return out
}
