/**
 * What a cached git mirror says of its commits' history: when a commit was made (the cool-down of
 * `minimumReleaseAge`) and whether one descends from another (`noDowngrade`). Read-only: the mirror
 * is the one the last fetch left, and git runs through the hardened runner.
 */
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {gitCacheDir} from '../sources/git.js'
import {gitContext, runGit} from '../sources/git-process.js'

const FULL_COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

/** The mirror of `url` in the cache, and a context for git in it that reaches no remote. */
const mirrorOf = (url: string, env: Environment) => {
  const cache = loadoutPaths(env).cache
  const mirror = join(gitCacheDir(cache, url), 'mirror')
  return {mirror, context: gitContext(env, cache, false, url)}
}

/** When `commit` was committed (its committer date), or undefined when the mirror does not have it. */
export const committedAt = async (url: string, commit: string, env: Environment): Promise<Date | undefined> => {
  if (!FULL_COMMIT.test(commit)) return undefined
  const {mirror, context} = mirrorOf(url, env)
  const out = await runGit(context, mirror, ['show', '-s', '--format=%ct', commit, '--'], {GIT_DIR: mirror}).catch(() => '')
  const seconds = Number(out.trim())
  return out.trim() && Number.isFinite(seconds) ? new Date(seconds * 1000) : undefined
}

/**
 * The last commit at or before `commit` that changed `path` (a plugin folder inside a marketplace),
 * and when: a marketplace moving on for another plugin does not make this one younger.
 */
export const lastChangeOf = async (url: string, commit: string, path: string, env: Environment): Promise<{commit: string; at: Date} | undefined> => {
  if (!FULL_COMMIT.test(commit)) return undefined
  const {mirror, context} = mirrorOf(url, env)
  const args = ['log', '-1', '--format=%H%x09%ct', commit, '--', ...(path && path !== '.' ? [`:(literal)${path}`] : [])]
  const out = await runGit(context, mirror, args, {GIT_DIR: mirror}).catch(() => '')
  const [found, seconds] = out.trim().split('\t')
  return found && FULL_COMMIT.test(found) && Number.isFinite(Number(seconds)) ? {commit: found, at: new Date(Number(seconds) * 1000)} : undefined
}

/**
 * Whether `newer` is `older` or descends from it: their best common ancestor is `older` itself. (Asked
 * as `git merge-base`, which prints it: `--is-ancestor` prints nothing, and simple-git waits 50 ms
 * after a silent process.) A commit the mirror does not have (a force-push took it away) is no
 * ancestor: the answer is false, never an error.
 */
export const descendsFrom = async (url: string, older: string, newer: string, env: Environment): Promise<boolean> => {
  if (!FULL_COMMIT.test(older) || !FULL_COMMIT.test(newer)) return false
  if (older === newer) return true
  const {mirror, context} = mirrorOf(url, env)
  const base = await runGit(context, mirror, ['merge-base', older, newer], {GIT_DIR: mirror}).catch(() => '')
  return base.trim() === older
}
