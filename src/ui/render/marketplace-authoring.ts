import type {PluginAddedToMarketplace} from '../../core/ops/authoring/marketplace-add-plugin.js'
import type {CreatedMarketplace} from '../../core/ops/authoring/marketplace-create.js'
import type {MarketplaceValidation} from '../../core/ops/authoring/marketplace-validate.js'
import {formatProblem, type Problem} from '../../core/model/problems.js'
import {dim, green, red, yellow} from '../style.js'

const problemLine = (p: Problem & {fixable?: boolean}) => {
  const line = `${formatProblem(p)}${p.fixable ? dim(' [fixable with --fix]') : ''}`
  return `  ${p.severity === 'error' ? red(line) : yellow(line)}`
}

export const renderCreatedMarketplace = (created: CreatedMarketplace): string => {
  const verb = created.dryRun ? 'would create' : 'created'
  const lines = [`${green(verb)} marketplace "${created.name}" in ${created.path}`]
  for (const file of created.files) lines.push(`  ${file}${created.replaced.includes(file) ? yellow(' (replaced)') : ''}`)
  const owner = `${created.owner.name}${created.owner.email ? ` <${created.owner.email}>` : ''}`
  lines.push(dim(`owner: ${owner}${created.ownerFrom === 'git' ? ' (from git config)' : ''}`))
  if (created.ownerFrom === 'name')
    lines.push(yellow(`the owner is "${created.owner.name}" for want of a better one: pass --owner "Name <email>", or set git config user.name`))
  const git = created.git
  if (git.status === 'initialized') lines.push(dim('git: initialized a repository'))
  else if (git.status === 'would-initialize') lines.push(dim('git: would initialize a repository'))
  else if (git.status === 'already-a-repository') lines.push(dim('git: the folder is already a repository'))
  else if (git.status === 'failed') lines.push(yellow(`git: ${git.message ?? 'git init failed'}`))
  lines.push('next:', ...created.next.map((c) => `  ${c}`))
  return lines.join('\n')
}

export const renderPluginAdded = (added: PluginAddedToMarketplace): string => {
  const verb = added.dryRun ? 'would add' : 'added'
  const lines = [
    `${green(verb)} plugin "${added.plugin}" (${added.source}) to marketplace "${added.marketplace}"${added.manifest ? dim(` from ${added.manifest}`) : ''}`,
  ]
  for (const c of added.catalogs) lines.push(dim(`  ${c.file}`))
  return lines.join('\n')
}

export const renderMarketplaceValidation = (result: MarketplaceValidation): string => {
  const lines: string[] = []
  for (const fix of result.fixed) {
    lines.push(
      green(
        `fixed ${fix.file}${fix.path ? ` ${fix.path}` : ''}: ${fix.code === 'json-bom' ? 'removed the byte-order mark' : `${JSON.stringify(fix.from)} -> ${JSON.stringify(fix.to)}`}`,
      ),
    )
  }
  for (const file of result.files) {
    const errors = file.problems.filter((p) => p.severity === 'error').length
    const ok = errors === 0 && (!result.strict || file.problems.length === 0)
    lines.push(
      `${ok ? green('ok  ') : red('FAIL')} ${file.file} ${dim(`(${file.format}${file.name ? `, "${file.name}"` : ''}, ${file.plugins} plugin${file.plugins === 1 ? '' : 's'})`)}`,
    )
    for (const p of file.problems) lines.push(problemLine(p))
  }
  lines.push(
    `${result.files.length} catalog(s), ${result.errors} error(s), ${result.warnings} warning(s)${result.strict ? ' (strict)' : ''}${result.fixed.length > 0 ? `, ${result.fixed.length} fixed` : ''}`,
  )
  return lines.join('\n')
}
