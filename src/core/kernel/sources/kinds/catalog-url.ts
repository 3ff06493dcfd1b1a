import {usageError} from '../../../model/errors.js'
import type {Source} from '../../../model/source.js'
import {hostOfUrl} from '../hosts.js'
import type {SourceKind} from '../kind.js'
import {redactUrl} from '../redact.js'
import {originOf} from './direct-name.js'

type CatalogUrlSource = Extract<Source, {kind: 'catalog-url'}>

/** A marketplace catalog at one https URL: a marketplace, never a plugin. */
export const catalogUrl: SourceKind<CatalogUrlSource> = {
  kind: 'catalog-url',
  describe: (source) => redactUrl(source.url),
  host: (source) => hostOfUrl(source.url),
  gitUrl: () => undefined,
  cacheId: (source) => `url:${new URL(source.url).href}`,
  catalog: 'url',
  cached: 'catalog',
  localPath: () => undefined,
  repositoryPath: () => undefined,
  withRepositoryPath: (source) => source,
  onGithub: false,
  tokenOrigin: (source) => originOf(source.url),
  direct: (_source, {label}) => {
    throw usageError('catalog-not-plugin', `${label} is a catalog, not a plugin`, {suggestions: [`add it first: loadout marketplace add ${label}`]})
  },
}
