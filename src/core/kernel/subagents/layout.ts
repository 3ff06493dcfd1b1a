import {join} from 'node:path'
import {renderSubagent} from '../writers/subagent.js'
import type {SubagentFormat} from '../targets/types.js'

/**
 * How one subagent sits in a target's subagents folder: a single file (`<n>.md`, `<n>.agent.md`,
 * `<n>.toml`) or a folder holding one file (`<n>/AGENTS.md`). Worked out from the converter that
 * writes the format, so that reading, listing and deleting can never disagree with writing.
 */
export type SubagentLayout = {kind: 'file'; suffix: string} | {kind: 'folder'; file: string}

const PROBE = 'probe'
const layouts = new Map<SubagentFormat, SubagentLayout>()

export const layoutOf = (format: SubagentFormat): SubagentLayout => {
  let layout = layouts.get(format)
  if (layout) return layout
  const path = renderSubagent({kind: 'subagent', name: PROBE, file: '', frontmatter: {description: PROBE}, body: ''}, format).path
  const slash = path.indexOf('/')
  if (slash >= 0) layout = {kind: 'folder', file: path.slice(slash + 1)}
  else if (path.startsWith(PROBE)) layout = {kind: 'file', suffix: path.slice(PROBE.length)}
  else throw new Error(`internal error: the ${format} converter writes "${path}", which is not named after the subagent`)
  layouts.set(format, layout)
  return layout
}

/** The subagent's own entry in the folder: the file, or the folder (deepagents). */
export const entryPath = (folder: string, name: string, layout: SubagentLayout): string =>
  join(folder, layout.kind === 'file' ? `${name}${layout.suffix}` : name)

/** The file that holds the subagent's text. */
export const textFile = (entry: string, layout: SubagentLayout): string => (layout.kind === 'file' ? entry : join(entry, layout.file))

/** The subagent name a folder entry stands for, or undefined when the entry is not one. */
export const nameOfEntry = (entry: string, layout: SubagentLayout): string | undefined => {
  if (entry.startsWith('.')) return undefined
  if (layout.kind === 'folder') return entry
  return entry.endsWith(layout.suffix) && entry.length > layout.suffix.length ? entry.slice(0, -layout.suffix.length) : undefined
}
