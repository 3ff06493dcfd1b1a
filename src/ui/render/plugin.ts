import type {CreatedPlugin} from '../../core/ops/authoring/plugin-create.js'
import type {PluginValidation} from '../../core/ops/authoring/plugin-validate.js'
import type {Problem} from '../../core/model/problems.js'
import {bold, dim, green, red, yellow} from '../style.js'

export const renderPluginCreated = (created: CreatedPlugin): string => {
  const verb = created.dryRun ? 'would create' : 'created'
  const lines = [`${green(verb)} plugin "${created.name}" at ${created.path}${created.replaced ? ' (replacing the old folder)' : ''}`]
  lines.push(dim(`formats: ${created.formats.join(', ')}; parts: ${created.parts.join(', ')}`))
  if (created.author)
    lines.push(
      dim(
        `author: ${created.author.name}${created.author.email ? ` <${created.author.email}>` : ''}${created.authorFrom === 'git-config' ? ' (from git config)' : ''}`,
      ),
    )
  lines.push(dim('files:'))
  for (const file of created.files) lines.push(dim(`  ${file}`))
  if (created.git.initialized) lines.push(dim('git: initialized a repository'))
  else if (created.git.skipped) lines.push(dim(`git: no repository (${created.git.skipped})`))
  for (const note of created.notes) lines.push(yellow(`note: ${note}`))
  if (!created.dryRun) {
    lines.push('next:')
    for (const step of created.next) lines.push(`  ${step}`)
  }
  return lines.join('\n')
}

const problemLine = (p: Problem): string => {
  const where = p.path ? ` ${dim(p.path)}` : ''
  const text = `${p.severity} ${p.code}${where}: ${p.message}`
  return `    ${p.severity === 'error' ? red(text) : yellow(text)}`
}

/** Problems grouped by file, then the fixes made, then one summary line. */
export const renderPluginValidation = (result: PluginValidation): string => {
  const lines: string[] = []
  for (const fix of result.fixes) {
    lines.push(
      `${green('fixed')} ${fix.file}${fix.path ? ` ${fix.path}` : ''}: ${JSON.stringify(fix.before)} -> ${JSON.stringify(fix.after)} ${dim(`(${fix.rule})`)}`,
    )
  }
  const byFile = new Map<string, Problem[]>()
  for (const p of result.problems) {
    const file = p.file ?? '(plugin)'
    byFile.set(file, [...(byFile.get(file) ?? []), p])
  }
  for (const [file, problems] of byFile) {
    lines.push(`  ${bold(file)}`)
    for (const p of problems) lines.push(problemLine(p))
  }
  const parts = Object.entries(result.components)
    .filter(([, names]) => names.length > 0)
    .map(([kind, names]) => `${names.length} ${kind}`)
  const verdict = result.valid ? green('valid') : red('invalid')
  lines.push(
    `${verdict} plugin "${result.name}" (${result.formats.join(', ')}${parts.length > 0 ? `; ${parts.join(', ')}` : ''}): ${result.errors} error(s), ${result.warnings} warning(s)${result.strict ? ' (strict)' : ''}`,
  )
  return lines.join('\n')
}
