import {statSync} from 'node:fs'
import {dirname, join} from 'node:path'
import type {Environment} from './environment.js'
import {usageError} from '../../model/errors.js'

export type Scope = 'user' | 'project'
export const SCOPES: readonly Scope[] = ['user', 'project']

/** The nearest folder at or above `from` that holds `.git` (a folder, or a file for worktrees). */
export const findGitRoot = (from: string): string | undefined => {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      statSync(join(dir, '.git'))
      return dir
    } catch {
      // keep walking up
    }
    if (dirname(dir) === dir) return undefined
  }
}

export interface ScopeContext {
  scope: Scope
  /** the project root: the git work tree's top, else the working directory */
  projectRoot: string
}

/** `--scope` when given; otherwise project inside a git work tree, else user. */
export const resolveScope = (requested: string | undefined, env: Environment): ScopeContext => {
  const gitRoot = findGitRoot(env.cwd)
  const projectRoot = gitRoot ?? env.cwd
  if (requested === undefined) return {scope: gitRoot ? 'project' : 'user', projectRoot}
  if (requested === 'user' || requested === 'project') return {scope: requested, projectRoot}
  throw usageError('bad-scope', `unknown scope "${requested}"`, {suggestions: ['use --scope user or --scope project']})
}
