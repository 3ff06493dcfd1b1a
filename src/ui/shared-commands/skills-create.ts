import {createSkill, SKILL_EXTRAS, type CreatedSkill} from '../../core/ops/skills/create.js'
import {splitList} from '../../core/kernel/targets/registry.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {renderCreated} from '../render/skills.js'
import {chooseWhere, createUnderLock, descriptionOf} from './hand-made.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    description: {type: 'string', char: 'd', description: 'what the skill does and when to use it (up to 1024 characters)'},
    with: {type: 'string', description: `extra folders to add: ${SKILL_EXTRAS.join(',')}`, helpValue: 'scripts,references'},
    force: {type: 'boolean', char: 'f', description: 'replace an existing skill of the same name'},
    ...WRITER_FLAGS,
  },
  args: {name: 'name', description: 'skill name: lowercase letters, digits and single hyphens', required: true},
} as const

/** `loadout skills create <name>`: a new SKILL.md folder in the chosen agents. */
export const skillsCreate = sharedCommand(spec, async ({flags, argv}, io): Promise<CreatedSkill> => {
  const name = argv[0]!
  const where = await chooseWhere(flags, io.env, 'skills')
  const description = await descriptionOf(
    flags.description,
    flags,
    io,
    'Description (what it does, when to use it):',
    `Describe what the ${name} skill does and when an agent should use it.`,
  )
  const dryRun = flags['dry-run'] === true
  const created = await createUnderLock(where, dryRun, (ownership) =>
    createSkill({name, description, extras: splitList(flags.with), ...where, ownership, force: flags.force === true, dryRun}),
  )
  io.log(renderCreated(created))
  return created
})
