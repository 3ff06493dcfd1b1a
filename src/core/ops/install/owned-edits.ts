import {existsSync, readFileSync} from 'node:fs'
import {getJsonMember, objectValue} from '../../kernel/agent-config/json-edit.js'
import {parseTomlText, tomlTableIn} from '../../kernel/agent-config/toml-read.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {jsonEqual} from '../../kernel/json/equal.js'
import type {HookEvents, HookMatcher} from '../../model/plugin.js'
import type {RecordedConfigEdit} from '../../kernel/state/records.js'

/**
 * Before loadout takes a config entry out, it must be able to show it wrote that entry: the entry's
 * current value equals the value recorded (a record read from a lock someone else committed may name
 * any entry of the user's). The one difference tolerated is the revision folder of the plugin's own
 * installed copy (`.../plugins/<plugin>/<revision>/...`): a teammate's lock records the revision they
 * installed, while this machine still holds the one it installed before pulling; both are this
 * plugin's, and an update must take out the old one.
 */

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The value with the plugin's revision folders blanked, so two revisions of its copy compare equal. */
const withoutRevision = (value: unknown, plugin: string): unknown => {
  const [name, market] = plugin.split('@') as [string, string]
  const project = new RegExp(`(\\.loadout/plugins/${escape(plugin)}/)[^/"'\\s]+`, 'g')
  const user = new RegExp(`(/plugins/${escape(market)}/${escape(name)}/)[^/"'\\s]+`, 'g')
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(project, '$1*').replace(user, '$1*')
    if (Array.isArray(v)) return v.map(walk)
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
    return v
  }
  return walk(value)
}

const sameEntry = (current: unknown, recorded: unknown, plugin: string): boolean =>
  jsonEqual(current, recorded) || jsonEqual(withoutRevision(current, plugin), withoutRevision(recorded, plugin))

export interface OwnedEditsOptions {
  /** whose records these are: the user's own state (this machine's loadout wrote them) or a project's loadout.lock */
  scope: 'user' | 'project'
  /**
   * `uninstall --force` in user scope: an entry the user edited since loadout wrote it goes, as a changed
   * file does. Never for a lock, which anyone may have committed: it cannot show loadout wrote the entry.
   */
  takeEdited?: boolean
}

const notOwned = (edit: RecordedConfigEdit, scope: OwnedEditsOptions['scope']): LoadoutError => {
  const entry = [...edit.path, edit.key].filter(Boolean).join('.')
  const plugin = pluginOf(edit)
  return new LoadoutError(
    'config-not-owned',
    EXIT.conflict,
    `${edit.file}: the entry ${entry} is not what loadout recorded writing for ${edit.component}; refusing to remove it (nothing was changed)`,
    {
      suggestions:
        scope === 'user'
          ? [
              `if you edited it and want it gone: loadout uninstall ${plugin} --scope user --force takes it out, your edits with it`,
              'to keep your edits, put the entry back as loadout wrote it (or remove it by hand), then run again',
            ]
          : [
              'if it is yours, keep it: remove the record of it from loadout.lock (or restore the lock from a commit you trust)',
              'if loadout wrote it and you edited it, put it back as it was or remove it by hand, then run again',
            ],
    },
  )
}

const pluginOf = (edit: RecordedConfigEdit) => edit.component.split('/')[0] ?? ''

/** Recorded hook groups replaced by the groups on disk that are the same but for the plugin's revision. */
const hooksOnDisk = (current: HookEvents, added: HookEvents, plugin: string): HookEvents =>
  Object.fromEntries(
    Object.entries(added).map(([event, groups]) => [
      event,
      groups.map(
        (g) =>
          (current[event] ?? []).find((c: HookMatcher) => jsonEqual(c, g)) ?? (current[event] ?? []).find((c: HookMatcher) => sameEntry(c, g, plugin)) ?? g,
      ),
    ]),
  )

/**
 * The edits as they can be taken back on this machine, each checked against the file: an entry that
 * is gone needs nothing; one that is as recorded (or differs only in the revision folder, then as it
 * is on disk) is taken back; any other value is refused, before anything is touched.
 */
export const ownedEdits = (edits: readonly RecordedConfigEdit[], options: OwnedEditsOptions): RecordedConfigEdit[] => {
  // each file read once, and each object (each TOML file) parsed once, for all the edits in it
  const texts = new Map<string, string | undefined>()
  const textOf = (file: string): string | undefined => {
    if (!texts.has(file)) texts.set(file, existsSync(file) ? readFileSync(file, 'utf8') : undefined)
    return texts.get(file)
  }
  const parsed = new Map<string, unknown>()
  const once = <T>(key: string, read: () => T): T => {
    if (!parsed.has(key)) parsed.set(key, read())
    return parsed.get(key) as T
  }
  return edits.map((edit) => {
    const edited = (current: unknown): RecordedConfigEdit => {
      if (options.takeEdited && options.scope === 'user') return {...edit, value: current}
      throw notOwned(edit, options.scope)
    }
    const text = textOf(edit.file)
    if (text === undefined || text.trim() === '') return edit
    const plugin = pluginOf(edit)
    if (edit.format === 'toml') {
      const table = tomlTableIn(
        once(edit.file, () => parseTomlText(text, edit.file)),
        edit.path,
        edit.file,
      )
      if (table === undefined || jsonEqual(table, edit.value)) return edit
      if (sameEntry(table, edit.value, plugin)) return {...edit, value: table}
      return edited(table)
    }
    if (edit.addedHooks) {
      const current = getJsonMember(text, edit.path, edit.key, edit.file)
      if (current === undefined) return edit
      // Hooks are taken out group by group: only groups equal to what loadout added ever go.
      if (jsonEqual(current, edit.value)) return edit
      return {...edit, value: undefined, addedHooks: hooksOnDisk(current as HookEvents, edit.addedHooks, plugin)}
    }
    const object = once(`${edit.file}\0${JSON.stringify(edit.path)}`, () => objectValue(text, edit.path, edit.file))
    const current = object && Object.hasOwn(object, edit.key) ? object[edit.key] : undefined
    if (current === undefined) return edit
    if (jsonEqual(current, edit.value)) return edit
    if (sameEntry(current, edit.value, plugin)) return {...edit, value: current}
    return edited(current)
  })
}
