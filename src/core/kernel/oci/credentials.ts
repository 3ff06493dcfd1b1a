/**
 * Registry credentials, read where Docker keeps them and never stored by loadout: `auths` in
 * `$DOCKER_CONFIG/config.json` (default `~/.docker/config.json`), base64 `user:password`; or a
 * credential helper named by `credHelpers[host]` or `credsStore`, run as `docker-credential-<name> get`
 * with the host on its standard input. Nothing here is ever printed; errors name the helper, not what it said.
 */
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError} from '../../model/errors.js'

export interface RegistryCredentials {
  username: string
  password: string
}

const HELPER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
const MAX_CONFIG_BYTES = 1024 * 1024

export const dockerConfigFile = (env: Environment): string =>
  join(env.vars.DOCKER_CONFIG ? resolve(env.cwd, env.vars.DOCKER_CONFIG) : join(env.home, '.docker'), 'config.json')

const readConfig = (env: Environment): Record<string, unknown> | undefined => {
  let text: string
  try {
    const bytes = readFileSync(dockerConfigFile(env))
    if (bytes.length > MAX_CONFIG_BYTES) return undefined
    text = bytes.toString('utf8')
  } catch {
    return undefined
  }
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined
  } catch {
    throw new LoadoutError('docker-config-invalid', EXIT.validation, `${dockerConfigFile(env)} is not valid JSON`, {
      suggestions: ['fix the file, or run docker login again'],
    })
  }
}

/** A config key (`host`, `https://host`, `https://host/v1/`) as the host it names. */
const keyHost = (key: string): string =>
  key
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/.*$/, '')
    .toLowerCase()

const entryFor = (map: unknown, registry: string): unknown => {
  if (!map || typeof map !== 'object') return undefined
  const found = Object.entries(map as Record<string, unknown>).find(([key]) => keyHost(key) === registry)
  return found?.[1]
}

const fromAuth = (entry: unknown): RegistryCredentials | undefined => {
  if (!entry || typeof entry !== 'object') return undefined
  const {auth, username, password} = entry as Record<string, unknown>
  if (typeof auth === 'string' && auth !== '') {
    const decoded = Buffer.from(auth, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon > 0) return {username: decoded.slice(0, colon), password: decoded.slice(colon + 1)}
  }
  if (typeof username === 'string' && typeof password === 'string' && username !== '') return {username, password}
  return undefined
}

const helperFailed = (name: string, why: string) =>
  new LoadoutError('credential-helper-failed', EXIT.network, `docker-credential-${name} get failed: ${why}`, {
    suggestions: [`check that docker-credential-${name} is on PATH and logged in (docker login), or remove it from ${'~/.docker/config.json'}`],
  })

/** Runs `docker-credential-<name> get`; undefined when the helper holds nothing for the host. */
const fromHelper = async (name: string, registry: string, env: Environment): Promise<RegistryCredentials | undefined> => {
  if (!HELPER_NAME.test(name)) throw helperFailed(name.slice(0, 64), 'the helper name is not a plain name')
  const child = spawn(`docker-credential-${name}`, ['get'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {...env.vars} as NodeJS.ProcessEnv,
    cwd: env.cwd,
    timeout: 30_000,
  })
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
  child.stdin.end(registry)
  const code = await new Promise<number | string>((done) => {
    child.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'))
    child.on('close', (status) => done(status ?? 'killed'))
  })
  const said = Buffer.concat([...out, ...err]).toString('utf8')
  if (code === 'ENOENT') throw helperFailed(name, 'it is not on PATH')
  if (code !== 0) {
    // docker's helpers say so when they hold nothing for the host: that is anonymous access, not a failure
    if (/credentials not found/i.test(said)) return undefined
    throw helperFailed(name, `it exited with ${code}`)
  }
  try {
    const parsed = JSON.parse(Buffer.concat(out).toString('utf8')) as {Username?: unknown; Secret?: unknown}
    if (typeof parsed.Username === 'string' && typeof parsed.Secret === 'string' && parsed.Secret !== '')
      return {username: parsed.Username, password: parsed.Secret}
  } catch {
    // reported below
  }
  throw helperFailed(name, 'its answer is not {"Username": ..., "Secret": ...}')
}

/** The credentials Docker's config holds for `registry` (`host[:port]`), or undefined for anonymous access. */
export const registryCredentials = async (registry: string, env: Environment): Promise<RegistryCredentials | undefined> => {
  const config = readConfig(env)
  if (!config) return undefined
  const helper = entryFor(config.credHelpers, registry)
  if (typeof helper === 'string' && helper !== '') return fromHelper(helper, registry, env)
  const inline = fromAuth(entryFor(config.auths, registry))
  if (inline) return inline
  if (typeof config.credsStore === 'string' && config.credsStore !== '') return fromHelper(config.credsStore, registry, env)
  return undefined
}
