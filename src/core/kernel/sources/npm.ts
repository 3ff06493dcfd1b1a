/**
 * Plugins published to an npm registry, fetched with pacote (npm's own fetcher). pacote reads the
 * packument, picks the version a range wants, and checks the tarball against the registry's
 * `dist.integrity` as it streams it (its cache is content-addressed, so a cached tarball is checked
 * too). The verified tarball is then extracted by loadout's own extractor, which refuses links and
 * bounds sizes, not by pacote's: lifecycle scripts never run and nothing outside the tree is written.
 */
import {createHash} from '../crypto/node-crypto.js'
import {existsSync, readFileSync} from 'node:fs'
import {mkdir, mkdtemp, rename, rm} from 'node:fs/promises'
import {Agent as HttpsAgent, type AgentOptions} from 'node:https'
import type {Duplex} from 'node:stream'
import {rootCertificates} from 'node:tls'
import {join} from 'node:path'
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError, notFound, usageError} from '../../model/errors.js'
import {removeEntries, staleWithPrefix} from '../fs/write.js'
import {treeIntegrity} from '../fs/integrity.js'
import {redactUrl} from './redact.js'
import {extractTarGz} from './archive.js'
import {httpGet} from './http.js'
import {verifyNpmProvenance} from './npm-attestations.js'
import {DEFAULT_NPM_REGISTRY, npmSpecRule} from './npm-spec.js'

export interface NpmSpec {
  package: string
  /** a semver range, an exact version or a dist-tag; default `latest` */
  version?: string
  /** the registry's https URL; default https://registry.npmjs.org */
  registry?: string
  /** the tarball integrity a lock pinned: anything else is refused */
  integrity?: string
}

/**
 * Policy `minimumReleaseAge` as the npm fetch applies it (pnpm's rule): the newest version the range
 * allows that was published before `cutoff` (the packument's `time`) is taken; none old enough, or a
 * version whose publication time the registry does not give, is refused.
 */
export interface NpmCoolDown {
  /** epoch ms: a version must have been published at or before it */
  cutoff: number
  /** the rule as written ("7d") and the policy file it comes from, for messages */
  minimumReleaseAge: string
  file: string
}

export interface FetchedNpm {
  /** the extracted package, in loadout's cache */
  root: string
  version: string
  /** the registry's dist.integrity, which the tarball matched */
  artifactIntegrity: string
  /** treeIntegrity of root */
  integrity: string
  /** what the registry's signing keys proved about this version (nothing, offline) */
  provenance: NpmProvenance
  /** when the registry says the version was published (known when a cool-down asked for it) */
  publishedAt?: string
}

/**
 * Registry signatures (ECDSA over `name@version:integrity`, by a key of `<registry>/-/npm/v1/keys`):
 * `verified` when the version carries them and pacote checked them, `none` when it carries none or
 * the registry publishes no keys. Provenance attestations (Sigstore bundles the registry serves):
 * `verified` when npm-attestations.ts checked one, with who signed it, `none` when there is none.
 */
export interface NpmProvenance {
  signatures: 'verified' | 'none'
  attestations: 'verified' | 'none'
  /** the identities (`<issuer>=<subject>`: the build's OIDC issuer and workflow) the attestations were signed by */
  attestedBy?: string[]
}

/** A registry signing key as pacote reads it (`//host/path:_keys`). */
interface RegistryKey {
  keyid: string
  pemkey: string
  expires: string | null
}

const MAX_KEYS_BYTES = 256 * 1024

/**
 * The registry's signing keys, asked of the registry itself as npm does (`npm audit signatures`):
 * none when it publishes none (404), or when an entry is not a key of the shape npm documents.
 */
const registryKeys = async (registry: string, env: Environment): Promise<RegistryKey[]> => {
  let body: Buffer
  try {
    const got = await httpGet(new URL('-/npm/v1/keys', registry).href, {env, maxBytes: MAX_KEYS_BYTES, accept: 'application/json'})
    if (got.status !== 'ok') return []
    body = got.body
  } catch (error) {
    if (error instanceof LoadoutError && error.exitStatus === EXIT.notFound) return []
    throw error
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return []
  }
  const keys = (parsed as {keys?: unknown}).keys
  if (!Array.isArray(keys)) return []
  return keys
    .filter(
      (k): k is {keyid: string; key: string; expires?: string | null} =>
        typeof k === 'object' &&
        k !== null &&
        typeof (k as {keyid?: unknown}).keyid === 'string' &&
        typeof (k as {key?: unknown}).key === 'string' &&
        /^[A-Za-z0-9+/=]+$/.test((k as {key: string}).key),
    )
    .map((k) => ({
      keyid: k.keyid,
      pemkey: `-----BEGIN PUBLIC KEY-----\n${k.key}\n-----END PUBLIC KEY-----`,
      expires: typeof k.expires === 'string' ? k.expires : null,
    }))
}

/** pacote's checks of a version's registry signatures and attestations, against these keys. */
const verifyingOptions = (registry: string, keys: readonly RegistryKey[]): Record<string, unknown> =>
  keys.length === 0
    ? {}
    : {
        [`//${new URL(registry).host}${new URL(registry).pathname}:_keys`]: keys,
        verifySignatures: true,
        // attestations are checked by npm-attestations.ts: pacote's check takes only the public trust
        // root, through a TUF client of its own that the policy's host check never sees
        verifyAttestations: false,
      }

/**
 * The certificate authorities a registry may be signed by: the system's, plus NODE_EXTRA_CA_CERTS
 * when it is set (pacote's `ca` replaces Node's list, so the extra one is added to it here).
 */
const trustedCas = (env: Environment): string[] | undefined => {
  const extra = env.vars.NODE_EXTRA_CA_CERTS
  if (!extra) return undefined
  try {
    return [...rootCertificates, readFileSync(extra, 'utf8')]
  } catch {
    return undefined
  }
}

/**
 * An https agent that asks `judgeUrl` before each connection: pacote follows redirects itself, so
 * the policy sees the packument's host, the tarball's and every hop between through the agent. A
 * refusal is kept, to be thrown in place of the fetch error it causes. Being https only, it fails a
 * plain http hop too.
 */
class JudgingAgent extends HttpsAgent {
  refusal: unknown
  constructor(
    private readonly judge: (url: URL) => void,
    ca: string[] | undefined,
  ) {
    super(ca ? {ca} : {})
  }
  override createConnection(
    options: AgentOptions & {host?: string | null; hostname?: string | null; port?: number | string | null},
    callback?: (error: Error | null, socket: Duplex) => void,
  ): Duplex | null | undefined {
    const host = String(options.host ?? options.hostname ?? '')
    try {
      this.judge(new URL(`https://${host.includes(':') ? `[${host}]` : host}:${options.port ?? 443}/`))
    } catch (error) {
      this.refusal ??= error
      throw error
    }
    return super.createConnection(options, callback)
  }
}

const pacoteOptions = (spec: NpmSpec, env: Environment, cacheDir: string, offline: boolean, agent?: JudgingAgent): Record<string, unknown> => {
  const registry = (spec.registry ?? DEFAULT_NPM_REGISTRY).replace(/\/+$/, '') + '/'
  const scope = spec.package.startsWith('@') ? spec.package.split('/')[0] : undefined
  const ca = trustedCas(env)
  return {
    registry,
    ...(scope ? {[`${scope}:registry`]: registry} : {}),
    cache: join(cacheDir, 'npm', '_cacache'),
    ...(ca ? {ca} : {}),
    ...(agent ? {agent} : {}),
    ...(offline ? {offline: true} : {preferOnline: true}),
    // a token for the registry comes from the environment only, never from a file loadout writes
    ...(env.vars.LOADOUT_NPM_TOKEN ? {[`//${new URL(registry).host}${new URL(registry).pathname}:_authToken`]: env.vars.LOADOUT_NPM_TOKEN} : {}),
    // no install scripts, no git dependencies (signing keys come from the registry itself: registryKeys)
    ignoreScripts: true,
    fullMetadata: false,
    fetchRetries: 1,
    fetchRetryMintimeout: 200,
    fetchRetryMaxtimeout: 1000,
    timeout: 60_000,
  }
}

interface PacoteManifest {
  name: string
  version: string
  _integrity?: string
  _resolved?: string
  /** set by pacote when the version carries registry signatures (checked when verifySignatures is on) */
  _signatures?: unknown[]
  /** dist.attestations: where the registry serves the version's attestations */
  _attestations?: {url?: unknown}
  /** the version's publication time from the packument's `time` (pacote adds it with full metadata) */
  _time?: string
}

interface Pacote {
  manifest(spec: string, options: Record<string, unknown>): Promise<PacoteManifest>
  tarball: {file(spec: string, dest: string, options: Record<string, unknown>): Promise<{integrity: string; resolved: string}>}
}

const loadPacote = async (): Promise<Pacote> => {
  const module = (await import('pacote')) as unknown as {default?: Pacote} & Pacote
  return module.default ?? module
}

const failure = (spec: NpmSpec, error: unknown): LoadoutError => {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as {code: unknown}).code) : ''
  const message = redactUrl(error instanceof Error ? error.message : String(error)).split('\n')[0]!
  const what = `npm package ${spec.package}@${spec.version ?? 'latest'}`
  if (['EINTEGRITYSIGNATURE', 'EMISSINGSIGNATUREKEY', 'EEXPIREDSIGNATUREKEY', 'EMANIFESTMISMATCH'].includes(code) || code.startsWith('EATTESTATION')) {
    return new LoadoutError('npm-signature-invalid', EXIT.integrity, `${what}: ${message}; nothing was extracted`, {
      suggestions: ["the registry's signature or attestation does not check against its published keys: do not trust this copy"],
      details: {code},
    })
  }
  if (code === 'EINTEGRITY') {
    return new LoadoutError('integrity-mismatch', EXIT.integrity, `${what}: the tarball does not match the registry's integrity; nothing was extracted`, {
      suggestions: ['the registry or something between you and it served other bytes than it published: do not trust this copy'],
    })
  }
  if (code === 'E404' || code === 'ETARGET') {
    return notFound('npm-not-found', code === 'ETARGET' ? `${what}: no published version matches` : `${what}: not in the registry`, {
      suggestions: ['check the package name, the version range and the registry'],
    })
  }
  if (code === 'ENOTCACHED')
    return new LoadoutError('offline-not-cached', EXIT.network, `offline, and ${what} is not in the cache`, {
      suggestions: ['run once without --offline to fetch it'],
    })
  return new LoadoutError('npm-fetch-failed', EXIT.network, `${what}: ${message}`)
}

/** A tarball is fetched over https only, from a host the policy allows (it may differ from the registry's). */
const checkTarballUrl = (resolved: string, manifest: PacoteManifest, env: Environment): void => {
  let url: URL
  try {
    url = new URL(resolved)
  } catch {
    throw new LoadoutError('npm-bad-tarball', EXIT.validation, `npm package ${manifest.name}@${manifest.version}: its tarball URL is not a URL`)
  }
  if (url.protocol !== 'https:')
    throw new LoadoutError(
      'insecure-url',
      EXIT.usage,
      `npm package ${manifest.name}@${manifest.version}: refusing its tarball at ${redactUrl(url.href)}: remote sources must use https`,
    )
  env.judgeUrl?.(url)
}

/**
 * Resolves the version, fetches the tarball (checked against `dist.integrity`, and against the
 * integrity a lock pinned when there is one) and extracts it once into the cache.
 */
const coolDownRefusal = (code: string, message: string, coolDown: NpmCoolDown, details: Record<string, unknown>): LoadoutError =>
  new LoadoutError(code, EXIT.policy, `refused by policy: ${message}`, {
    suggestions: [
      code === 'release-too-young'
        ? `wait until it is ${coolDown.minimumReleaseAge} old, or ask for an older version (npm:<package>@<version>)`
        : 'a registry that does not say when a version was published cannot pass a cool-down (as with pnpm)',
      'see the effective policy and where each rule comes from: loadout policy show',
    ],
    details: {rule: 'minimumReleaseAge', file: coolDown.file, ...details},
  })

/** The manifest under a cool-down: what pacote picked before the cutoff, its own time checked. */
const matureManifest = async (pacote: Pacote, spec: NpmSpec, opts: Record<string, unknown>, coolDown: NpmCoolDown): Promise<PacoteManifest> => {
  const wanted = `${spec.package}@${spec.version ?? 'latest'}`
  const rule = `minimumReleaseAge ${coolDown.minimumReleaseAge} (${coolDown.file})`
  let manifest: PacoteManifest
  try {
    manifest = await pacote.manifest(wanted, {...opts, before: new Date(coolDown.cutoff)})
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as {code: unknown}).code) : ''
    if (code !== 'ETARGET') throw error
    // something matches, only too young: held, not "not found"
    const young = await pacote.manifest(wanted, opts)
    throw coolDownRefusal(
      'release-too-young',
      `npm package ${wanted}: every version it allows is younger than ${rule}; the newest is ${young.version}${young._time ? `, published ${young._time}` : ''}`,
      coolDown,
      {subject: wanted, held: {version: young.version, ...(young._time ? {publishedAt: young._time} : {})}},
    )
  }
  const at = manifest._time ? Date.parse(manifest._time) : Number.NaN
  if (Number.isNaN(at))
    throw coolDownRefusal(
      'release-date-unknown',
      `npm package ${manifest.name}@${manifest.version}: the registry gives no publication time for it, so ${rule} cannot be checked`,
      coolDown,
      {subject: `${manifest.name}@${manifest.version}`},
    )
  return manifest
}

export const fetchNpm = async (spec: NpmSpec, options: {env: Environment; cacheDir: string; offline: boolean; coolDown?: NpmCoolDown}): Promise<FetchedNpm> => {
  const rule = npmSpecRule(spec)
  if (rule) throw usageError('bad-npm-source', rule)
  const pacote = await loadPacote()
  const judge = options.env.judgeUrl
  const agent = judge ? new JudgingAgent(judge, trustedCas(options.env)) : undefined
  const base = pacoteOptions(spec, options.env, options.cacheDir, options.offline, agent)
  // the policy judges the packument's host and the tarball's, which may be another one
  if (!options.offline) options.env.judgeUrl?.(new URL(base.registry as string))
  const keys = options.offline ? [] : await registryKeys(base.registry as string, options.env)
  const opts = {...base, ...verifyingOptions(base.registry as string, keys)}
  let manifest: PacoteManifest
  try {
    manifest = options.coolDown
      ? await matureManifest(pacote, spec, opts, options.coolDown)
      : await pacote.manifest(`${spec.package}@${spec.version ?? 'latest'}`, opts)
  } catch (error) {
    if (error instanceof LoadoutError) throw error
    throw agent?.refusal ?? failure(spec, error)
  }
  // pacote makes a sha1 integrity from `dist.shasum` when the registry gives no `dist.integrity`: sha1 no
  // longer proves the bytes are the published ones, so only a sha256/384/512 entry counts
  const published = /(?:^|\s)sha(?:256|384|512)-/.test(manifest._integrity ?? '') ? manifest._integrity : undefined
  if (!published) {
    throw new LoadoutError(
      'npm-no-integrity',
      EXIT.integrity,
      `npm package ${manifest.name}@${manifest.version} has no sha256/384/512 dist.integrity in the registry (a sha1 shasum proves nothing); loadout installs only what it can check`,
    )
  }
  if (spec.integrity && spec.integrity !== published) {
    throw new LoadoutError(
      'integrity-mismatch',
      EXIT.integrity,
      `npm package ${manifest.name}@${manifest.version}: the registry now publishes integrity ${published.slice(0, 23)}…, not the ${spec.integrity.slice(0, 23)}… the lock pinned`,
      {
        details: {expected: spec.integrity, actual: published},
        suggestions: ['a published version never changes on a sound registry: check where it came from before trusting it'],
      },
    )
  }
  if (manifest._resolved !== undefined && !options.offline) checkTarballUrl(manifest._resolved, manifest, options.env)
  const attestationsUrl = manifest._attestations?.url
  const attestedBy =
    typeof attestationsUrl === 'string' && !options.offline
      ? await verifyNpmProvenance({
          name: manifest.name,
          version: manifest.version,
          integrity: published,
          registry: base.registry as string,
          attestationsUrl,
          env: options.env,
          cacheDir: options.cacheDir,
        })
      : []
  const key = createHash('sha256').update(`${manifest.name}@${manifest.version}\0${published}`).digest('hex').slice(0, 24)
  const treesDir = join(options.cacheDir, 'npm', 'trees')
  const root = join(treesDir, key)
  if (!existsSync(root)) {
    await mkdir(treesDir, {recursive: true})
    removeEntries(treesDir, staleWithPrefix('.download-'))
    const download = await mkdtemp(join(treesDir, '.download-'))
    try {
      const file = join(download, 'package.tgz')
      try {
        await pacote.tarball.file(`${manifest.name}@${manifest.version}`, file, {...opts, integrity: published})
      } catch (error) {
        throw agent?.refusal ?? failure(spec, error)
      }
      const staging = join(download, 'tree')
      await extractTarGz(file, staging, {label: `${manifest.name}@${manifest.version}`, stripSingleRoot: true})
      await rename(staging, root).catch(async (error: unknown) => {
        if (!existsSync(root)) throw error
      })
    } finally {
      await rm(download, {recursive: true, force: true})
    }
  }
  const provenance: NpmProvenance = {
    signatures: keys.length > 0 && Array.isArray(manifest._signatures) && manifest._signatures.length > 0 ? 'verified' : 'none',
    attestations: attestedBy.length > 0 ? 'verified' : 'none',
    ...(attestedBy.length > 0 ? {attestedBy: attestedBy.map((i) => `${i.issuer}=${i.subject}`)} : {}),
  }
  return {
    root,
    version: manifest.version,
    artifactIntegrity: published,
    integrity: await treeIntegrity(root),
    provenance,
    ...(manifest._time ? {publishedAt: manifest._time} : {}),
  }
}
