import type {Environment} from '../../kernel/env/environment.js'
import {localGitContext, runGit} from '../../kernel/sources/git-process.js'

/**
 * A value of the user's git config, or undefined when it is unset or empty, or git cannot say.
 * `--default ''` makes git print an empty line for an unset key: a process that printed nothing costs
 * simple-git's 50 ms wait.
 */
const gitConfigValue = async (env: Environment, key: string, timeoutMs?: number): Promise<string | undefined> => {
  try {
    const value = (await runGit(localGitContext(env, timeoutMs), env.cwd, ['config', '--default', '', '--get', key])).trim()
    return value === '' ? undefined : value
  } catch {
    return undefined
  }
}

/** Who git says the user is (`user.name`, and `user.email` when there is a name), for the author or owner a scaffold writes. */
export const gitIdentity = async (env: Environment, timeoutMs?: number): Promise<{name: string; email?: string} | undefined> => {
  const name = await gitConfigValue(env, 'user.name', timeoutMs)
  if (!name) return undefined
  const email = await gitConfigValue(env, 'user.email', timeoutMs)
  return email ? {name, email} : {name}
}
