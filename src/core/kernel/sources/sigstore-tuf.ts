/**
 * Sigstore's public trusted root, fetched and checked with TUF (tuf-js, the client @sigstore/tuf
 * wraps) through loadout's own request path: every metadata and target download, and every redirect
 * hop of each, goes through `httpGet`, so the policy's host rules judge tuf-repo-cdn.sigstore.dev
 * like any other host, and a blocked host is refused before a request leaves. @sigstore/tuf's
 * `getTrustedRoot` fetches with its own client and asks no one, hence this module.
 */
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {nodeRequire} from '../env/node-require.js'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {httpGet} from './http.js'

export const SIGSTORE_TUF_MIRROR = 'https://tuf-repo-cdn.sigstore.dev'
const TRUSTED_ROOT_TARGET = 'trusted_root.json'
/** the largest TUF metadata or target file loadout reads (Sigstore's are a few KB) */
const MAX_TUF_BYTES = 4 * 1024 * 1024

type TufJs = typeof import('tuf-js')
type TufErrors = {DownloadHTTPError: new (message: string, statusCode: number) => Error}

const load = (): {tuf: TufJs; errors: TufErrors; seeds: Record<string, {'root.json': string; targets: Record<string, string>}>} => {
  const require = nodeRequire
  return {
    tuf: require('tuf-js') as TufJs,
    // tuf-js stops walking the root chain on this error's 403/404, so a missing `N.root.json` must throw it
    errors: require('tuf-js/dist/error.js') as TufErrors,
    // the root of trust @sigstore/tuf ships for the public mirror: TUF starts from it and checks every update
    seeds: require('@sigstore/tuf/seeds.json') as Record<string, {'root.json': string; targets: Record<string, string>}>,
  }
}

/** A new root.json is asked for until one is missing: that 404 is TUF's expected end, not a failure. */
const fetcherFor = (lib: ReturnType<typeof load>, env: Environment) =>
  new (class extends lib.tuf.BaseFetcher {
    override async fetch(url: string): Promise<NodeJS.ReadableStream> {
      try {
        const got = await httpGet(url, {env, maxBytes: MAX_TUF_BYTES, anonymous: true})
        if (got.status !== 'ok') throw new lib.errors.DownloadHTTPError(`${url} answered 304`, 304)
        return Readable.from([got.body])
      } catch (error) {
        if (error instanceof LoadoutError && error.exitStatus === EXIT.notFound) throw new lib.errors.DownloadHTTPError(error.message, 404)
        throw error
      }
    }
  })()

/** Seeds the cache folder with the shipped root (once), as @sigstore/tuf does. */
const seed = (lib: ReturnType<typeof load>, dir: string): void => {
  const targets = join(dir, 'targets')
  mkdirSync(targets, {recursive: true})
  if (existsSync(join(dir, 'root.json'))) return
  const shipped = lib.seeds[SIGSTORE_TUF_MIRROR]
  if (!shipped) throw new LoadoutError('sigstore-root-unreadable', EXIT.integrity, `no TUF root ships for ${SIGSTORE_TUF_MIRROR}`)
  writeFileSync(join(dir, 'root.json'), Buffer.from(shipped['root.json'], 'base64'))
  for (const [name, body] of Object.entries(shipped.targets)) writeFileSync(join(targets, name), Buffer.from(body, 'base64'))
}

/**
 * The public trusted root, refreshed with TUF. The policy judges the mirror before anything else so
 * the refusal names it even when the cache could have answered.
 */
export const publicTrustedRoot = async (env: Environment, cacheDir: string): Promise<unknown> => {
  env.judgeUrl?.(new URL(SIGSTORE_TUF_MIRROR))
  const lib = load()
  const dir = join(cacheDir, 'sigstore-tuf', encodeURIComponent(new URL(SIGSTORE_TUF_MIRROR).host))
  seed(lib, dir)
  const updater = new lib.tuf.Updater({
    metadataBaseUrl: SIGSTORE_TUF_MIRROR,
    targetBaseUrl: `${SIGSTORE_TUF_MIRROR}/targets`,
    metadataDir: dir,
    targetDir: join(dir, 'targets'),
    fetcher: fetcherFor(lib, env),
  })
  try {
    await updater.refresh()
    const info = await updater.getTargetInfo(TRUSTED_ROOT_TARGET)
    if (!info) throw new Error(`${TRUSTED_ROOT_TARGET} is not among its targets`)
    const path = (await updater.findCachedTarget(info)) ?? (await updater.downloadTarget(info))
    return JSON.parse(await readFile(path, 'utf8')) as unknown
  } catch (error) {
    if (error instanceof LoadoutError) throw error
    throw new LoadoutError('sigstore-root-unreadable', EXIT.network, `Sigstore's trusted root from ${SIGSTORE_TUF_MIRROR}: ${(error as Error).message}`, {
      suggestions: ['check your network, or name a trusted root file with LOADOUT_SIGSTORE_TRUSTED_ROOT'],
    })
  }
}
