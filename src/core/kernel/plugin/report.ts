import {isInside} from '../fs/contain.js'
import {problem, type Problem} from '../../model/problems.js'
import {problemsOf} from './paths.js'

/**
 * What reading a plugin found. `fatal` problems make the plugin unreadable (a path or link that
 * leads out, a broken manifest, a name used twice): readPlugin refuses it. Problems carried from a
 * skill's or subagent's own text are in `problems` only: the caller decides what they mean.
 */
export class PluginReport {
  readonly problems: Problem[] = []
  readonly fatal: Problem[] = []
  /** symbolic links already reported as leading outside, so a read through them is skipped quietly */
  readonly outsideLinks = new Set<string>()

  error(code: string, message: string, where: {file?: string; path?: string} = {}): void {
    this.addFatal(problem('error', code, message, where))
  }

  warn(code: string, message: string, where: {file?: string; path?: string} = {}): void {
    this.problems.push(problem('warning', code, message, where))
  }

  /** Problems of a component's own content (a skill's SKILL.md, a subagent's frontmatter). */
  carry(problems: readonly Problem[]): void {
    this.problems.push(...problems)
  }

  addFatal(found: Problem): void {
    this.problems.push(found)
    this.fatal.push(found)
  }

  /** True when `path` is, or lies below, a link already reported as leading outside. */
  leadsThroughOutsideLink(path: string): boolean {
    for (const link of this.outsideLinks) if (isInside(link, path)) return true
    return false
  }

  /** Runs `work`; a broken rule it throws is recorded as fatal and undefined returned. */
  attempt<T>(work: () => T): T | undefined {
    try {
      return work()
    } catch (error) {
      const found = problemsOf(error)
      if (!found) throw error
      for (const p of found) this.addFatal(p)
      return undefined
    }
  }
}
