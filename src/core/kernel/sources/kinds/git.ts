import type {PluginFetchSpec, Source} from '../../../model/source.js'
import {isFileUrl, normalizeGitUrl} from '../git-url.js'
import {hostOfUrl, LOCAL_HOST} from '../hosts.js'
import type {DirectPlugin, FetchSpecKind, SourceKind} from '../kind.js'
import {redactUrl} from '../redact.js'
import {directName, urlName} from './direct-name.js'

type GitSource = Extract<Source, {kind: 'git'}>
type RepositorySource = Extract<Source, {kind: 'git' | 'github'}>

const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i

/** A plugin straight from a repository (GitHub or any git URL): at its ref or commit, in its subfolder. */
export const repositoryPlugin = (source: RepositorySource, name: string, url: string, label: string): DirectPlugin => ({
  name: directName({name, ...(source.path ? {path: source.path} : {})}),
  fetch: {
    kind: 'git',
    url,
    ...(source.ref ? {ref: source.ref} : {}),
    ...(source.sha ? {sha: source.sha} : {}),
    ...(source.path ? {path: source.path} : {}),
    label,
  },
})

/** Any git repository over https or ssh: `https://host/path.git[#ref]`, `git@host:path`. */
export const git: SourceKind<GitSource> = {
  kind: 'git',
  describe: (source) => `${redactUrl(source.url)}${source.ref ? `#${source.ref}` : ''}${source.path ? ` (path ${source.path})` : ''}`,
  host: (source) => (isFileUrl(source.url) ? LOCAL_HOST : hostOfUrl(source.url)),
  gitUrl: (source) => source.url,
  cacheId: (source) => `git:${normalizeGitUrl(source.url)}`,
  catalog: 'git',
  cached: 'git',
  localPath: () => undefined,
  repositoryPath: (source) => (source.path ?? '').replace(/^\.?\/+|\/+$/g, ''),
  withRepositoryPath: (source, path) => ({...source, path}),
  onGithub: false,
  tokenOrigin: () => undefined,
  direct: (source, {label}) => repositoryPlugin(source, urlName(source.url), source.url, label),
}

/** A plugin in a git repository, at a ref or a commit. */
export const gitFetch: FetchSpecKind<Extract<PluginFetchSpec, {kind: 'git'}>> = {
  kind: 'git',
  host: (spec) => (isFileUrl(spec.url) ? LOCAL_HOST : hostOfUrl(spec.url)),
  pinned: (spec) => Boolean(spec.sha) || FULL_COMMIT.test(spec.ref ?? ''),
  atCommit: (spec, commit) => ({...spec, sha: commit}),
  marketplaceRepository: () => undefined,
  remote: (spec) => ({url: spec.url, ...(spec.ref ? {ref: spec.ref} : {})}),
  localFolder: () => undefined,
  artifact: false,
}
