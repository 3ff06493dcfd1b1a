import type {Source} from '../../../model/source.js'
import {normalizeGitUrl} from '../git-url.js'
import {githubHost} from '../hosts.js'
import type {SourceKind} from '../kind.js'
import {repositoryPlugin} from './git.js'

type GithubSource = Extract<Source, {kind: 'github'}>

const cloneUrlOf = (source: GithubSource, githubUrl: string): string => `${githubUrl.replace(/\/+$/, '')}/${source.owner}/${source.repo}.git`

/** `owner/repo[@ref]` on GitHub (or the server $LOADOUT_GITHUB_URL names). */
export const github: SourceKind<GithubSource> = {
  kind: 'github',
  describe: (source) => `${source.owner}/${source.repo}${source.ref ? `@${source.ref}` : ''}${source.path ? ` (path ${source.path})` : ''}`,
  host: (_source, vars) => githubHost(vars),
  gitUrl: cloneUrlOf,
  cacheId: (source, githubUrl) => `git:${normalizeGitUrl(cloneUrlOf(source, githubUrl))}`,
  catalog: 'git',
  cached: 'git',
  localPath: () => undefined,
  repositoryPath: (source) => (source.path ?? '').replace(/^\.?\/+|\/+$/g, ''),
  withRepositoryPath: (source, path) => ({...source, path}),
  onGithub: true,
  tokenOrigin: () => undefined,
  direct: (source, {vars, label}) => repositoryPlugin(source, source.repo, cloneUrlOf(source, vars.LOADOUT_GITHUB_URL || 'https://github.com'), label),
}
