import type {SkillsListResult} from '../../core/ops/skills/list.js'
import type {CreatedSkill} from '../../core/ops/skills/create.js'
import type {DeletedSkill} from '../../core/ops/skills/delete.js'
import type {SkillInfo} from '../../core/ops/skills/info.js'
import type {SkillShare} from '../../core/ops/budget/budget.js'
import type {SkillsValidation} from '../../core/ops/skills/validate-paths.js'
import {bold, dim, green, red, yellow} from '../style.js'
import {renderTable} from '../table.js'
import {frontmatterLines, problemLine, problemsOrValid, whereLines} from './common.js'

export const renderCreated = (created: CreatedSkill): string => {
  const verb = created.dryRun ? 'would create' : 'created'
  const lines = created.destinations.map((d) => `${green(verb)} ${d.path}${d.replaced ? ' (replacing the old one)' : ''} ${dim(`for ${d.agents.join(', ')}`)}`)
  lines.push(dim(`files: ${created.files.join(', ')}`))
  for (const s of created.skipped) lines.push(yellow(`skipped ${s.agent}: ${s.reason}`))
  return lines.join('\n')
}

export const renderSkillList = (result: SkillsListResult): string => {
  if (result.skills.length === 0) {
    const looked = result.folders.map((f) => `  ${f.agent} ${f.scope} ${f.path}${f.exists ? '' : dim(' (missing)')}`)
    const problems = result.folders.flatMap((f) => f.problems).map(problemLine)
    return [`no skills found for ${result.agents.join(', ')}`, dim('looked in:'), ...looked, ...problems].join('\n')
  }
  const rows = result.skills.map((s) => [
    s.agent,
    s.name,
    s.scope,
    s.status === 'active' ? green('active') : dim('shadowed'),
    s.valid ? 'valid' : red(`invalid (${s.problems.filter((p) => p.severity === 'error').length})`),
    s.owner,
    s.path,
  ])
  const lines = [renderTable(['AGENT', 'NAME', 'SCOPE', 'STATUS', 'VALID', 'OWNER', 'PATH'], rows)]
  const folderProblems = result.folders.flatMap((f) => f.problems)
  for (const p of folderProblems) lines.push(problemLine(p))
  const shadowed = result.skills.filter((s) => s.status === 'shadowed')
  if (shadowed.length > 0) {
    lines.push('', dim('shadowed: another skill of the same name wins for that agent'))
    for (const s of shadowed) lines.push(dim(`  ${s.agent} ${s.path} is shadowed by ${s.shadowedBy}`))
  }
  const broken = result.skills.filter((s) => s.problems.length > 0)
  if (broken.length > 0) {
    lines.push('', 'problems:')
    const seen = new Set<string>()
    for (const s of broken) {
      if (seen.has(s.path)) continue
      seen.add(s.path)
      for (const p of s.problems) lines.push(problemLine(p))
    }
  }
  return lines.join('\n')
}

export const renderSkillInfo = (info: SkillInfo, budget: readonly SkillShare[] = []): string => {
  const lines = [bold(info.name), info.description ? `  ${info.description}` : '']
  lines.push(`path: ${info.path}`)
  lines.push(`body: ${info.body.lines} lines, ${info.body.bytes} bytes, ~${info.body.estimatedTokens} tokens`)
  lines.push(...frontmatterLines(info.frontmatter))
  lines.push(`files (${info.files.length}${info.filesTruncated ? '+' : ''}):`)
  for (const f of info.files) lines.push(`  ${f.path} ${dim(`${f.bytes} B${f.kind === 'file' ? '' : `, ${f.kind}`}`)}`)
  for (const b of budget)
    lines.push(
      `start-up budget ${b.agent} ${dim(b.scope)}: ~${b.tokens} tokens${b.percent === null ? ', no documented budget' : ` of ${b.budget} (${b.percent}%)`}${b.dropped ? red(', dropped') : ''}`,
    )
  lines.push(...whereLines(info.locations), ...problemsOrValid(info.problems))
  return lines.filter((l) => l !== '').join('\n')
}

export const renderDeleted = (deleted: DeletedSkill): string =>
  deleted.removals.map((r) => `${deleted.dryRun ? yellow('would delete') : green('deleted')} ${r.path} ${dim(`(${r.agents.join(', ')})`)}`).join('\n')

export const renderValidation = (result: SkillsValidation): string => {
  const lines: string[] = []
  for (const p of result.problems) lines.push(problemLine(p))
  for (const s of result.skills) {
    lines.push(`${s.valid ? green('ok  ') : red('FAIL')} ${s.name ?? '?'} ${dim(s.path)}`)
    for (const p of s.problems) lines.push(problemLine(p))
  }
  lines.push(`${result.skills.length} skill(s), ${result.errors} error(s), ${result.warnings} warning(s)${result.strict ? ' (strict)' : ''}`)
  return lines.join('\n')
}
