import type {PolicyShown} from '../../core/kernel/policy/show.js'
import {dim, yellow} from '../style.js'
import {renderTable} from '../table.js'

const valueText = (value: string[] | boolean): string => (typeof value === 'boolean' ? String(value) : value.join(', '))

export const renderPolicy = (shown: PolicyShown): string => {
  const files = shown.files.map((f) => `  ${f.level.padEnd(7)} ${f.path}${f.present ? '' : dim(' (none)')}`)
  const rules =
    shown.rules.length > 0
      ? renderTable(
          ['RULE', 'VALUE', 'FROM'],
          shown.rules.map((r) => [r.rule, valueText(r.value), `${r.file} (${r.level})`]),
        )
      : dim('no rules: everything is allowed')
  const warnings = shown.warnings.map((w) => yellow(`warning: ${w.file}: ${w.rule} ${w.message}`))
  return ['policy files, in order:', ...files, '', rules, ...(warnings.length > 0 ? ['', ...warnings] : [])].join('\n')
}
