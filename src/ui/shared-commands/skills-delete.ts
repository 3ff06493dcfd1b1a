import {applySkillDelete, planSkillDelete, type DeletedSkill} from '../../core/ops/skills/delete.js'
import {renderDeleted} from '../render/skills.js'
import {deleteHandMade, deleteSpec} from './hand-made.js'
import {sharedCommand} from './types.js'

/** `loadout skills delete <name>`: a skill made by hand, deleted from the chosen agents. */
export const skillsDelete = sharedCommand(deleteSpec('skill name'), async ({flags, argv}, io): Promise<DeletedSkill> =>
  deleteHandMade({noun: 'skill', section: 'skills', plan: planSkillDelete, apply: applySkillDelete, render: renderDeleted}, argv[0]!, flags, io),
)
