/**
 * The descriptions an agent lists from the plugins it loads as its own (install form `native`): they
 * are not in its loose folders but in loadout's installed copy, which the agent reads through the
 * marketplace loadout registered. Named as the agent shows them, `<plugin>:<part>`.
 */
import {existsSync, readFileSync, statSync} from 'node:fs'
import type {Environment} from '../../kernel/env/environment.js'
import type {Scope} from '../../kernel/env/scope.js'
import {openStatMemo, type StatMemo} from '../../kernel/fs/stat-memo.js'
import {namingEntry} from '../../kernel/plugin/manifests.js'
import {inspectPlugin} from '../../kernel/plugin/read.js'
import {skillAsRead} from '../../kernel/plugin/collect.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import {recordedForm} from '../install/form.js'
import {partOff, readParts} from '../install/parts.js'
import {listFile} from '../install/plugin-copy.js'
import {madeCopyParts} from '../install/copies-made.js'
import type {PluginModel} from '../../model/plugin.js'
import {describeCommand} from './commands.js'

export interface NativePart {
  kind: 'skill' | 'subagent' | 'command'
  name: string
  scope: Scope
  path: string
  owner: string
  description?: string
}

const MAX_COMMAND_BYTES = 1024 * 1024

const commandDescription = (file: string): string | undefined => {
  try {
    return statSync(file).size > MAX_COMMAND_BYTES ? undefined : describeCommand(readFileSync(file, 'utf8'), 'markdown')
  } catch {
    return undefined
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** The parts of one installed copy, every one of them (the disabled ones are left out after). */
interface CopyParts {
  plugin: string
  parts: Array<{kind: NativePart['kind']; name: string; path: string; description?: string}>
}

const KINDS: ReadonlySet<unknown> = new Set(['skill', 'subagent', 'command'])
const isCopyParts = (value: unknown): value is CopyParts => {
  const v = value as Partial<CopyParts> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.plugin === 'string' &&
    Array.isArray(v.parts) &&
    v.parts.every(
      (p) =>
        typeof p === 'object' &&
        p !== null &&
        KINDS.has(p.kind) &&
        typeof p.name === 'string' &&
        typeof p.path === 'string' &&
        (p.description === undefined || typeof p.description === 'string'),
    )
  )
}

/** What an installed copy offers, as read (from it, or by the install that made it in this run): its skills', subagents' and commands' names and descriptions. */
const partsOfCopy = (model: Pick<PluginModel, 'name' | 'skills' | 'commands' | 'subagents'>): CopyParts => ({
  plugin: model.name,
  parts: [
    ...model.skills.map((s) => ({kind: 'skill' as const, name: s.name, path: s.dir, description: skillAsRead(s).description})),
    ...model.commands.map((c) => ({kind: 'command' as const, name: c.name, path: c.file, description: commandDescription(c.file)})),
    ...model.subagents.map((a) => ({kind: 'subagent' as const, name: a.name, path: a.file, description: text(a.frontmatter.description)})),
  ],
})

const PART_KIND_OF = {skill: 'skills', subagent: 'subagents', command: 'commands'} as const

/**
 * What an installed copy offers, remembered (kernel/fs/stat-memo.ts) under the copy and its
 * integrity while its file list (plugin-copy.ts), which loadout writes with every copy it makes, is
 * the same file: reading a copy again is a walk and checks of its whole tree, and the budget asks for
 * every plugin the agent loads as its own at each install. An edit made by hand inside a copy shows in
 * `verify`; the budget counts what loadout installed.
 */
const copyParts = (record: InstallRecord, env: Environment, memo: StatMemo<CopyParts>): CopyParts => {
  const root = record.pluginRoot!
  const madeNow = madeCopyParts(root, record.pluginRootIntegrity)
  if (madeNow) return partsOfCopy(madeNow)
  const key = `${root}\0${record.pluginRootIntegrity ?? ''}`
  let list
  try {
    list = statSync(listFile(root), {bigint: true, throwIfNoEntry: false})
  } catch {
    list = undefined
  }
  const known = list?.isFile() ? memo.recall(key, list) : undefined
  if (known) return known
  // read as the agent reads it, through loadout's catalog naming the plugin as the install did
  // (kernel/writers/claude-marketplace.ts): a plugin nothing else names is not named by its folder, the revision
  const read = partsOfCopy(inspectPlugin(root, {home: env.home, entry: namingEntry(record.plugin.split('@')[0]!)}).model)
  if (list?.isFile()) memo.remember(key, list, read)
  return read
}

/** Every skill, subagent and command of the plugins `target` loads as its own, as offered (disabled parts left out). */
export const nativeParts = (records: readonly InstallRecord[], target: AgentTarget, env: Environment): NativePart[] => {
  const native = records.filter((r) => r.target === target.id && r.enabled && recordedForm(r) === 'native' && r.pluginRoot && existsSync(r.pluginRoot))
  if (native.length === 0) return []
  const memo = openStatMemo(env, 'native-parts', isCopyParts)
  const parts = native.flatMap((r) => {
    let copy: CopyParts
    try {
      copy = copyParts(r, env, memo)
    } catch {
      return []
    }
    const off = readParts(r.disabledParts)
    return copy.parts
      .filter((p) => !partOff(off, PART_KIND_OF[p.kind], p.name))
      .map((p): NativePart => ({
        kind: p.kind,
        name: `${copy.plugin}:${p.name}`,
        scope: r.scope,
        path: p.path,
        owner: r.plugin,
        ...(p.description === undefined ? {} : {description: p.description}),
      }))
  })
  memo.save()
  return parts
}
