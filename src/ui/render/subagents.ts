import type {CreatedSubagent} from '../../core/ops/agents/create.js'
import type {DeletedSubagent} from '../../core/ops/agents/delete.js'
import type {SubagentInfo} from '../../core/ops/agents/info.js'
import type {SkippedTarget, SubagentsListResult} from '../../core/ops/agents/list.js'
import {bold, dim, green, red, yellow} from '../style.js'
import {renderTable} from '../table.js'
import {frontmatterLines, problemLine, problemsOrValid, whereLines} from './common.js'

const skippedLines = (skipped: readonly SkippedTarget[]) => skipped.map((s) => yellow(`skipped ${s.agent}: ${s.reason}`))

export const renderSubagentCreated = (created: CreatedSubagent): string => {
  const verb = created.dryRun ? 'would create' : 'created'
  const lines: string[] = []
  for (const d of created.destinations) {
    lines.push(`${green(verb)} ${d.file}${d.replaced ? ' (replacing the old one)' : ''} ${dim(`for ${d.agents.join(', ')} (${d.format})`)}`)
    for (const note of d.notes) lines.push(dim(`  note: ${note}`))
  }
  lines.push(...skippedLines(created.skipped))
  return lines.join('\n')
}

export const renderSubagentList = (result: SubagentsListResult): string => {
  if (result.subagents.length === 0) {
    const looked = result.folders.map((f) => `  ${f.agent} ${f.scope} ${f.path}${f.exists ? '' : dim(' (missing)')}`)
    const problems = result.folders.flatMap((f) => f.problems).map(problemLine)
    return [
      `no subagents found for ${result.agents.join(', ')}`,
      ...(looked.length > 0 ? [dim('looked in:'), ...looked] : []),
      ...problems,
      ...skippedLines(result.skipped),
    ].join('\n')
  }
  const rows = result.subagents.map((s) => [
    s.agent,
    s.name,
    s.scope,
    s.status === 'active' ? green('active') : dim('shadowed'),
    s.valid ? 'valid' : red(`invalid (${s.problems.filter((p) => p.severity === 'error').length})`),
    s.owner,
    s.path,
  ])
  const lines = [renderTable(['AGENT', 'NAME', 'SCOPE', 'STATUS', 'VALID', 'OWNER', 'PATH'], rows)]
  for (const p of result.folders.flatMap((f) => f.problems)) lines.push(problemLine(p))
  const shadowed = result.subagents.filter((s) => s.status === 'shadowed')
  if (shadowed.length > 0) {
    lines.push('', dim('shadowed: another subagent of the same name wins for that agent'))
    for (const s of shadowed) lines.push(dim(`  ${s.agent} ${s.path} is shadowed by ${s.shadowedBy}`))
  }
  const broken = result.subagents.filter((s) => s.problems.length > 0)
  if (broken.length > 0) {
    lines.push('', 'problems:')
    const seen = new Set<string>()
    for (const s of broken) {
      if (seen.has(s.path)) continue
      seen.add(s.path)
      for (const p of s.problems) lines.push(problemLine(p))
    }
  }
  if (result.skipped.length > 0) lines.push('', ...skippedLines(result.skipped))
  return lines.join('\n')
}

export const renderSubagentInfo = (info: SubagentInfo): string => {
  const lines = [bold(info.name), info.description ? `  ${info.description}` : '']
  lines.push(`path: ${info.file} ${dim(`(${info.format})`)}`)
  lines.push(`prompt: ${info.body.lines} lines, ${info.body.bytes} bytes, ~${info.body.estimatedTokens} tokens`)
  lines.push(...frontmatterLines(info.frontmatter))
  lines.push(...whereLines(info.locations), ...problemsOrValid(info.problems))
  return lines.filter((l) => l !== '').join('\n')
}

export const renderSubagentDeleted = (deleted: DeletedSubagent): string =>
  [
    ...deleted.removals.map((r) => `${deleted.dryRun ? yellow('would delete') : green('deleted')} ${r.path} ${dim(`(${r.agents.join(', ')})`)}`),
    ...skippedLines(deleted.skipped),
  ].join('\n')
