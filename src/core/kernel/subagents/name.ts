import {usageError} from '../../model/errors.js'
import {checkSkillName, type NameRuleBroken} from '../skills/name.js'

/**
 * A subagent name becomes a file or folder name, so it follows the skill-name rule: 1-64 lowercase
 * letters, digits and single hyphens, already in Unicode normal form NFKC (so `..`, `/`, a leading
 * dot or look-alike letters can never reach a path).
 */
export const checkSubagentName = (name: string): NameRuleBroken | undefined =>
  checkSkillName(name) ??
  (name === name.normalize('NFKC') ? undefined : {code: 'name-not-normalized', message: `name "${name}" is not in Unicode normal form NFKC`})

/** Throws a usage error (exit 2) naming the broken rule. */
export const assertSubagentName = (name: string): void => {
  const broken = checkSubagentName(name)
  if (broken) {
    throw usageError(broken.code, `invalid subagent name: ${broken.message}`, {
      suggestions: ['use 1-64 lowercase letters, digits and single hyphens, e.g. code-reviewer'],
    })
  }
}
