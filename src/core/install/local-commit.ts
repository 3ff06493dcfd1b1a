import {loadoutPaths, type Environment} from '../environment.js'
import {gitContext, runGit} from '../fetch/git.js'
import {findGitRoot} from '../scope.js'

/**
 * The commit a local folder's git repository is at, so a lock records it like any git source. A
 * folder of the project's own repository records none: the project's commit already says which
 * version it is, and recording it would change the lock with every commit of the project. Only
 * `rev-parse` runs (with loadout's hardened git config), nothing that reads the work tree.
 */
export const localGitCommit = async (folder: string, env: Environment): Promise<string | undefined> => {
  const root = findGitRoot(folder)
  if (!root || root === findGitRoot(env.cwd)) return undefined
  try {
    const sha = (await runGit(gitContext(env, loadoutPaths(env).cache), folder, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim()
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined
  } catch {
    return undefined
  }
}
