import type {VerifyResult} from '../../core/ops/install/verify.js'
import type {InstallRecord} from '../../core/kernel/state/records.js'
import {describeParts, readParts} from '../../core/ops/install/parts.js'
import {dim, green, red, yellow} from '../style.js'
import {safeText as t} from '../safe-text.js'
import {renderTable} from '../table.js'

// `list` and `verify` output, apart from the install renderers so these read-only commands load no install code.

/** The parts turned off, `skills a, b; hooks Stop` (read from a record: only strings). */
const offParts = (r: InstallRecord): string => describeParts(readParts(r.disabledParts))

export const renderInstalledList = (records: readonly InstallRecord[], problems: ReadonlyMap<InstallRecord, number>): string => {
  if (records.length === 0) return 'nothing installed'
  return renderTable(
    ['PLUGIN', 'SCOPE', 'AGENT', 'VERSION', 'COMMIT', 'STATE', 'PROBLEMS'],
    records.map((r) => [
      t(r.plugin),
      r.scope,
      r.target,
      t(r.version ?? '-'),
      r.commit ? r.commit.slice(0, 12) : '-',
      r.enabled ? (offParts(r) ? yellow(`enabled, off: ${t(offParts(r))}`) : green('enabled')) : dim('disabled'),
      problems.get(r) ? red(String(problems.get(r))) : '0',
    ]),
  )
}

export const renderVerify = (result: VerifyResult): string => {
  const lines: string[] = []
  for (const r of result.records) {
    lines.push(`${r.ok ? green('ok  ') : red('FAIL')} ${r.plugin} ${dim(`${r.scope}/${r.target}`)}`)
    for (const m of r.missing) lines.push(red(`  missing ${t(m, {max: 1000})}`))
    for (const c of r.changed) lines.push(red(`  changed ${t(c, {max: 1000})}`))
    for (const a of r.added) lines.push(yellow(`  added   ${t(a, {max: 1000})}`))
  }
  lines.push(
    result.checked === 0
      ? 'nothing installed to verify'
      : result.ok
        ? green(`all ${result.checked} install(s) intact`)
        : red('some installed files are missing or changed'),
  )
  return lines.join('\n')
}
