import {readFileSync} from 'node:fs'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {stableStringify} from '../../kernel/fs/json.js'
import {lockContent, projectLockFile, type InstallRecord} from '../../kernel/state/records.js'

/**
 * `install --frozen` never writes loadout.lock: the records a run arrives at must be the ones the lock
 * already holds. Otherwise the run fails (and rolls back), naming what differs.
 */

/**
 * What a lock says about a record that must be the same on every machine. Which folders a run had to
 * create, and the undo data of a config file that already existed, depend on the machine: they are
 * not compared (and, under --frozen, not written either).
 */
const portableView = (r: InstallRecord): Record<string, unknown> => ({
  version: r.version,
  source: r.source,
  commit: r.commit,
  signer: r.signer,
  archiveSha256: r.archiveSha256,
  integrity: r.integrity,
  enabled: r.enabled,
  marketplace: r.marketplace,
  components: r.components,
  files: r.files.map((f) => [f.path, f.sha256]),
  config: r.config.map((c) => [c.file, c.path, c.key, c.addedHooks ?? c.value]),
})

/** True when two records say the same in every field that must be the same on every machine. */
export const portablyEqual = (a: InstallRecord, b: InstallRecord): boolean =>
  a.plugin === b.plugin && a.target === b.target && stableStringify(portableView(a)) === stableStringify(portableView(b))

/**
 * The records to write for an install that replaced `locked`: where a new record says what the lock
 * already says, the lock's own record stays, byte for byte. Which folders a run created and the undo
 * data of a config file depend on what was there before (another plugin's hooks, installed in another
 * order on the author's machine); rewriting them would change a committed lock for no reason.
 */
export const unchangedFromLockfile = (locked: readonly InstallRecord[], records: readonly InstallRecord[]): InstallRecord[] =>
  records.map((r) => locked.find((old) => old.scope === 'project' && portablyEqual(old, r)) ?? r)

const describe = (before: readonly InstallRecord[], after: readonly InstallRecord[]): string[] => {
  const key = (r: InstallRecord) => `${r.plugin} for ${r.target}`
  const old = new Map(before.map((r) => [key(r), portableView(r)]))
  const now = new Map(after.map((r) => [key(r), portableView(r)]))
  const out: string[] = []
  for (const [k, r] of now) {
    const was = old.get(k)
    if (!was) {
      out.push(`${k} is not in loadout.lock`)
      continue
    }
    const fields = Object.keys(r).filter((f) => stableStringify(was[f] ?? null) !== stableStringify(r[f] ?? null))
    if (fields.length > 0) out.push(`${k} differs in ${fields.join(', ')}`)
  }
  for (const k of old.keys()) if (!now.has(k)) out.push(`${k} would leave loadout.lock`)
  return out
}

export const lockDiffers = (message: string, differences: readonly string[]): LoadoutError =>
  new LoadoutError('lock-outdated', EXIT.integrity, `${message}: ${differences.join('; ')}`, {
    suggestions: ['run loadout install without --frozen (or loadout update) and commit loadout.lock'],
    details: {differences},
  })

/** Throws unless loadout.lock already records what this run arrived at (in every portable field). */
export const assertLockUnchanged = (projectRoot: string, records: readonly InstallRecord[]): void => {
  const next = lockContent(projectRoot, records).installs
  let current: InstallRecord[] = []
  try {
    current = (JSON.parse(readFileSync(projectLockFile(projectRoot), 'utf8')) as {installs?: InstallRecord[]}).installs ?? []
  } catch {
    // no lock, or an unreadable one: every record differs
  }
  const differences = describe(current, next)
  if (differences.length > 0) throw lockDiffers('--frozen: loadout.lock would change', differences)
}
