import {lstatSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {validationFailed} from '../../model/errors.js'
import {resolvesInside} from '../fs/contain.js'
import {readCatalog} from './catalog.js'
import {parseJsonBounded} from '../json/json-depth.js'
import type {CatalogRead} from '../../model/marketplace.js'
import type {SignerSeen} from '../../model/signing.js'

// Reading a catalog file already on disk, apart from the fetchers (fetch.ts), so that `search` and
// `marketplace info` load no git or HTTP code.

export const MAX_CATALOG_BYTES = 32 * 1024 * 1024

export interface FetchedCatalog {
  origin: 'git' | 'local' | 'url'
  /** how messages name the catalog: the URL (redacted) for a download, else the file */
  label?: string
  catalogFile: string
  root?: string
  commit?: string
  etag?: string
  lastModified?: string
  /** every catalog file found, the one chosen first: another is read when that one is unusable */
  candidates?: string[]
  /** the folder of the repository the catalog was found in, when it was not the top */
  subdir?: string
  /** what happened: a new clone, an incremental fetch, a download, or reuse of the cache */
  action: 'cloned' | 'fetched' | 'downloaded' | 'not-modified' | 'cached' | 'local'
  /** a catalog pulled from an OCI registry under pinned identities: who signed it */
  signer?: SignerSeen
}

export const readCatalogFile = (fetched: FetchedCatalog, displayName?: string): CatalogRead => {
  const file = fetched.catalogFile
  const label = displayName ?? fetched.label ?? (fetched.root ? relative(fetched.root, file) || file : file)
  const stat = lstatSync(file)
  if (stat.isSymbolicLink() && !(fetched.root && resolvesInside(fetched.root, file))) {
    throw validationFailed('catalog-link-outside', `${label} is a symbolic link out of the repository; refusing to read it`)
  }
  if (statSync(file).size > MAX_CATALOG_BYTES) throw validationFailed('catalog-too-large', `${label} is larger than ${MAX_CATALOG_BYTES} bytes`)
  const data = parseJsonBounded(readFileSync(file, 'utf8'), label)
  const format = file.endsWith(join('.agents', 'plugins', 'marketplace.json')) ? 'codex' : fetched.origin === 'url' ? undefined : 'claude'
  return readCatalog(data, {file: label, origin: fetched.origin, ...(format ? {format} : {})})
}
