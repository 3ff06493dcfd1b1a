import {applySubagentDelete, planSubagentDelete, type DeletedSubagent} from '../../core/ops/agents/delete.js'
import {renderSubagentDeleted} from '../render/subagents.js'
import {deleteHandMade, deleteSpec} from './hand-made.js'
import {sharedCommand} from './types.js'

/** `loadout agents delete <name>`: a subagent made by hand, deleted from the chosen agents. */
export const agentsDelete = sharedCommand(deleteSpec('subagent name'), async ({flags, argv}, io): Promise<DeletedSubagent> =>
  deleteHandMade(
    {noun: 'subagent', section: 'subagents', plan: planSubagentDelete, apply: applySubagentDelete, render: renderSubagentDeleted},
    argv[0]!,
    flags,
    io,
  ),
)
