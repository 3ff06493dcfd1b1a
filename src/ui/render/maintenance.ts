import type {CacheCleaned, CacheListing} from '../../core/ops/maintenance/cache.js'
import type {DoctorReport} from '../../core/ops/maintenance/doctor.js'
import {dim, green, red, yellow} from '../style.js'
import {renderTable} from '../table.js'

export const showBytes = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1_048_576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`

export const renderDoctor = (report: DoctorReport): string =>
  report.checks
    .map((c) => {
      const mark = c.status === 'ok' ? green('ok   ') : c.status === 'warn' ? yellow('warn ') : red('error')
      const lines = [`${mark} ${c.id}: ${c.message}${c.fixed ? ' (fixed)' : ''}`]
      if (c.suggestion && !c.fixed && c.status !== 'ok') lines.push(`        ${dim(c.suggestion)}`)
      return lines.join('\n')
    })
    .join('\n')

export const renderCacheList = (listing: CacheListing): string => {
  if (listing.entries.length === 0) return `the cache is empty (${listing.cacheDir}, plugin copies in ${listing.dataDir})`
  const table = renderTable(
    ['KIND', 'SIZE', 'USED BY', 'PATH'],
    listing.entries.map((e) => [e.kind, showBytes(e.bytes), e.usedBy ?? yellow('nothing'), e.path]),
  )
  return `${table}\n${showBytes(listing.totalBytes)} in all, ${showBytes(listing.unusedBytes)} unused (loadout cache clean removes it)`
}

export const renderCacheClean = (cleaned: CacheCleaned): string => {
  if (cleaned.removed.length === 0) return 'nothing to remove: everything in the cache is in use'
  const verb = cleaned.dryRun ? 'would remove' : 'removed'
  return [
    ...cleaned.removed.map((e) => `${verb} ${e.kind} ${e.path} ${dim(showBytes(e.bytes))}`),
    `${verb} ${cleaned.removed.length} entries, ${showBytes(cleaned.freedBytes)}`,
  ].join('\n')
}
