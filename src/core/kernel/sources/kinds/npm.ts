import type {PluginFetchSpec, Source} from '../../../model/source.js'
import {hostOfUrl} from '../hosts.js'
import type {FetchSpecKind, SourceKind} from '../kind.js'
import {DEFAULT_NPM_REGISTRY} from '../npm-spec.js'
import {directName, urlName} from './direct-name.js'

type NpmSource = Extract<Source, {kind: 'npm'}>

/** `npm:<package>[@<range>]` in the registry $LOADOUT_NPM_REGISTRY names, else the public one. */
export const npm: SourceKind<NpmSource> = {
  kind: 'npm',
  describe: (source) => `npm:${source.package}${source.version ? `@${source.version}` : ''}`,
  host: (_source, vars) => hostOfUrl(vars.LOADOUT_NPM_REGISTRY || DEFAULT_NPM_REGISTRY),
  gitUrl: () => undefined,
  cacheId: (source) => `npm:${source.package}@${source.version ?? ''}`,
  catalog: {code: 'npm-not-marketplace', why: 'an npm package is a plugin source, not a marketplace'},
  localPath: () => undefined,
  repositoryPath: () => undefined,
  withRepositoryPath: (source) => source,
  onGithub: false,
  tokenOrigin: () => undefined,
  direct: (source, {vars, label}) => {
    const registry = vars.LOADOUT_NPM_REGISTRY || undefined
    return {
      name: directName({name: urlName(source.package)}),
      fetch: {kind: 'npm', package: source.package, ...(source.version ? {version: source.version} : {}), ...(registry ? {registry} : {}), label},
    }
  },
}

export const npmFetch: FetchSpecKind<Extract<PluginFetchSpec, {kind: 'npm'}>> = {
  kind: 'npm',
  host: (spec) => hostOfUrl(spec.registry ?? DEFAULT_NPM_REGISTRY),
  pinned: (spec) => Boolean(spec.integrity),
  atCommit: () => undefined,
  marketplaceRepository: () => undefined,
  remote: () => undefined,
  localFolder: () => undefined,
  artifact: true,
}
