import {notFound} from '../../model/errors.js'
import type {Problem} from '../../model/problems.js'
import {estimateTokens} from '../skills/info.js'
import {closestNames} from '../../kernel/text/suggest.js'
import type {SubagentFormat} from '../../kernel/targets/types.js'
import type {ListedSubagent, SkippedTarget, SubagentsInventory} from './list.js'

export interface SubagentInfo {
  name: string
  description?: string
  /** the copy described: the first active one found */
  agent: string
  format: SubagentFormat
  path: string
  /** the file holding its text (the path itself, or AGENTS.md inside it) */
  file: string
  frontmatter?: Record<string, unknown>
  /** the prompt */
  body: {lines: number; bytes: number; estimatedTokens: number}
  /** every copy of the subagent, per agent, with which one wins */
  locations: ListedSubagent[]
  skipped: SkippedTarget[]
  problems: Problem[]
}

export const subagentInfo = (name: string, inventory: SubagentsInventory): SubagentInfo => {
  const locations = inventory.subagents.filter((s) => s.name === name)
  if (locations.length === 0) {
    const near = closestNames(
      name,
      inventory.subagents.map((s) => s.name),
    )
    throw notFound('subagent-not-found', `no subagent named "${name}" in the selected agents' folders`, {
      suggestions: [...(near.length > 0 ? [`did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`] : []), 'see what is there: loadout agents list'],
    })
  }
  const chosen = locations.find((l) => l.status === 'active') ?? locations[0]!
  const found = inventory.details.get(chosen.path)!
  const body = found.body
  // A final newline ends the last line; it does not start another one (as `wc -l` and editors count).
  const lines = body.length === 0 ? 0 : body.split('\n').length - (body.endsWith('\n') ? 1 : 0)
  return {
    name,
    ...(found.description === undefined ? {} : {description: found.description}),
    agent: chosen.agent,
    format: found.format,
    path: found.path,
    file: found.file,
    ...(found.frontmatter ? {frontmatter: found.frontmatter} : {}),
    body: {lines, bytes: Buffer.byteLength(body), estimatedTokens: estimateTokens(body)},
    locations,
    skipped: inventory.skipped,
    problems: found.problems,
  }
}
