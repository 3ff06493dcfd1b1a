import {createSubagent, type CreatedSubagent} from '../../core/ops/agents/create.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {renderSubagentCreated} from '../render/subagents.js'
import {chooseWhere, createUnderLock, descriptionOf} from './hand-made.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    description: {type: 'string', char: 'd', description: 'what the subagent does and when to hand it a task (up to 1024 characters)'},
    tools: {type: 'string', description: "tools it may use, comma-separated; default: the agent's own defaults", helpValue: 'Read,Grep'},
    model: {type: 'string', description: 'the model it runs on; Claude aliases (sonnet, opus, haiku) are dropped for agents that do not know them'},
    readonly: {
      type: 'boolean',
      description: 'cst-agent: may not change files (--no-readonly: may); default: read-only when every tool only reads',
      allowNo: true,
    },
    'max-steps': {type: 'integer', description: "cst-agent's max_steps, Claude Code's maxTurns", min: 1},
    force: {type: 'boolean', char: 'f', description: 'replace an existing subagent of the same name'},
    ...WRITER_FLAGS,
  },
  args: {name: 'name', description: 'subagent name: lowercase letters, digits and single hyphens', required: true},
} as const

/** `loadout agents create <name>`: a new subagent in the chosen agents, each in its own format. */
export const agentsCreate = sharedCommand(spec, async ({flags, argv}, io): Promise<CreatedSubagent> => {
  const name = argv[0]!
  const where = await chooseWhere(flags, io.env, 'subagents')
  const description = await descriptionOf(
    flags.description,
    flags,
    io,
    'Description (what it does, when to hand it a task):',
    `Describe what the ${name} subagent does and when an agent should hand it a task.`,
  )
  const dryRun = flags['dry-run'] === true
  const created = await createUnderLock(where, dryRun, (ownership) =>
    createSubagent({
      name,
      description,
      tools: flags.tools,
      model: flags.model,
      readonly: flags.readonly,
      maxSteps: flags['max-steps'],
      ...where,
      ownership,
      force: flags.force === true,
      dryRun,
    }),
  )
  io.log(renderSubagentCreated(created))
  return created
})
