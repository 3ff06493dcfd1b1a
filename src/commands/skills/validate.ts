import {Args, Flags} from '@oclif/core'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {validateSkillPaths, type SkillsValidation} from '../../core/ops/skills/validate-paths.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {strictFlag} from '../../ui/flags.js'
import {renderValidation} from '../../ui/render/skills.js'
import {writeStderr} from '../../ui/safe-text.js'

export default class SkillsValidate extends LoadoutCommand {
  static override summary = 'Check skills against the Agent Skills specification; the exit status says whether they pass'
  static override examples = ['<%= config.bin %> skills validate ./skills/pdf-tools', '<%= config.bin %> skills validate .claude/skills --strict --json']
  static override strict = false
  static override args = {path: Args.string({description: 'skill folders, SKILL.md files or folders of skills (default: .)'})}
  static override flags = {
    strict: strictFlag,
    dialect: Flags.string({description: 'spec, or cst-agent (which accepts a SKILL.md without frontmatter)', options: ['spec', 'cst-agent'], default: 'spec'}),
  }

  async run(): Promise<SkillsValidation> {
    const {argv, flags} = await this.parse(SkillsValidate)
    const env = this.environment()
    const paths = (argv as string[]).length > 0 ? (argv as string[]) : ['.']
    const result = validateSkillPaths(paths, env.cwd, flags.dialect as 'spec' | 'cst-agent', flags.strict === true)
    if (!result.valid) {
      if (!this.jsonEnabled()) writeStderr(renderValidation(result))
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
    this.log(renderValidation(result))
    return result
  }
}
