import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {readJsonFile, writeJsonFile} from '../fs/json.js'

/**
 * Sigstore bundles that verified, kept in loadout's cache by the sha256 of what they sign
 * (`<cache>/<kind>/<hex>.json`), so that `--offline` verifies them again without a request. What is
 * read back is input like any file: the caller checks the bytes it covers hash to the digest, and the
 * bundle is verified anew against the identities pinned now.
 */

const keptFile = (cacheDir: string, kind: string, hex: string): string => join(cacheDir, kind, `${hex}.json`)

/** Keeps `data` (the bundle, and what else the check needs) for the bytes whose sha256 is `hex`; a cache that cannot be written is let be. */
export const keepBundle = (cacheDir: string, kind: 'oci-signatures' | 'archive-signatures', hex: string, data: object): void => {
  try {
    mkdirSync(join(cacheDir, kind), {recursive: true})
    writeJsonFile(keptFile(cacheDir, kind, hex), data)
  } catch {
    // the next --offline run says no verified signature is cached
  }
}

/** What was kept for `hex`, or undefined. */
export const keptBundle = (cacheDir: string, kind: 'oci-signatures' | 'archive-signatures', hex: string): Record<string, unknown> | undefined => {
  const kept = readJsonFile<unknown>(keptFile(cacheDir, kind, hex), undefined)
  return kept !== null && typeof kept === 'object' && !Array.isArray(kept) ? (kept as Record<string, unknown>) : undefined
}

/** Offline, with no bundle kept for `what` (or none that still fits the bytes it signs). */
export const noKeptSignature = (what: string): LoadoutError =>
  new LoadoutError('offline-not-cached', EXIT.network, `offline, and no verified signature of ${what} is in the cache`, {
    suggestions: ['run once without --offline to check its signature'],
  })
