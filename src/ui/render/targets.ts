import type {TargetsResult} from '../../core/kernel/targets/describe.js'
import {bold, dim, green, yellow} from '../style.js'
import {renderTable} from '../table.js'

export const renderTargets = (result: TargetsResult): string => {
  const summary = renderTable(
    ['AGENT', 'NAME', 'DETECTED', 'CONFIDENCE'],
    result.targets.map((t) => [
      t.id,
      t.name,
      t.detected ? green(`yes (${t.detectedAt})`) : dim('no'),
      t.confidence === 'confirmed' ? 'confirmed' : yellow('unconfirmed'),
    ]),
  )
  const details = result.targets.map((t) => {
    const head = bold(`${t.id}`) + dim(` (${result.scope} scope)`)
    const rows = t.paths.map((p) => [
      p.section,
      p.scope,
      p.format + (p.key ? ` [${p.key}]` : ''),
      p.path + (p.confidence === 'unconfirmed' ? yellow(' (unconfirmed)') : '') + (p.requiresTrust ? dim(' (trusted workspace only)') : ''),
    ])
    const notes = [...(t.installs ? [] : ['loadout validates and packs for this agent; it writes none of its folders']), ...t.notes].map((n) => `  note: ${n}`)
    return [
      head,
      ...(rows.length > 0 ? [renderTable(['PART', 'SCOPE', 'FORMAT', 'PATH'], rows).replace(/^/gm, '  ')] : ['  (no folders in this scope)']),
      ...notes,
    ].join('\n')
  })
  return [summary, '', ...details.join('\n\n').split('\n'), '', dim(`project root: ${result.projectRoot}`)].join('\n')
}
