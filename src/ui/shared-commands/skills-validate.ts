import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {validateSkillPaths, type SkillsValidation} from '../../core/ops/skills/validate-paths.js'
import {renderValidation} from '../render/skills.js'
import {writeStderr} from '../safe-text.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    strict: {type: 'boolean', description: 'treat warnings as errors'},
    dialect: {
      type: 'string',
      description: 'spec, or cst-agent (which accepts a SKILL.md without frontmatter)',
      options: ['spec', 'cst-agent'],
      default: 'spec',
    },
  },
  args: {name: 'path', description: 'skill folders, SKILL.md files or folders of skills (default: .)', variadic: true},
} as const

/** `loadout skills validate [paths...]`: the Agent Skills specification's rules; the exit status says whether they pass. */
export const skillsValidate = sharedCommand(spec, async ({flags, argv}, io): Promise<SkillsValidation> => {
  const paths = argv.length > 0 ? argv : ['.']
  const result = validateSkillPaths(paths, io.env.cwd, flags.dialect as 'spec' | 'cst-agent', flags.strict === true)
  if (!result.valid) {
    if (!io.json) writeStderr(renderValidation(result))
    throw new LoadoutError(
      'validation-failed',
      EXIT.validation,
      `${result.errors} error(s)${flags.strict ? `, ${result.warnings} warning(s) (strict)` : ''} in ${paths.join(' ')}`,
      {
        details: result,
        suggestions: ['fix the problems listed above, then run this again'],
      },
    )
  }
  io.log(renderValidation(result))
  return result
})
