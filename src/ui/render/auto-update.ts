import type {AutoUpdateReport} from '../../core/ops/update/auto.js'
import {dim, green, red, yellow} from '../style.js'
import {safeText as t} from '../safe-text.js'

const version = (v: {version?: string; commit?: string} | undefined): string => (v ? (v.version ?? v.commit?.slice(0, 12) ?? '?') : '?')

export const renderAutoUpdate = (report: AutoUpdateReport): string => {
  if (report.due.length === 0) return 'update --auto: no marketplace is due'
  const lines = [`update --auto: ${report.due.map((d) => `${t(d.name)} (${d.autoUpdate})`).join(', ')} due`]
  for (const r of report.refreshed) lines.push(dim(`  refreshed ${t(r.name)}: ${r.status}${r.status === 'failed' && r.message ? ` (${t(r.message)})` : ''}`))
  for (const u of report.updates.filter((x) => x.status === 'updated')) lines.push(green(`  updated ${t(u.plugin)} ${version(u.from)} -> ${version(u.to)}`))
  for (const a of report.available)
    lines.push(yellow(`  available ${t(a.plugin)} ${version(a.from)} -> ${version(a.to)} (notify: run loadout update ${t(a.plugin)})`))
  for (const w of report.waiting) lines.push(yellow(`  waiting ${t(w.plugin)}: needs your consent; run loadout update ${t(w.plugin)} on a terminal`))
  for (const f of report.failed) lines.push(red(`  failed ${t(f.plugin)}: ${t(f.message)}`))
  return lines.join('\n')
}
