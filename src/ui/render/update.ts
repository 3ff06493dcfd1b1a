import type {OutdatedResult} from '../../core/ops/update/outdated.js'
import type {PluginsUpdated} from '../../core/ops/update/update.js'
import {dim, green, red, yellow} from '../style.js'
import {safeMessage, safeText as t} from '../safe-text.js'
import {renderTable} from '../table.js'

const show = (v: {version?: string; commit?: string}) => t([v.version, v.commit?.slice(0, 12)].filter(Boolean).join(' ') || '-')

export const renderOutdated = (result: OutdatedResult): string => {
  if (result.rows.length === 0) return 'nothing installed'
  const table = renderTable(
    ['PLUGIN', 'SCOPE', 'CURRENT', 'WANTED', 'LATEST', 'STATUS'],
    result.rows.map((r) => [
      r.renamedTo ? `${r.plugin} -> ${r.renamedTo}` : r.plugin,
      r.scope,
      show(r.current),
      show(r.wanted),
      show(r.latest),
      r.error ? red(safeMessage(r.error)) : r.outdated ? yellow(r.reason ?? 'outdated') : green('current'),
    ]),
  )
  return `${table}\n${dim(`asked ${result.remotesAsked} remote(s)`)}`
}

export const renderUpdates = (result: PluginsUpdated): string =>
  result.updates.length === 0
    ? 'nothing installed to update'
    : result.updates
        .map((u) =>
          u.status === 'updated'
            ? `${green(u.result?.status === 'planned' ? 'would update' : 'updated')} ${u.plugin}${u.renamedTo ? ` (renamed to ${u.renamedTo})` : ''}: ${show(u.from)} -> ${show(u.to ?? {})}${u.consentChanged ? yellow(' (what it runs changed: approved again)') : ''}${u.held ? yellow(` (newest ${u.held.version ?? u.held.commit.slice(0, 12)} held back by minimumReleaseAge)`) : ''}`
            : u.status === 'current'
              ? `${dim('current')}  ${u.plugin} ${show(u.from)}`
              : u.status === 'held'
                ? `${yellow('held')}     ${u.plugin} ${show(u.from)}: ${safeMessage(u.message ?? '')}`
                : `${red('failed')}   ${u.plugin}: ${safeMessage(u.message ?? '')}`,
        )
        .join('\n')
