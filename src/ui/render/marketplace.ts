import type {MarketplaceAdded} from '../../core/ops/marketplace/add.js'
import type {MarketplaceInfo, MarketplaceRow} from '../../core/kernel/marketplace/browse.js'
import type {SearchResult} from '../../core/kernel/marketplace/search.js'
import type {MarketplaceRemoval} from '../../core/ops/marketplace/remove.js'
import type {MarketplacesUpdated} from '../../core/ops/marketplace/update.js'
import {bold, dim, green, red, yellow} from '../style.js'
import {renderTable} from '../table.js'
import {problemLine} from './common.js'
import {safeMessage, safeText as t} from '../safe-text.js'

const short = (sha?: string) => (sha ? sha.slice(0, 12) : '-')

export const renderAdded = (added: MarketplaceAdded): string => {
  if (added.status === 'already-added') return `marketplace "${added.name}" is already added from ${t(added.source)} (${added.scope} scope); nothing to do`
  const lines = [
    `${added.status === 'would-add' ? yellow('would add') : green('added')} marketplace "${added.name}" (${added.pluginCount} plugin${added.pluginCount === 1 ? '' : 's'}) from ${t(added.source)}${added.commit ? ` at ${short(added.commit)}` : ''} ${dim(`[${added.scope} scope]`)}`,
  ]
  if (added.signer) lines.push(`  signed by ${added.signer.fingerprint} (${added.signer.format === 'ssh' ? 'SSH' : 'OpenPGP'} key)`)
  if (added.warnings.length > 0) {
    lines.push(yellow(`${added.warnings.length} problem(s) in the catalog (entries with an error were skipped):`))
    for (const w of added.warnings) lines.push(problemLine(w))
  }
  return lines.join('\n')
}

export const renderMarketplaceList = (rows: readonly MarketplaceRow[]): string =>
  renderTable(
    ['NAME', 'SCOPE', 'KIND', 'PLUGINS', 'COMMIT', 'UPDATED', 'SOURCE'],
    rows.map((r) => [
      r.name,
      r.scope,
      r.kind,
      String(r.pluginCount),
      short(r.commit),
      r.updatedAt ? r.updatedAt.replace('T', ' ').slice(0, 16) : '-',
      r.source,
    ]),
  )

export const renderMarketplaceInfo = (info: MarketplaceInfo): string => {
  const lines = [bold(t(info.name)) + (info.description ? `  ${t(info.description)}` : '')]
  lines.push(
    dim(
      `source: ${t(info.source)} (${info.kind}, ${info.format} format)${info.commit ? ` at ${short(info.commit)}` : ''}${info.updatedAt ? `, updated ${t(info.updatedAt)}` : ''}`,
    ),
  )
  if (info.owner || info.version) lines.push(dim(`owner: ${t(info.owner ?? '-')}  version: ${t(info.version ?? '-')}`))
  lines.push('')
  lines.push(
    renderTable(
      ['PLUGIN', 'VERSION', 'CATEGORY', 'DESCRIPTION'],
      info.plugins.map((p) => [
        p.supported ? t(p.name) : yellow(t(p.name)),
        t(p.version ?? '-'),
        t(p.category ?? '-'),
        (p.supported ? '' : yellow(`[${t(p.source)}] `)) + t(p.description),
      ]),
    ),
  )
  if (info.problems.length > 0) {
    lines.push('', yellow(`${info.problems.length} problem(s):`))
    for (const p of info.problems) lines.push(problemLine(p))
  }
  return lines.join('\n')
}

/** Each catalog entry that was skipped, with why: a name the user knows never just disappears. */
const droppedLines = (dropped: MarketplacesUpdated['results'][number]['dropped']): string =>
  (dropped ?? []).map((d) => `\n${yellow(`  dropped ${t(d.name)}: ${safeMessage(d.message)}`)}`).join('')

export const renderUpdated = (updated: MarketplacesUpdated): string =>
  updated.results
    .map((r) => {
      switch (r.status) {
        case 'failed':
          return `${red('failed')}   ${r.name}: ${safeMessage(r.message ?? '')}`
        case 'skipped':
          return `${dim('skipped')}  ${r.name}: ${r.message}`
        case 'unchanged':
          return `${dim('current')}  ${r.name}${r.commit ? ` at ${short(r.commit)}` : ''}${droppedLines(r.dropped)}`
        case 'updated': {
          const c = r.changes!
          const parts = [
            ...(c.added.length > 0 ? [`added ${c.added.join(', ')}`] : []),
            ...(c.removed.length > 0 ? [`removed ${c.removed.join(', ')}`] : []),
            ...c.versions.map((v) => `${v.name} ${v.from ?? '?'} -> ${v.to ?? '?'}`),
          ]
          return `${green('updated')}  ${r.name}${r.previousCommit ? ` ${short(r.previousCommit)} -> ${short(r.commit)}` : ''}${parts.length > 0 ? `: ${t(parts.join('; '), {max: 2000})}` : ''}${droppedLines(r.dropped)}`
        }
        default:
          return ''
      }
    })
    .join('\n') +
  (updated.offline ? `\n${dim('offline: only cached copies were used')}` : '') +
  (updated.dryRun ? `\n${dim('dry run: nothing was registered')}` : '')

export const renderRemoved = (removed: MarketplaceRemoval): string => {
  const lines = [`${removed.dryRun ? yellow('would remove') : green('removed')} marketplace "${removed.name}" (${removed.source})`]
  if (removed.cacheRemoved) lines.push(dim(removed.dryRun ? 'its cache would be deleted' : 'its cache was deleted'))
  if (removed.leftBehind.length > 0) lines.push(yellow(`left installed: ${removed.leftBehind.join(', ')} (uninstall them with loadout uninstall <id>)`))
  return lines.join('\n')
}

export const renderSearch = (result: SearchResult): string => {
  const lines: string[] = []
  if (result.hits.length === 0) lines.push(`no plugins match "${t(result.query)}" in ${result.searched.join(', ')}`)
  else {
    lines.push(
      renderTable(
        ['PLUGIN', 'VERSION', 'CATEGORY', 'DESCRIPTION'],
        result.hits.map((h) => [t(h.id), t(h.version ?? '-'), t(h.category ?? '-'), t(h.description)]),
      ),
    )
  }
  for (const u of result.unreadable) lines.push(yellow(`skipped ${u.marketplace}: ${safeMessage(u.message)}`))
  return lines.join('\n')
}
