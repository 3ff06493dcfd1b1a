import type {PluginDiff} from '../../core/ops/update/review.js'
import type {PluginDiffs} from '../../core/ops/update/diff.js'
import {describeHeld} from '../../core/kernel/policy/release-age.js'
import {bold, dim, green, red, yellow} from '../style.js'
import {safeText} from '../safe-text.js'

const t = (text: string) => safeText(text, {max: Infinity})
const version = (v: {version?: string; commit?: string}) => [v.version, v.commit?.slice(0, 12)].filter(Boolean).join(' ') || '-'
const mark = (change: string) => (change === 'added' ? green('+') : change === 'removed' ? red('-') : yellow('~'))

const attentionLine = (item: PluginDiff['attention'][number]): string[] => {
  const head = `  ${mark(item.change)} ${item.kind} ${t(item.subject)} ${dim(`(${item.change})`)}`
  return [
    head,
    ...(item.before !== undefined && item.kind !== 'host' ? [`      ${red('was:')} ${t(item.before)}`] : []),
    ...(item.after !== undefined && item.kind !== 'host' ? [`      ${green('now:')} ${t(item.after)}`] : []),
  ]
}

const colourDiff = (diff: string): string =>
  diff
    .split('\n')
    .map((line) =>
      line.startsWith('+++') || line.startsWith('---')
        ? dim(t(line))
        : line.startsWith('+')
          ? green(t(line))
          : line.startsWith('-')
            ? red(t(line))
            : line.startsWith('@@')
              ? dim(t(line))
              : t(line),
    )
    .join('\n')

/** A review: what needs attention first (descriptions, permissions, what runs, sources), then the text diffs. */
export const renderReview = (diff: PluginDiff): string => {
  const lines = [bold(`review of ${t(diff.plugin)} (${diff.scope}): ${t(version(diff.from))} -> ${t(version(diff.to))}`)]
  if (diff.installedUnreadable) lines.push(yellow(`  the installed copy could not be read (${t(diff.installedUnreadable)}): everything shows as added`))
  if (!diff.changed) return [...lines, dim('  nothing changes')].join('\n')
  lines.push(diff.attention.length > 0 ? 'attention (what the model is told to trust, what runs, where bytes come from):' : dim('attention: nothing'))
  for (const item of diff.attention) lines.push(...attentionLine(item))
  if (diff.reads.length > 0) {
    lines.push('what the model reads:')
    for (const r of diff.reads) lines.push(`  ${mark(r.change)} ${r.kind} ${t(r.name)}`, colourDiff(r.diff))
  }
  return lines.join('\n')
}

export const renderDiffs = (result: PluginDiffs): string =>
  result.diffs.map((d) => ('held' in d ? `${yellow('held')} ${t(d.plugin)}: ${t(describeHeld(d.held))}` : renderReview(d))).join('\n\n')
