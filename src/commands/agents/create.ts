import {oclifCommand} from '../../ui/oclif-command.js'
import {agentsCreate} from '../../ui/shared-commands/agents-create.js'

export default oclifCommand(agentsCreate, {
  summary: 'Write a new subagent into the chosen agents, each in its own format',
  examples: [
    '<%= config.bin %> agents create code-reviewer --description "Reviews a diff for bugs" --tools Read,Grep,Glob --agent claude-code,cst-agent',
    '<%= config.bin %> agents create planner --model gpt-5 --readonly --max-steps 20 --agent deepagents,cst-agent --scope user --yes',
  ],
})
