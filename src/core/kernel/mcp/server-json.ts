/**
 * A registry `server.json` as one server entry. A package runs pinned to its exact version (npm:
 * `npx -y id@version`, pypi: `uvx id==version`, oci: `docker run -i --rm image:tag`); a remote is a
 * URL server. Arguments and variables with values or defaults are filled in; a secret, or a required
 * value nobody gave, is written as a reference to an environment variable the user sets.
 */
import {usageError, validationFailed} from '../../model/errors.js'
import {envReference, isEnvName, referencedEnvNames} from '../writers/env-refs.js'
import type {McpServerConfig} from '../../model/plugin.js'
import type {RegistryServer} from './registry.js'
import {RUNNER_OPTIONS} from '../writers/runner-options.js'
import {checkServerName, checkServerUrl, type McpServerSpec} from './spec.js'

interface Input {
  name?: string
  value?: string
  default?: string
  isRequired?: boolean
  isSecret?: boolean
  type?: string
  valueHint?: string
  variables?: Record<string, Input>
}

const IDENTIFIERS: Record<string, RegExp> = {
  npm: /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i,
  pypi: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  oci: /^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9._-]*)?(@sha256:[a-f0-9]{64})?$/,
}
const RUNNER_OF: Record<string, keyof typeof RUNNER_OPTIONS> = {npm: 'npx', pypi: 'uvx', oci: 'docker'}
/** an exact version: no range, no tag such as latest */
const EXACT_VERSION = /^v?\d+(\.\d+)*([-+][A-Za-z0-9.+-]+)?$/
/** npm reads `x@1.2` as a range and a registry moves `image:1` on: those need all three numbers */
const FULL_VERSION = /^v?\d+\.\d+\.\d+([-+][A-Za-z0-9.+-]+)?$/

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)
const strings = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

const readInput = (value: unknown): Input | undefined => {
  if (!isObject(value)) return undefined
  const input: Input = {}
  for (const key of ['name', 'value', 'default', 'type', 'valueHint'] as const) if (strings(value[key]) !== undefined) input[key] = strings(value[key])!
  if (value.isRequired === true) input.isRequired = true
  if (value.isSecret === true) input.isSecret = true
  if (isObject(value.variables)) {
    input.variables = {}
    for (const [k, v] of Object.entries(value.variables)) {
      const inner = readInput(v)
      if (inner) input.variables[k] = inner
    }
  }
  return input
}

const inputs = (value: unknown): Input[] => (Array.isArray(value) ? value.map(readInput).filter((i): i is Input => i !== undefined) : [])

/** An environment variable name for a value that has none (a header, a `{placeholder}`). */
const envNameFor = (text: string): string => {
  const name = text
    .toUpperCase()
    .replace(/[^A-Z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
  return /^[0-9]/.test(name) || name === '' ? `MCP_${name}` : name
}

const refuse = (server: string, why: string) => validationFailed('registry-server-unusable', `MCP server "${server}" cannot be installed: ${why}`)

class Filler {
  readonly required = new Set<string>()
  readonly notes: string[] = []
  constructor(private readonly server: string) {}

  /** `{name}` placeholders in a value: filled from the input's variables' values or defaults, else made references. */
  private placeholders(text: string, input: Input): string {
    return text.replace(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (_m, key: string) => {
      const variable = input.variables?.[key]
      const given = variable && !variable.isSecret ? (variable.value ?? variable.default) : undefined
      if (given !== undefined) return given
      const env = envNameFor(key)
      this.required.add(env)
      return envReference(env)
    })
  }

  /** The value to write for one input, or undefined to leave it out. */
  value(input: Input, envName: string, what: string): string | undefined {
    if (input.isSecret) {
      // a secret is never written, even when the registry offers a default: a template such as
      // `Bearer {token}` keeps its text around references, anything else becomes one reference
      if (input.value && /\{[A-Za-z_]/.test(input.value)) return this.placeholders(input.value, input)
      this.required.add(envName)
      return envReference(envName)
    }
    const given = input.value ?? input.default
    if (given !== undefined) return this.placeholders(given, input)
    if (!input.isRequired) return undefined
    this.required.add(envName)
    this.notes.push(`${what} has no default: written as ${envReference(envName)}`)
    return envReference(envName)
  }

  args(list: readonly Input[], what: string): string[] {
    const out: string[] = []
    for (const arg of list) {
      if (arg.type === 'named') {
        if (!arg.name || !arg.name.startsWith('-')) {
          this.notes.push(`${what}: a named argument without a "--name" was left out`)
          continue
        }
        if (arg.value === undefined && arg.default === undefined && !arg.isSecret) {
          if (!arg.isRequired) continue
          if (!arg.valueHint) {
            // a required switch with nothing to say about a value (`--stdio`)
            out.push(arg.name)
            continue
          }
        }
        out.push(arg.name, this.value(arg, envNameFor(arg.valueHint ?? arg.name.replace(/^-+/, '')), `${what} ${arg.name}`)!)
      } else {
        const env = envNameFor(arg.valueHint ?? arg.name ?? `${this.server}_arg`)
        const value = this.value(arg, env, `${what} ${arg.valueHint ?? arg.name ?? 'positional argument'}`)
        if (value !== undefined) out.push(value)
      }
    }
    return out
  }

  /**
   * The runner's own options (`runtimeArguments`), each one loadout knows how the runner reads: a
   * word the runner would take as the package or image (a positional, the value of a switch, a
   * value-taking option left without one) would run before the pinned one, and an option that picks
   * what runs (`npx --package`, `uvx --from`) replaces it. Values are joined to long options with
   * `=`, so no value is ever a word of its own to the runner.
   */
  runtimeArgs(list: readonly Input[], runner: keyof typeof RUNNER_OPTIONS): string[] {
    const options = RUNNER_OPTIONS[runner]
    const out: string[] = []
    for (const arg of list) {
      const shown = JSON.stringify(arg.name ?? arg.value ?? arg.valueHint ?? '')
      if (arg.type !== 'named')
        throw refuse(this.server, `its runtime argument ${shown} is not a named option: ${runner} would run it instead of the pinned package`)
      const known = arg.name !== undefined && Object.hasOwn(options, arg.name) ? options[arg.name]! : undefined
      if (!known)
        throw refuse(this.server, `its runtime argument ${shown} is not an option of ${runner} loadout knows, so it cannot tell what ${runner} would run`)
      if (known.chooses) throw refuse(this.server, `its runtime argument ${shown} makes ${runner} run something other than the pinned package`)
      const given = arg.value !== undefined || arg.default !== undefined || arg.isSecret === true || arg.isRequired === true
      if (!known.value) {
        if (arg.value !== undefined || arg.default !== undefined)
          throw refuse(this.server, `its runtime argument ${shown} takes no value, and ${runner} would run the value`)
        out.push(arg.name!)
        continue
      }
      if (!given) continue
      const value = this.value(arg, envNameFor(arg.valueHint ?? arg.name!.replace(/^-+/, '')), `runtime argument ${arg.name}`)!
      out.push(...(arg.name!.startsWith('--') ? [`${arg.name}=${value}`] : [arg.name!, value]))
    }
    return out
  }

  env(list: readonly Input[]): Record<string, string> {
    const env: Record<string, string> = {}
    for (const variable of list) {
      if (!variable.name || !isEnvName(variable.name)) {
        this.notes.push(`an environment variable with an unusable name (${JSON.stringify(variable.name ?? '')}) was left out`)
        continue
      }
      const value = this.value(variable, variable.name, `variable ${variable.name}`)
      if (value !== undefined) env[variable.name] = value
    }
    return env
  }
}

/**
 * An image that stays what was shown: by digest, or by a tag that is an exact version (an untagged
 * one gets the package's version as its tag). `:latest`, `:main` and other moving tags are refused.
 */
const pinnedImage = (server: string, identifier: string, version: string): string => {
  if (identifier.includes('@sha256:')) return identifier
  const last = identifier.split('/').pop()!
  const tag = last.includes(':') ? last.slice(last.indexOf(':') + 1) : undefined
  const chosen = tag ?? version
  if (!FULL_VERSION.test(chosen))
    throw refuse(
      server,
      `its oci image ${JSON.stringify(identifier)} is ${tag === undefined ? `untagged and its version ${JSON.stringify(version)} is` : `tagged ${JSON.stringify(tag)},`} not an exact version or a digest (@sha256:…), so what runs could change after you approve it`,
    )
  return tag === undefined ? `${identifier}:${version}` : identifier
}

const packageConfig = (server: RegistryServer, pkg: Record<string, unknown>, filler: Filler): McpServerConfig => {
  const type = strings(pkg.registryType) ?? ''
  const identifier = strings(pkg.identifier) ?? ''
  const version = strings(pkg.version) ?? server.version
  if (!IDENTIFIERS[type]!.test(identifier))
    throw refuse(server.name, `its ${type} package identifier ${JSON.stringify(identifier)} is not a valid package name`)
  const transport = isObject(pkg.transport) ? strings(pkg.transport.type) : undefined
  if (transport !== undefined && transport !== 'stdio')
    throw refuse(server.name, `its package runs as a ${transport} server on this machine, which loadout does not start (only stdio)`)
  const runtime = filler.runtimeArgs(inputs(pkg.runtimeArguments), RUNNER_OF[type]!)
  const packageArgs = filler.args(inputs(pkg.packageArguments), 'package argument')
  const env = filler.env(inputs(pkg.environmentVariables))
  const withEnv = (config: McpServerConfig): McpServerConfig => (Object.keys(env).length > 0 ? {...config, env} : config)
  const pinned = (v: string) => {
    if (!(type === 'pypi' ? EXACT_VERSION : FULL_VERSION).test(v))
      throw refuse(server.name, `its ${type} package version ${JSON.stringify(v)} is not an exact version, and loadout installs only pinned packages`)
    return v
  }
  switch (type) {
    case 'npm': {
      const yes = runtime.includes('-y') || runtime.includes('--yes') ? [] : ['-y']
      return withEnv({command: 'npx', args: [...yes, ...runtime, `${identifier}@${pinned(version)}`, ...packageArgs]})
    }
    case 'pypi':
      return withEnv({command: 'uvx', args: [...runtime, `${identifier}==${pinned(version)}`, ...packageArgs]})
    case 'oci': {
      const image = pinnedImage(server.name, identifier, version)
      // the container sees only the variables docker is told to pass in
      const passEnv = Object.keys(env).flatMap((name) => ['-e', name])
      return withEnv({command: 'docker', args: ['run', '-i', '--rm', ...passEnv, ...runtime, image, ...packageArgs]})
    }
    default:
      throw refuse(server.name, `its package type ${type} is not one loadout runs`)
  }
}

const remoteConfig = (server: RegistryServer, remote: Record<string, unknown>, filler: Filler): McpServerConfig => {
  const type = strings(remote.type)
  if (type !== 'streamable-http' && type !== 'sse') throw refuse(server.name, `its remote has the unknown type ${JSON.stringify(type)}`)
  const urlInput: Input = {
    value: strings(remote.url) ?? '',
    ...(isObject(remote.variables) ? {variables: readInput({variables: remote.variables})!.variables!} : {}),
  }
  const url = filler.value(urlInput, 'MCP_URL', 'url')!
  if (referencedEnvNames(url).length > 0) throw refuse(server.name, `its URL ${url} needs values loadout cannot fill in safely`)
  checkServerUrl(url)
  const headers: Record<string, string> = {}
  for (const header of inputs(remote.headers)) {
    if (!header.name || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header.name)) continue
    const value = filler.value(header, envNameFor(header.name), `header ${header.name}`)
    if (value !== undefined) headers[header.name] = value
  }
  return {type: type === 'sse' ? 'sse' : 'http', url, ...(Object.keys(headers).length > 0 ? {headers} : {})}
}

export interface FromServerJson {
  /** the key to write it under; default: the last part of the registry name */
  name?: string
  /** use the server's remote even when it has a package */
  remote?: boolean
}

export const defaultLocalName = (registryName: string): string =>
  (registryName.split('/').pop() ?? registryName)
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 64)

/** A registry server as a server spec: its first package loadout can run, else its first remote. */
export const specFromServerJson = (server: RegistryServer, registry: string, options: FromServerJson = {}): McpServerSpec => {
  const name = checkServerName(options.name ?? defaultLocalName(server.name))
  const filler = new Filler(name)
  for (const field of ['packages', 'remotes'] as const) {
    if (server[field] !== undefined && !Array.isArray(server[field]))
      throw refuse(server.name, `its "${field}" is ${server[field] === null ? 'null' : `a ${typeof server[field]}`}, not a list`)
  }
  const packages = (server.packages ?? []).filter(isObject).filter((p) => typeof p.registryType === 'string' && p.registryType in IDENTIFIERS)
  const remotes = (server.remotes ?? []).filter(isObject)
  let config: McpServerConfig
  if (packages.length > 0 && !options.remote) config = packageConfig(server, packages[0]!, filler)
  else if (remotes.length > 0) config = remoteConfig(server, remotes[0]!, filler)
  else if (options.remote)
    throw usageError('no-remote', `MCP server "${server.name}" has no remote (URL) to connect to`, {
      suggestions: ['install its package instead: leave out --remote'],
    })
  else throw refuse(server.name, `it has no npm, pypi or oci package and no remote (it lists ${(server.packages ?? []).length} package(s) of other kinds)`)
  return {
    name,
    config,
    origin: {kind: 'registry', registry, server: server.name, version: server.version},
    requiredEnv: [...new Set([...filler.required, ...referencedEnvNames(config)])].sort(),
    notes: filler.notes,
  }
}
