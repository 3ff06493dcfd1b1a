import type {InstallResult} from '../../core/ops/install/install.js'
import {describeConsentItem, type ConsentSummary} from '../../core/ops/install/consent.js'
import type {RemovalResult} from '../../core/ops/install/remove.js'
import type {Operation} from '../../core/ops/install/plan.js'
import {bold, dim, green, yellow} from '../style.js'
import {safeMessage, safeText as t} from '../safe-text.js'
export {renderVerify} from './installed.js'

const describeOp = (op: Operation): string => {
  switch (op.kind) {
    case 'copy-dir':
      return `copy ${op.component.split('/').slice(-2).join(' ')} to ${op.dest}`
    case 'write-file':
      return `write ${op.dest}`
    case 'json-member':
      return `${op.hooks ? 'merge hooks into' : 'add'} ${[...op.path, op.key].join('.')} in ${op.file}`
    case 'shared':
      return `use ${op.dest}, written for ${op.with} (one copy serves both)`
    case 'toml-table':
      return `add [${op.table.join('.')}] to ${op.file}`
    default:
      return ''
  }
}

/** What the executable parts can reach: every file of the plugin, bound by its integrity. */
const filesLine = (files: ConsentSummary['files'] | undefined): string[] =>
  files
    ? [
        `  and the ${files.count} file(s) they can reach (integrity ${files.integrity.slice(0, 23)}…)${files.executables.length > 0 ? `, executable: ${t(files.executables.join(', '), {max: 1000})}` : ''}`,
      ]
    : []

export const renderConsent = (summary: ConsentSummary, id: string): string =>
  [
    bold(`${t(id)} runs code on this machine:`),
    ...summary.items.map((i) => `  ${t(describeConsentItem(i), {max: 2000})}`),
    ...filesLine(summary.files),
    dim(`fingerprint ${summary.fingerprint.slice(0, 23)}…`),
  ].join('\n')

export const renderInstalled = (result: InstallResult): string => {
  if (result.status === 'already-installed')
    return `${t(result.plugin)} is already installed (${result.scope} scope, same content); nothing to do. Use --force to reinstall.`
  const lines: string[] = []
  if (result.recovered) lines.push(yellow(`recovered an interrupted run (${result.recovered.label}): ${result.recovered.action}`))
  const verb = result.status === 'planned' ? yellow('would install') : green('installed')
  lines.push(
    `${verb} ${bold(t(result.plugin))}${result.version ? ` ${t(result.version)}` : ''} from ${t(result.source)}${result.commit ? ` at ${result.commit.slice(0, 12)}` : ''} ${dim(`[${result.scope} scope]`)}`,
  )
  for (const plan of result.plans) {
    lines.push(`  ${bold(plan.target)}`)
    for (const op of plan.operations) lines.push(`    ${describeOp(op)}`)
    for (const r of plan.renamed ?? [])
      lines.push(yellow(`    ${t(r.component.split('/').at(-2) ?? '')} "${t(r.name)}" is installed as "${t(r.as)}": "${t(r.name)}" belongs to ${t(r.because)}`))
    for (const s of plan.skipped) lines.push(yellow(`    not written: ${t(s.component.split('/').slice(-2).join(' '))}: ${safeMessage(s.reason)}`))
    for (const n of plan.notes ?? []) lines.push(yellow(`    warning: ${t(n.component.split('/').slice(-2).join(' '))}: ${safeMessage(n.note)}`))
  }
  if (result.consent.items.length > 0) {
    lines.push(`  executable parts (${result.consent.approvedBy === 'pending' ? 'need approval' : `approved: ${result.consent.approvedBy}`}):`)
    for (const item of result.consent.items) lines.push(`    ${t(describeConsentItem(item), {max: 2000})}`)
    for (const line of filesLine(result.consent.files)) lines.push(`  ${line}`)
  }
  for (const p of result.problems.filter((p) => p.severity === 'warning')) lines.push(dim(`  warning: ${safeMessage(p.message)}`))
  return lines.join('\n')
}

export const renderRemoved = (result: RemovalResult, verb: 'uninstall' | 'disable'): string => {
  const done = verb === 'uninstall' ? 'uninstalled' : 'disabled'
  const lines = [`${result.dryRun ? yellow(`would ${verb}`) : green(done)} ${bold(result.plugin)} ${dim(`[${result.scope} scope]`)}`]
  for (const t of result.targets) {
    lines.push(`  ${t.target}: ${t.files} file(s), ${t.configEntries} config entr${t.configEntries === 1 ? 'y' : 'ies'}`)
    for (const k of t.kept) lines.push(yellow(`    kept ${k}: you changed it since it was installed (--force removes it)`))
    for (const d of t.drifted) lines.push(yellow(`    ${d} had been changed; loadout removed only its own part`))
  }
  return lines.join('\n')
}
