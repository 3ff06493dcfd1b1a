import type {PolicyShown} from '../../core/kernel/policy/show.js'
import {dim, yellow} from '../style.js'
import {safeText} from '../safe-text.js'
import {renderTable} from '../table.js'

// a project's policy file is committed by anyone: its patterns and paths may hold terminal escapes
const valueText = (value: PolicyShown['rules'][number]['value']): string =>
  typeof value === 'boolean'
    ? String(value)
    : typeof value === 'string'
      ? safeText(value)
      : value.map((v) => safeText(typeof v === 'string' ? v : `${v.plugin}${v.version ? ` ${v.version}` : ''}`)).join(', ')

export const renderPolicy = (shown: PolicyShown): string => {
  const files = shown.files.map((f) => `  ${f.level.padEnd(7)} ${safeText(f.path, {max: Infinity})}${f.present ? '' : dim(' (none)')}`)
  const rules =
    shown.rules.length > 0
      ? renderTable(
          ['RULE', 'VALUE', 'FROM'],
          shown.rules.map((r) => [r.rule, valueText(r.value), `${safeText(r.file, {max: Infinity})} (${r.level})`]),
        )
      : dim('no rules: everything is allowed')
  const warnings = shown.warnings.map((w) => yellow(safeText(`warning: ${w.file}: ${w.rule} ${w.message}`, {max: Infinity})))
  return ['policy files, in order:', ...files, '', rules, ...(warnings.length > 0 ? ['', ...warnings] : [])].join('\n')
}
