import type {PluginFetchSpec, Source} from '../../../model/source.js'
import {hostOfUrl} from '../hosts.js'
import type {FetchSpecKind, SourceKind} from '../kind.js'
import {redactUrl} from '../redact.js'
import {directName, originOf, urlName} from './direct-name.js'

type ArchiveSource = Extract<Source, {kind: 'archive'}>

/** A `.tar.gz` or `.tgz` over https, optionally with `#sha256=<hex>`. */
export const archive: SourceKind<ArchiveSource> = {
  kind: 'archive',
  describe: (source) => redactUrl(source.url),
  host: (source) => hostOfUrl(source.url),
  gitUrl: () => undefined,
  cacheId: (source) => `url:${new URL(source.url).href}`,
  catalog: {code: 'archive-not-marketplace', why: 'an archive is a plugin source, not a marketplace'},
  localPath: () => undefined,
  repositoryPath: () => undefined,
  withRepositoryPath: (source) => source,
  onGithub: false,
  tokenOrigin: () => undefined,
  direct: (source, {label}) => {
    const tokenOrigin = originOf(source.url)
    return {
      name: directName({name: urlName(source.url)}),
      fetch: {kind: 'archive', url: source.url, ...(source.sha256 ? {sha256: source.sha256} : {}), label, ...(tokenOrigin ? {tokenOrigin} : {})},
    }
  },
}

export const archiveFetch: FetchSpecKind<Extract<PluginFetchSpec, {kind: 'archive'}>> = {
  kind: 'archive',
  host: (spec) => hostOfUrl(spec.url),
  pinned: (spec) => Boolean(spec.sha256),
  atCommit: () => undefined,
  marketplaceRepository: () => undefined,
  remote: () => undefined,
  localFolder: () => undefined,
  artifact: false,
}
