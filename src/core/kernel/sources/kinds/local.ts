import {relative, sep} from 'node:path'
import {pathToFileURL} from 'node:url'
import {findGitRoot} from '../../env/scope.js'
import type {PluginFetchSpec, Source} from '../../../model/source.js'
import {isInside} from '../../fs/contain.js'
import {hostOfUrl, LOCAL_HOST} from '../hosts.js'
import type {FetchSpecKind, SourceKind} from '../kind.js'

type LocalSource = Extract<Source, {kind: 'local'}>

/** A folder or a catalog file on this machine: read in place. */
export const local: SourceKind<LocalSource> = {
  kind: 'local',
  describe: (source) => source.path,
  host: () => LOCAL_HOST,
  gitUrl: () => undefined,
  cacheId: (source) => `local:${source.path}`,
  catalog: 'local',
  localPath: (source) => source.path,
  repositoryPath: () => undefined,
  withRepositoryPath: (source) => source,
  onGithub: false,
  tokenOrigin: () => undefined,
  // a folder inside the project is named relative to it, so loadout.json and the lock work in every clone
  direct: (source, {projectRoot, label}) => ({
    name: '',
    fetch: {
      kind: 'folder',
      path: source.path,
      label: isInside(projectRoot, source.path) ? `./${relative(projectRoot, source.path).split(sep).join('/')}` : label,
    },
  }),
}

/** A plugin folder: on this machine, or a folder of a git marketplace at its recorded commit. */
export const folderFetch: FetchSpecKind<Extract<PluginFetchSpec, {kind: 'folder'}>> = {
  kind: 'folder',
  host: (spec) => (spec.git ? hostOfUrl(spec.git.url) : LOCAL_HOST),
  pinned: (spec) => Boolean(spec.commit && spec.git),
  atCommit: (spec, commit) => {
    if (spec.git) return {kind: 'git', url: spec.git.url, sha: commit, ...(spec.git.path ? {path: spec.git.path} : {}), label: spec.label}
    // a folder of a git repository on this machine: that repository, read through git at the commit (the label stays the path)
    const root = findGitRoot(spec.path)
    if (!root) return undefined
    const path = relative(root, spec.path).split(sep).join('/')
    return {kind: 'git', url: pathToFileURL(root).href, sha: commit, ...(path ? {path} : {}), label: spec.label}
  },
  marketplaceRepository: (spec) => spec.git,
  remote: () => undefined,
  localFolder: (spec) => (spec.git ? undefined : spec.path),
  artifact: false,
}
