/**
 * What an update changes, shown before anyone consents: what the model reads (skill, subagent and
 * command text, descriptions first), what runs (hooks, MCP servers, exec tools, permission fields)
 * and what is fetched (source, hosts). A description is how an agent decides to load a skill, so a
 * changed description is listed under `attention` beside a new hook.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {inspectPlugin} from '../../kernel/plugin/read.js'
import {hostOfUrl} from '../../kernel/policy/hosts.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {parseYamlMapping, splitFrontmatter} from '../../kernel/text/frontmatter.js'
import type {PluginModel} from '../../model/plugin.js'
import {consentSummary, describeConsentItem, type ConsentItem} from '../install/consent.js'
import type {Prepared} from '../install/install.js'
import {pluginFiles} from '../install/plugin-copy.js'

export type Change = 'added' | 'removed' | 'changed'

/** One skill, subagent or command whose text changed. */
export interface ReadChange {
  kind: 'skill' | 'subagent' | 'command'
  name: string
  change: Change
  /** present when the description changed (or the part came or went with one) */
  description?: {before?: string; after?: string}
  /** frontmatter fields that grant or shape what the part may do (tools, permissionMode, ...) */
  permissions?: FieldChange[]
  /** unified diff of the file, old to new */
  diff: string
}

export interface FieldChange {
  field: string
  before?: unknown
  after?: unknown
}

/** One hook, MCP server, exec tool or skill frontmatter hook set, as consent shows it. */
export interface RunChange {
  kind: ConsentItem['kind']
  component: string
  change: Change
  before?: string
  after?: string
}

/** What a reviewer must look at first: description, permission, run and host changes, one line each. */
export interface AttentionItem {
  kind: 'description' | 'permission' | 'runs' | 'source' | 'host'
  /** the part: `skill notes`, `hook Stop`, `source` */
  subject: string
  change: Change
  before?: string
  after?: string
}

export interface PluginDiff {
  plugin: string
  scope: string
  from: {version?: string; commit?: string; integrity: string; source: string}
  to: {version?: string; commit?: string; integrity: string; source: string}
  /** false when the candidate is byte for byte what is installed */
  changed: boolean
  /** the installed copy could not be read (a fresh clone has none): everything counts as added */
  installedUnreadable?: string
  attention: AttentionItem[]
  reads: ReadChange[]
  runs: RunChange[]
  fetches: {source?: {before: string; after: string}; hosts: {added: string[]; removed: string[]}}
}

/** Frontmatter keys that decide what a skill, subagent or command may do. */
const PERMISSION_FIELDS = [
  'allowed-tools',
  'allowedTools',
  'tools',
  'disallowedTools',
  'disallowed-tools',
  'permissionMode',
  'model',
  'mcpServers',
  'hooks',
  'readonly',
  'disable-model-invocation',
  'user-invocable',
]

interface PartText {
  kind: ReadChange['kind']
  name: string
  text: string
  fields: Record<string, unknown>
}

const readText = (file: string): string => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

const fieldsOf = (text: string): Record<string, unknown> => {
  const split = splitFrontmatter(text)
  if (split.kind !== 'ok') return {}
  const parsed = parseYamlMapping(split.yaml)
  return parsed.ok ? parsed.value : {}
}

const partsOf = (model: PluginModel | undefined): Map<string, PartText> => {
  const parts = new Map<string, PartText>()
  const add = (kind: PartText['kind'], name: string, file: string) => {
    const text = readText(file)
    parts.set(`${kind}\0${name}`, {kind, name, text, fields: fieldsOf(text)})
  }
  for (const s of model?.skills ?? []) add('skill', s.name, join(s.dir, 'SKILL.md'))
  for (const a of model?.subagents ?? []) add('subagent', a.name, a.file)
  for (const c of model?.commands ?? []) add('command', c.name, c.file)
  return parts
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
const changeOf = (before: unknown, after: unknown): Change => (before === undefined ? 'added' : after === undefined ? 'removed' : 'changed')
const asText = (value: unknown): string | undefined => (value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value))

const diffReads = async (before: Map<string, PartText>, after: Map<string, PartText>): Promise<ReadChange[]> => {
  const {createTwoFilesPatch} = await import('diff')
  const changes: ReadChange[] = []
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const [old, now] = [before.get(key), after.get(key)]
    if (old && now && old.text === now.text) continue
    const {kind, name} = (now ?? old)!
    const description = [old?.fields.description, now?.fields.description]
    const permissions = PERMISSION_FIELDS.filter((f) => !same(old?.fields[f], now?.fields[f])).map((field) => ({
      field,
      ...(old?.fields[field] === undefined ? {} : {before: old.fields[field]}),
      ...(now?.fields[field] === undefined ? {} : {after: now.fields[field]}),
    }))
    changes.push({
      kind,
      name,
      change: changeOf(old, now),
      ...(same(description[0], description[1])
        ? {}
        : {
            description: {
              ...(description[0] === undefined ? {} : {before: asText(description[0])}),
              ...(description[1] === undefined ? {} : {after: asText(description[1])}),
            },
          }),
      ...(permissions.length > 0 ? {permissions} : {}),
      // a plain unified diff: from the `---` line on (jsdiff starts with a line of `=`)
      diff: createTwoFilesPatch(`a/${kind}/${name}`, `b/${kind}/${name}`, old?.text ?? '', now?.text ?? '', undefined, undefined, {context: 3}).replace(
        /^=+\n/,
        '',
      ),
    })
  }
  return changes
}

/** What runs, keyed by component: a hook set compares its commands as a set, anything else whole. */
const runLines = (items: readonly ConsentItem[]): Map<string, {kind: ConsentItem['kind']; component: string; lines: string[]}> => {
  const map = new Map<string, {kind: ConsentItem['kind']; component: string; lines: string[]}>()
  for (const item of items) {
    // the plugin id differs after a rename: components are compared by what follows it
    const component = item.component.split('/').slice(1).join('/')
    const entry = map.get(component) ?? {kind: item.kind, component, lines: []}
    entry.lines.push(describeConsentItem(item))
    map.set(component, entry)
  }
  return map
}

const diffRuns = (before: readonly ConsentItem[], after: readonly ConsentItem[]): RunChange[] => {
  const [old, now] = [runLines(before), runLines(after)]
  const changes: RunChange[] = []
  for (const component of [...new Set([...old.keys(), ...now.keys()])].sort()) {
    const [a, b] = [old.get(component), now.get(component)]
    const kind = (b ?? a)!.kind
    if (kind === 'hook') {
      // each command of a hook set on its own: a new one is added, an old one removed
      const [was, is] = [new Set(a?.lines ?? []), new Set(b?.lines ?? [])]
      for (const line of is) if (!was.has(line)) changes.push({kind, component, change: 'added', after: line})
      for (const line of was) if (!is.has(line)) changes.push({kind, component, change: 'removed', before: line})
      continue
    }
    const [was, is] = [a?.lines.join('\n'), b?.lines.join('\n')]
    if (was === is) continue
    changes.push({kind, component, change: changeOf(was, is), ...(was === undefined ? {} : {before: was}), ...(is === undefined ? {} : {after: is})})
  }
  return changes
}

/** Hosts a plugin reaches: its source's, and each remote MCP server's. */
const hostsOf = (source: string, model: PluginModel | undefined): Set<string> => {
  const hosts = new Set<string>()
  const add = (url: string) => {
    if (!/^[a-z][a-z0-9+.-]*:\/\/|^[^/\s]+@[^/\s]+:/i.test(url)) return
    try {
      hosts.add(hostOfUrl(url).subject)
    } catch {
      // not a URL: a folder or a label
    }
  }
  add(source)
  for (const m of model?.mcpServers ?? []) if (m.config.url) add(m.config.url)
  return hosts
}

const attentionOf = (reads: readonly ReadChange[], runs: readonly RunChange[], fetches: PluginDiff['fetches']): AttentionItem[] => {
  const items: AttentionItem[] = []
  for (const r of reads) {
    if (r.description)
      items.push({
        kind: 'description',
        subject: `${r.kind} ${r.name}`,
        change: changeOf(r.description.before, r.description.after),
        ...(r.description.before === undefined ? {} : {before: r.description.before}),
        ...(r.description.after === undefined ? {} : {after: r.description.after}),
      })
    for (const p of r.permissions ?? [])
      items.push({
        kind: 'permission',
        subject: `${r.kind} ${r.name}: ${p.field}`,
        change: changeOf(p.before, p.after),
        ...(p.before === undefined ? {} : {before: asText(p.before)}),
        ...(p.after === undefined ? {} : {after: asText(p.after)}),
      })
  }
  for (const r of runs)
    items.push({
      kind: 'runs',
      subject: `${r.kind} ${r.component}`,
      change: r.change,
      ...(r.before === undefined ? {} : {before: r.before}),
      ...(r.after === undefined ? {} : {after: r.after}),
    })
  if (fetches.source) items.push({kind: 'source', subject: 'source', change: 'changed', before: fetches.source.before, after: fetches.source.after})
  for (const host of fetches.hosts.added) items.push({kind: 'host', subject: host, change: 'added', after: host})
  for (const host of fetches.hosts.removed) items.push({kind: 'host', subject: host, change: 'removed', before: host})
  return items
}

/** The installed copy of a plugin, read as install reads it; undefined with the reason when it cannot be. */
const readInstalled = (record: InstallRecord, prepared: Prepared, env: Environment): {model?: PluginModel; why?: string} => {
  if (!record.pluginRoot || !existsSync(record.pluginRoot)) return {why: 'the installed copy of the plugin is not on this machine'}
  try {
    const entry = prepared.resolved.entry
    return {model: inspectPlugin(record.pluginRoot, {...(entry ? {entry} : {}), home: env.home}).model}
  } catch (error) {
    return {why: (error as Error).message}
  }
}

/** The review of replacing what `record` installed with `prepared`. */
export const diffPlugin = async (record: InstallRecord, prepared: Prepared, env: Environment): Promise<PluginDiff> => {
  const installed = readInstalled(record, prepared, env)
  const reads = await diffReads(partsOf(installed.model), partsOf(prepared.model))
  const beforeItems = installed.model ? consentSummary(record.plugin, installed.model, await pluginFiles(installed.model.root)).items : []
  const runs = diffRuns(beforeItems, consentSummary(prepared.id, prepared.model, prepared.files).items)
  const source = {before: record.source, after: prepared.resolved.fetch.label}
  const [oldHosts, newHosts] = [hostsOf(record.source, installed.model), hostsOf(prepared.resolved.fetch.label, prepared.model)]
  const fetches: PluginDiff['fetches'] = {
    ...(source.before === source.after ? {} : {source}),
    hosts: {added: [...newHosts].filter((h) => !oldHosts.has(h)).sort(), removed: [...oldHosts].filter((h) => !newHosts.has(h)).sort()},
  }
  const version = prepared.resolved.version ?? prepared.fetched.artifact?.version ?? prepared.model.version
  return {
    plugin: record.plugin,
    scope: record.scope,
    from: {
      ...(record.version ? {version: record.version} : {}),
      ...(record.commit ? {commit: record.commit} : {}),
      integrity: record.integrity,
      source: record.source,
    },
    to: {
      ...(version ? {version} : {}),
      ...(prepared.fetched.commit ? {commit: prepared.fetched.commit} : {}),
      integrity: prepared.fetched.integrity,
      source: prepared.resolved.fetch.label,
    },
    changed: prepared.fetched.integrity !== record.integrity,
    ...(installed.why ? {installedUnreadable: installed.why} : {}),
    attention: attentionOf(reads, runs, fetches),
    reads,
    runs,
    fetches,
  }
}
