import {randomBytes} from '../../kernel/crypto/node-crypto.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {nativeMarketplaceName} from '../../kernel/writers/claude-marketplace.js'

/**
 * The name a plugin's one-plugin marketplace is registered under (kernel/writers/claude-marketplace.ts).
 *
 * Claude Code keeps one list of known marketplaces per user (`~/.claude/plugins/known_marketplaces.json`),
 * keyed by name. The user scope's name is `loadout-<market>-<plugin>`. A project's gets a suffix of its
 * own, drawn when the plugin is first installed natively there and read back from loadout.lock ever
 * after (an update, a part turned off, a teammate's clone): with one name for the user scope and every
 * project, the list's entry followed whichever folder Claude Code last started in, and the first
 * session after a switch loaded the other folder's copy.
 */

const SUFFIX = /^[0-9a-f]{8}$/

/** The name the records hold, when it is one loadout would have drawn for this plugin in a project (the lock is input). */
const recordedName = (id: string, records: readonly InstallRecord[]): string | undefined => {
  const prefix = `${nativeMarketplaceName(id)}-`
  return records.map((r) => r.marketplace).find((name) => typeof name === 'string' && name.startsWith(prefix) && SUFFIX.test(name.slice(prefix.length)))
}

/** A record of the plugin's native form under the name every project once shared: installed again, it gets a name of its own. */
export const holdsSharedProjectName = (records: readonly InstallRecord[]): boolean =>
  records.some(
    (r) =>
      r.scope === 'project' &&
      r.config.some((edit) => edit.path.length === 1 && edit.path[0] === 'extraKnownMarketplaces' && edit.key === nativeMarketplaceName(r.plugin)),
  )

// one suffix per plugin and project per run: consent and the write under the lock plan the same name, and so do the agents of one install
const drawn = new Map<string, string>()

/**
 * The marketplace name for `id` in this scope. `records` are the plugin's records in the scope (the ones
 * replaced and the other agents'). `--frozen` keeps a name the lock holds from before project names had
 * a suffix: the lock must not change.
 */
export const marketplaceNameFor = (id: string, context: ScopeContext, records: readonly InstallRecord[], frozen: boolean): string => {
  const shared = nativeMarketplaceName(id)
  if (context.scope === 'user') return shared
  const recorded = recordedName(id, records)
  if (recorded) return recorded
  if (frozen && holdsSharedProjectName(records)) return shared
  const key = `${context.projectRoot}\0${id}`
  let name = drawn.get(key)
  if (!name) drawn.set(key, (name = `${shared}-${randomBytes(4).toString('hex')}`))
  return name
}

/** The name to keep in a record: a project's own, which the record must carry (through a `disable` too) for every later run to register the same. */
export const nameToRecord = (id: string, record: InstallRecord, name: string | undefined): string | undefined =>
  record.scope === 'project' && record.form === 'native' && name !== undefined && name !== nativeMarketplaceName(id) ? name : undefined
