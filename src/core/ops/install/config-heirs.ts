import {existsSync, readFileSync} from 'node:fs'
import {getJsonMember, type JsonEditUndo} from '../../kernel/agent-config/json-edit.js'
import {jsonEqual} from '../../kernel/json/equal.js'
import {jsonText, mayHold} from '../../kernel/state/held-lines.js'
import type {InstallRecord, RecordedConfigEdit} from '../../kernel/state/records.js'

/**
 * When an install that created something in a config file (the file, the `mcpServers` object, the
 * `hooks` key, a hook event) goes while another install still has entries there, the one that stays
 * inherits what was created: it is now the last user, and its removal must take those away too.
 * Otherwise the last uninstall leaves `"hooks": {"SessionStart": []}` or `"mcpServers": {}` behind.
 * Called after the removed edits were reverted, so the files hold the survivors' entries alone.
 */
export const inheritCreated = (removed: readonly InstallRecord[], remaining: readonly InstallRecord[]): InstallRecord[] => {
  // the removed edits by file: most of 1,000 remaining records have no edit in those files, and are passed over
  const goneIn = new Map<string, RecordedConfigEdit[]>()
  for (const r of removed) for (const edit of r.config) goneIn.set(edit.file, [...(goneIn.get(edit.file) ?? []), edit])
  if (goneIn.size === 0) return [...remaining]
  const files = [...goneIn.keys()].map((file) => jsonText(file))
  return remaining.map((record) => {
    // a record held unparsed whose line names none of those files has no edit there (held-lines.ts)
    if (!files.some((text) => mayHold(record, text)) || !record.config.some((edit) => goneIn.has(edit.file))) return record
    let changed = false
    const config = record.config.map((edit) => {
      let next = edit
      for (const old of (goneIn.get(edit.file) ?? []).filter((g) => g.format === edit.format)) {
        const inherited = inheritOne(next, old)
        if (inherited !== next) {
          next = inherited
          changed = true
        }
      }
      return next
    })
    return changed ? {...record, config} : record
  })
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((p, i) => p === b[i])

const inheritOne = (heir: RecordedConfigEdit, old: RecordedConfigEdit): RecordedConfigEdit => {
  // the file's creator came first: whoever is last now removes the file when it is empty
  let next: RecordedConfigEdit = old.createdFile && !heir.createdFile ? {...heir, createdFile: true} : heir
  if (heir.format !== 'json') return next
  const oldUndo = old.undo as JsonEditUndo
  const undo = heir.undo as JsonEditUndo
  if (samePath(heir.path, old.path) && heir.key === old.key) {
    // The same key (hooks merged into one member). Only an older edit leaves something to inherit:
    // the heir found the key in place (its undo has a previous value) when the old edit created it.
    if (!olderThan(old, heir)) return next
    // the old edit came first: the heir takes over its undo (back to before either), the events it
    // created, and its value becomes what the file holds now
    const createdEvents = [...new Set([...(heir.createdEvents ?? []), ...(old.createdEvents ?? [])])]
    const value = currentValue(heir)
    return {...next, undo: {...oldUndo}, ...(heir.addedHooks ? {createdEvents} : {}), ...(value === undefined ? {} : {value})}
  }
  if (samePath(heir.path, old.path) && oldUndo.createdParents > undo.createdParents) {
    // a sibling member (another MCP server) in an object the old edit created
    next = {
      ...next,
      undo: {
        ...undo,
        createdParents: oldUndo.createdParents,
        ...(oldUndo.emptyInterior === undefined ? {} : {emptyInterior: oldUndo.emptyInterior}),
        ...(oldUndo.emptyDocument === undefined ? {} : {emptyDocument: oldUndo.emptyDocument}),
      },
    }
  }
  return next
}

/** Whether `old` was written before `heir`: the value `heir` replaced already held what `old` added. */
const olderThan = (old: RecordedConfigEdit, heir: RecordedConfigEdit): boolean => {
  const previous = (heir.undo as JsonEditUndo).previous
  if (previous === undefined) return false
  let before: unknown
  try {
    before = JSON.parse(previous)
  } catch {
    return false
  }
  if (!old.addedHooks) return jsonEqual(before, old.value)
  const events = (before ?? {}) as Record<string, unknown[]>
  return Object.entries(old.addedHooks).every(([event, groups]) =>
    groups.every((g) => Array.isArray(events[event]) && events[event]!.some((c) => jsonEqual(c, g))),
  )
}

const currentValue = (edit: RecordedConfigEdit): unknown => {
  if (!existsSync(edit.file)) return undefined
  try {
    return getJsonMember(readFileSync(edit.file, 'utf8'), edit.path, edit.key, edit.file)
  } catch {
    return undefined
  }
}
