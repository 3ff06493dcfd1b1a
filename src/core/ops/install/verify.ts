import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {getJsonMember} from '../../kernel/agent-config/json-edit.js'
import {getTomlTable} from '../../kernel/agent-config/toml-read.js'
import type {Environment} from '../../kernel/env/environment.js'
import {jsonEqual} from '../../kernel/json/equal.js'
import type {HookEvents} from '../../model/plugin.js'
import type {Scope} from '../../kernel/env/scope.js'
import {readInstallRecords, type InstallRecord, type RecordedConfigEdit} from '../../kernel/state/records.js'
import {missingCommandFiles} from './command-files.js'
import {fileSha256Sync} from '../../kernel/fs/integrity.js'
import {fileSha256Remembered, openHashMemo, type StatMemo} from '../../kernel/fs/stat-memo.js'
import {checkCopy, type CopyCheck} from './plugin-copy.js'

export interface RecordCheck {
  plugin: string
  target: string
  scope: Scope
  enabled: boolean
  missing: string[]
  changed: string[]
  added: string[]
  ok: boolean
}

export interface VerifyResult {
  ok: boolean
  checked: number
  records: RecordCheck[]
}

const configIntact = (edit: RecordedConfigEdit): 'ok' | 'missing' | 'changed' => {
  if (!existsSync(edit.file)) return 'missing'
  let text: string
  try {
    text = readFileSync(edit.file, 'utf8')
    if (edit.format === 'toml') {
      const table = getTomlTable(text, edit.path, edit.file)
      if (table === undefined) return 'missing'
      return jsonEqual(table, edit.value) ? 'ok' : 'changed'
    }
    const value = getJsonMember(text, edit.path, edit.key, edit.file)
    if (value === undefined) return 'missing'
    if (edit.addedHooks) {
      const current = value as HookEvents
      const present = Object.entries(edit.addedHooks).every(([event, groups]) => groups.every((g) => (current[event] ?? []).some((c) => jsonEqual(c, g))))
      return present ? 'ok' : 'changed'
    }
    return jsonEqual(value, edit.value) ? 'ok' : 'changed'
  } catch {
    return 'changed'
  }
}

/** Files in a folder loadout wrote that it did not write (someone added them). */
const extraFiles = (record: InstallRecord): string[] => {
  const recorded = new Set(record.files.map((f) => f.path))
  const extra: string[] = []
  for (const dir of record.trees ?? []) {
    if (!existsSync(dir)) continue
    for (const entry of readdirSync(dir, {withFileTypes: true, recursive: true})) {
      const parent = (entry as unknown as {parentPath?: string; path?: string}).parentPath ?? (entry as unknown as {path: string}).path
      const full = join(parent, entry.name)
      if (!entry.isDirectory() && !recorded.has(full)) extra.push(full)
    }
  }
  return [...new Set(extra)].sort()
}

/** A file's sha256, or undefined when it is not there (as existsSync says); any other failure is thrown. */
const hashIfThere = (path: string): string | undefined => {
  try {
    return fileSha256Sync(path)
  } catch (error) {
    if (!existsSync(path)) return undefined
    throw error
  }
}

/**
 * What one record's files and config entries look like now. `hashes`: take a file's sha256 from this
 * memo when its metadata is as remembered (list); verify reads every file. `added: false` skips the
 * walk for files added to folders loadout wrote (list does not show them).
 */
export const checkRecord = (record: InstallRecord, options: {hashes?: StatMemo<string>; added?: boolean} = {}): RecordCheck => {
  const missing: string[] = []
  const changed: string[] = []
  const {hashes} = options
  for (const file of record.files) {
    if (file.sha256 === 'link') {
      if (!existsSync(file.path)) missing.push(file.path)
      continue
    }
    // hashed without asking first whether it is there: one system call fewer per file of 1,000 installs
    const sha256 = hashes ? fileSha256Remembered(file.path, hashes) : hashIfThere(file.path)
    if (sha256 === undefined) missing.push(file.path)
    else if (sha256 !== file.sha256) changed.push(file.path)
  }
  for (const edit of record.config) {
    const state = configIntact(edit)
    const label = `${edit.file} ${[...edit.path, edit.key].filter(Boolean).join('.')}`
    if (state === 'missing') missing.push(label)
    if (state === 'changed') changed.push(label)
  }
  missing.push(...missingCommandFiles(record))
  const added = options.added === false ? [] : extraFiles(record)
  return {
    plugin: record.plugin,
    target: record.target,
    scope: record.scope,
    enabled: record.enabled,
    missing,
    changed,
    added,
    ok: missing.length + changed.length + added.length === 0,
  }
}

/**
 * What `list` shows in its problems column: per enabled record, its files and config entries missing
 * or changed (a disabled record: 0). A file whose metadata is what it was when last hashed is taken to
 * hold what it held then (kernel/fs/stat-memo.ts); `verify` reads every file.
 */
export const countProblems = (records: readonly InstallRecord[], env: Environment): Map<InstallRecord, number> => {
  const files = records.reduce((n, r) => n + (r.enabled ? r.files.length : 0), 0)
  const hashes = files > 0 ? openHashMemo(env) : undefined
  const problems = new Map<InstallRecord, number>()
  for (const record of records) {
    const check = record.enabled ? checkRecord(record, {...(hashes ? {hashes} : {}), added: false}) : undefined
    problems.set(record, check ? check.missing.length + check.changed.length : 0)
  }
  hashes?.save()
  return problems
}

/**
 * Recomputes the hash of every recorded file and config entry, and of every file of the installed
 * plugin copy that hooks and MCP servers execute; reports missing, changed and added.
 */
export const verifyInstalled = async (
  env: Environment,
  projectRoot: string,
  filter: {plugins?: readonly string[]; scope?: Scope} = {},
): Promise<VerifyResult> => {
  const records = readInstallRecords(env, projectRoot).filter(
    (r) =>
      r.enabled &&
      (!filter.scope || r.scope === filter.scope) &&
      (!filter.plugins || filter.plugins.length === 0 || filter.plugins.includes(r.plugin) || filter.plugins.includes(r.plugin.split('@')[0]!)),
  )
  const copies = new Map<string, Promise<CopyCheck>>()
  const checks: RecordCheck[] = []
  for (const record of records) {
    const check = checkRecord(record)
    if (record.pluginRoot && record.pluginRootIntegrity) {
      const key = `${record.pluginRoot}\0${record.pluginRootIntegrity}`
      if (!copies.has(key)) copies.set(key, checkCopy(record.pluginRoot, record.pluginRootIntegrity))
      const copy = await copies.get(key)!
      check.missing.push(...copy.missing)
      check.changed.push(...copy.changed)
      check.added.push(...copy.added)
      check.ok = check.missing.length + check.changed.length + check.added.length === 0
    }
    checks.push(check)
  }
  return {ok: checks.every((c) => c.ok), checked: checks.length, records: checks}
}
