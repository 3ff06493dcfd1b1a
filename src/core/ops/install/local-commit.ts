import {statSync} from 'node:fs'
import {join} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {headCommitFromFiles} from '../../kernel/sources/git.js'
import {localGitContext, runGit} from '../../kernel/sources/git-process.js'
import {findGitRoot} from '../../kernel/env/scope.js'

/**
 * The commit a local folder's git repository is at, so a lock records it like any git source. A
 * folder of the project's own repository records none: the project's commit already says which
 * version it is, and recording it would change the lock with every commit of the project. Only
 * `rev-parse` runs (with loadout's hardened git config), nothing that reads the work tree, and only
 * when `.git` is not a plain folder whose HEAD names a branch (one process less per plugin of a
 * local marketplace).
 */
export const localGitCommit = async (folder: string, env: Environment): Promise<string | undefined> => {
  const root = findGitRoot(folder)
  if (!root || root === findGitRoot(env.cwd)) return undefined
  const gitDir = join(root, '.git')
  const fromFiles = statSync(gitDir, {throwIfNoEntry: false})?.isDirectory() ? headCommitFromFiles(gitDir) : undefined
  if (fromFiles) return fromFiles
  try {
    const sha = (await runGit(localGitContext(env), folder, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim()
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined
  } catch {
    return undefined
  }
}
