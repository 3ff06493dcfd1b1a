// oclif.manifest.json is what the shipped CLI reads for help and command lookup, so it must describe
// exactly the commands in src/commands. This test compares it with the source and the built classes
// without rebuilding anything: when it fails, run `node bin/build.mjs`.
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join, relative, sep} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const SRC = join(ROOT, 'src', 'commands')
const DIST = join(ROOT, 'dist', 'commands')

interface ManifestEntry {
  id: string
  relativePath: string[]
  flags: Record<string, Record<string, unknown>>
  args: Record<string, Record<string, unknown>>
  [key: string]: unknown
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {version: string; commands: Record<string, ManifestEntry>}

/** Files oclif takes for commands (its default glob), relative to `dir`. */
const commandFiles = (dir: string, ext: RegExp): string[] => {
  const out: string[] = []
  const walk = (current: string) => {
    for (const entry of readdirSync(current, {withFileTypes: true})) {
      const full = join(current, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (ext.test(entry.name) && !/\.(d|test|spec)\.[cm]?[jt]sx?$/.test(entry.name)) out.push(relative(dir, full))
    }
  }
  walk(dir)
  return out.sort()
}

/** oclif's id for a command file: folders are topics joined with ':', and index names its folder. */
export const commandId = (file: string): string => {
  const parts = file
    .split(sep)
    .join('/')
    .replace(/\.[cm]?[jt]sx?$/, '')
    .split('/')
  if (parts.at(-1) === 'index') parts.pop()
  return parts.join(':')
}

const sourceFiles = commandFiles(SRC, /\.[cm]?tsx?$/)
const sourceIds = sourceFiles.map(commandId)

/** The fields of a flag or arg that reach help and parsing, in a form comparable with the manifest. */
const FLAG_FIELDS = [
  'name',
  'char',
  'type',
  'required',
  'multiple',
  'options',
  'allowNo',
  'description',
  'summary',
  'helpValue',
  'hidden',
  'dependsOn',
  'exclusive',
  'env',
  'aliases',
  'default',
  'helpGroup',
]
const BOOLEAN_FIELDS = FLAG_FIELDS.filter((f) => !['default', 'options', 'multiple', 'helpValue'].includes(f))
const ARG_FIELDS = ['name', 'required', 'multiple', 'options', 'description', 'hidden', 'default']

const pick = (value: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const field of fields) {
    const v = value[field]
    // functions (dynamic defaults, parsers) are not in the manifest; undefined is dropped by JSON
    if (v !== undefined && typeof v !== 'function' && v !== false) out[field] = v
  }
  return JSON.parse(JSON.stringify(out))
}

type CommandClass = {
  flags?: Record<string, Record<string, unknown>>
  baseFlags?: Record<string, Record<string, unknown>>
  args?: Record<string, Record<string, unknown>>
  enableJsonFlag?: boolean
  summary?: string
  description?: string
  examples?: unknown
  aliases?: string[]
  strict?: boolean
  hidden?: boolean
}

/** What a command class declares, as the manifest would record it (json flag first, as oclif adds it). */
const declared = (cls: CommandClass) => {
  const flags: Record<string, Record<string, unknown>> = {}
  if (cls.enableJsonFlag) flags.json = {name: 'json', type: 'boolean', description: 'Format output as json.', helpGroup: 'GLOBAL'}
  for (const [name, flag] of Object.entries({...cls.baseFlags, ...cls.flags})) flags[name] = {...flag, name}
  const args = Object.fromEntries(Object.entries(cls.args ?? {}).map(([name, arg]) => [name, {...arg, name}]))
  // statics are read through the class, so inherited ones (enableJsonFlag, strict) count
  const {summary, description, examples, aliases, strict, hidden, enableJsonFlag} = cls
  return shape({id: '', relativePath: [], summary, description, examples, aliases, strict, hidden, enableJsonFlag, flags, args})
}

/** The comparable part of a manifest entry (or of a class, through `declared`). */
const shape = (entry: ManifestEntry) => ({
  summary: entry.summary,
  description: entry.description,
  examples: entry.examples,
  aliases: (entry.aliases as string[] | undefined) ?? [],
  strict: entry.strict ?? true,
  hidden: entry.hidden ?? false,
  enableJsonFlag: entry.enableJsonFlag ?? false,
  flagNames: Object.keys(entry.flags),
  // oclif records neither a default nor options for a boolean flag
  flags: Object.fromEntries(Object.entries(entry.flags).map(([n, f]) => [n, pick(f, f.type === 'boolean' ? BOOLEAN_FIELDS : FLAG_FIELDS)])),
  argNames: Object.keys(entry.args ?? {}),
  args: Object.fromEntries(Object.entries(entry.args ?? {}).map(([n, a]) => [n, pick(a, ARG_FIELDS)])),
})

const loadClass = async (file: string): Promise<CommandClass> => {
  const mod = (await import(pathToFileURL(file).href)) as {default?: CommandClass}
  if (!mod.default) throw new Error(`${file} has no default export`)
  return mod.default
}

describe('oclif.manifest.json', () => {
  it('has the version of package.json (oclif ignores a manifest of another version)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}
    expect(manifest.version).toBe(pkg.version)
  })

  it('lists exactly the commands in src/commands', () => {
    expect(sourceIds.length).toBeGreaterThan(0)
    expect(Object.keys(manifest.commands).sort()).toEqual([...sourceIds].sort())
  })

  it('uses ":" between topic and command in ids', () => {
    expect(commandId(join('skills', 'create.ts'))).toBe('skills:create')
    expect(commandId(join('plugin', 'marketplace', 'index.ts'))).toBe('plugin:marketplace')
    expect(sourceIds).toContain('skills:create')
    for (const [id, entry] of Object.entries(manifest.commands)) {
      expect(entry.id).toBe(id)
      expect(id).not.toMatch(/[ /]/)
    }
  })

  it('points every command at a built file that has a source file', () => {
    for (const [id, entry] of Object.entries(manifest.commands)) {
      const [dist, commands, ...rest] = entry.relativePath
      expect([dist, commands], id).toEqual(['dist', 'commands'])
      expect(existsSync(join(ROOT, ...entry.relativePath)), `${id}: ${entry.relativePath.join('/')} is missing`).toBe(true)
      const source = join(SRC, ...rest).replace(/\.js$/, '.ts')
      expect(existsSync(source), `${id}: no ${relative(ROOT, source)}`).toBe(true)
      expect(commandId(relative(SRC, source))).toBe(id)
    }
  })

  describe.each(sourceFiles.map((file) => [commandId(file), file]))('%s', (id, file) => {
    it('matches the flags, args and help text of its source class', async () => {
      const entry = manifest.commands[id]
      expect(entry, `${id} is missing from the manifest`).toBeDefined()
      const cls = await loadClass(join(SRC, file))
      expect(shape(entry!)).toEqual(declared(cls))
    })

    it('matches the built class in dist/commands', async () => {
      const entry = manifest.commands[id]
      expect(entry).toBeDefined()
      const built = join(ROOT, ...entry!.relativePath)
      expect(existsSync(built), `${relative(ROOT, built)} is missing: run node bin/build.mjs`).toBe(true)
      const cls = await loadClass(built)
      expect(shape(entry!)).toEqual(declared(cls))
    })
  })

  it('has no built command without a source file (a stale dist/)', () => {
    const builtIds = commandFiles(DIST, /\.[cm]?js$/).map(commandId)
    expect([...builtIds].sort()).toEqual([...sourceIds].sort())
  })
})
