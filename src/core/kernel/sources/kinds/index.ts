import type {PluginFetchSpec, Source} from '../../../model/source.js'
import type {FetchSpecKind, SourceKind} from '../kind.js'
import {archive, archiveFetch} from './archive.js'
import {catalogUrl} from './catalog-url.js'
import {git, gitFetch} from './git.js'
import {github} from './github.js'
import {folderFetch, local} from './local.js'
import {npm, npmFetch} from './npm.js'
import {oci, ociFetch} from './oci.js'

/** Every kind of source, one module each: adding a kind is one module and one line here. */
export const sourceKinds: {[K in Source['kind']]: SourceKind<Extract<Source, {kind: K}>>} = {
  github,
  git,
  archive,
  npm,
  local,
  'catalog-url': catalogUrl,
  oci,
}

/** Every kind of resolved plugin location, from the same modules. */
export const fetchSpecKinds: {[K in PluginFetchSpec['kind']]: FetchSpecKind<Extract<PluginFetchSpec, {kind: K}>>} = {
  folder: folderFetch,
  git: gitFetch,
  archive: archiveFetch,
  npm: npmFetch,
  oci: ociFetch,
}

/** The module of a source's kind, typed for that source. */
export const kindOf = <S extends Source>(source: S): SourceKind<S> => sourceKinds[source.kind] as unknown as SourceKind<S>

export const describeSource = (source: Source): string => kindOf(source).describe(source)

export const gitUrlOfSource = (source: Source, githubUrl: string): string | undefined => kindOf(source).gitUrl(source, githubUrl)
