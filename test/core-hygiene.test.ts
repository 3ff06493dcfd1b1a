// src/core is the library: it never imports oclif, ora or inquirer (directly, or through src/ui or
// src/commands), so it can be used and tested without a terminal. And every command prints its
// typed result with --json.
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const CORE = join(ROOT, 'src', 'core')
const DIST_COMMANDS = join(ROOT, 'dist', 'commands')

const files = (dir: string, ext: RegExp): string[] =>
  readdirSync(dir, {withFileTypes: true, recursive: true})
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort()

/** Every module specifier a TypeScript file names: static, type-only, re-exports, dynamic, require. */
export const specifiers = (source: string): string[] => {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  const found: string[] = []
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]/g,
    /\brequire(?:\.resolve)?\s*\(\s*['"`]([^'"`]+)['"`]/g,
  ]
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!)
  return found
}

const FORBIDDEN = [/^@oclif\//, /^oclif$/, /^ora$/, /^@inquirer\//, /^inquirer$/]
export const forbidden = (specifier: string): boolean => FORBIDDEN.some((re) => re.test(specifier))

describe('src/core', () => {
  const coreFiles = files(CORE, /\.[cm]?tsx?$/)

  it('has files to check', () => {
    expect(coreFiles.length).toBeGreaterThan(10)
    expect(specifiers(readFileSync(join(CORE, 'kernel', 'text', 'frontmatter.ts'), 'utf8'))).toContain('yaml')
  })

  it('finds every form of import (so the checks below can fail)', () => {
    const sample = [
      "import {Command} from '@oclif/core'",
      "import type {Interfaces} from '@oclif/core/interfaces'",
      "import ora from 'ora'",
      "export {select} from '@inquirer/prompts'",
      "import 'inquirer'",
      "const p = await import('@inquirer/confirm')",
      "const o = require('ora')",
      'import {\n  Flags,\n  Args,\n} from "@oclif/core"',
      "// import x from 'ora' (a comment)",
      "const s = 'https://example.com/ora'",
    ].join('\n')
    expect(specifiers(sample)).toEqual(
      expect.arrayContaining(['@oclif/core', '@oclif/core/interfaces', 'ora', '@inquirer/prompts', 'inquirer', '@inquirer/confirm']),
    )
    expect(specifiers(sample).filter(forbidden)).toHaveLength(8)
    expect(forbidden('oracle')).toBe(false)
    expect(forbidden('@oclif-like/x')).toBe(false)
  })

  it('never imports @oclif/*, ora or @inquirer/*', () => {
    const offenders = coreFiles.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter(forbidden)
        .map((s) => `${relative(ROOT, file)} imports ${s}`),
    )
    expect(offenders).toEqual([])
  })

  it('never imports from outside src/core by a relative path (src/ui and src/commands use oclif)', () => {
    const offenders = coreFiles.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((s) => s.startsWith('.'))
        .filter((s) => {
          const target = resolve(dirname(file), s)
          return target !== CORE && !target.startsWith(CORE + sep)
        })
        .map((s) => `${relative(ROOT, file)} imports ${s}`),
    )
    expect(offenders).toEqual([])
  })
})

describe('dist/commands', () => {
  const commandFiles = files(DIST_COMMANDS, /\.js$/)

  it('has built commands', () => {
    expect(commandFiles.length).toBeGreaterThan(0)
  })

  it.each(commandFiles.map((f) => [relative(DIST_COMMANDS, f)]))('%s enables --json', async (file) => {
    const mod = (await import(pathToFileURL(join(DIST_COMMANDS, file)).href)) as {default?: {enableJsonFlag?: boolean; run?: unknown}}
    expect(mod.default, `${file} has no default export`).toBeDefined()
    expect(typeof mod.default!.run).toBe('function')
    expect(mod.default!.enableJsonFlag).toBe(true)
  })
})

/** The first import circle in `graph` (file -> files it imports), as the files around it, or undefined. */
export const findCircle = (graph: Map<string, string[]>): string[] | undefined => {
  const state = new Map<string, 'open' | 'done'>()
  const trail: string[] = []
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined
    if (state.get(file) === 'open') return [...trail.slice(trail.indexOf(file)), file]
    state.set(file, 'open')
    trail.push(file)
    for (const next of graph.get(file) ?? []) {
      const circle = visit(next)
      if (circle) return circle
    }
    trail.pop()
    state.set(file, 'done')
    return undefined
  }
  for (const file of graph.keys()) {
    const circle = visit(file)
    if (circle) return circle
  }
  return undefined
}

describe('src', () => {
  const SRC = join(ROOT, 'src')

  it('finds a circle when there is one (so the check below can fail)', () => {
    expect(
      findCircle(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['b']],
        ]),
      ),
    ).toEqual(['b', 'c', 'b'])
    expect(
      findCircle(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toBeUndefined()
  })

  it('has no import circle among its files (type-only imports included)', () => {
    const graph = new Map<string, string[]>()
    for (const file of files(SRC, /\.ts$/)) {
      const imports = specifiers(readFileSync(file, 'utf8'))
        .filter((s) => s.startsWith('.'))
        .map((s) => relative(ROOT, resolve(dirname(file), s.replace(/\.js$/, '.ts'))))
      graph.set(relative(ROOT, file), imports)
    }
    expect(graph.size).toBeGreaterThan(100)
    expect(findCircle(graph)).toBeUndefined()
  })
})

/**
 * The tiers of src/core, bottom first, and the folders of each in the order they may lean on one
 * another: a module imports only its own folder or one listed before it. `model` holds the types
 * every tier shares; `kernel` the machinery (node:crypto loaded on first use, files, state with its lock and journal, agent config
 * editing, JSON, sources and fetchers, targets, reading plugins and catalogs, resolving, policy);
 * `ops` the workflows a command calls, each over the kernel and the workflows listed before it.
 */
export const LAYERS = [
  'model',
  'kernel/env',
  'kernel/crypto',
  'kernel/text',
  'kernel/fs',
  'kernel/json',
  'kernel/agent-config',
  'kernel/targets',
  'kernel/oci',
  'kernel/sources',
  'kernel/skills',
  'kernel/writers',
  'kernel/state',
  'kernel/subagents',
  'kernel/marketplace',
  'kernel/plugin',
  'kernel/resolve',
  'kernel/user-config',
  'kernel/mcp',
  'kernel/policy',
  'ops/marketplace',
  'ops/install',
  'ops/mcp',
  'ops/configure',
  'ops/project',
  'ops/update',
  'ops/audit',
  'ops/maintenance',
  'ops/sbom',
  'ops/authoring',
  'ops/skills',
  'ops/agents',
  'ops/budget',
]

/** The layer a file of src/core belongs to: `model`, or `<tier>/<folder>`. */
export const layerOf = (file: string): string => {
  const parts = relative(CORE, file).split(sep)
  return parts[0] === 'model' ? 'model' : parts.slice(0, 2).join('/')
}

/** Each import in `graph` (file -> files it imports) that reaches a layer above its own, or outside LAYERS. */
export const upwardImports = (graph: Map<string, string[]>, layers: readonly string[]): string[] => {
  const rank = new Map(layers.map((l, i) => [l, i]))
  return [...graph].flatMap(([file, imports]) =>
    imports
      .filter((target) => target.startsWith(CORE + sep))
      .filter((target) => {
        const [from, to] = [layerOf(file), layerOf(target)]
        return from !== to && !((rank.get(to) ?? Infinity) < (rank.get(from) ?? -1))
      })
      .map((target) => `${relative(CORE, file)} (${layerOf(file)}) imports ${relative(CORE, target)} (${layerOf(target)})`),
  )
}

describe('src/core layers', () => {
  const graph = new Map(
    files(CORE, /\.ts$/).map((file) => [
      file,
      specifiers(readFileSync(file, 'utf8'))
        .filter((s) => s.startsWith('.'))
        .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts'))),
    ]),
  )

  it('finds an upward import and a folder outside the list (so the check below can fail)', () => {
    const down = join(CORE, 'kernel', 'fs', 'x.ts')
    const up = join(CORE, 'ops', 'install', 'y.ts')
    const stray = join(CORE, 'misc', 'z.ts')
    expect(
      upwardImports(
        new Map([
          [down, [up]],
          [up, [down]],
        ]),
        LAYERS,
      ),
    ).toEqual(['kernel/fs/x.ts (kernel/fs) imports ops/install/y.ts (ops/install)'])
    expect(upwardImports(new Map([[up, [stray]]]), LAYERS)).toHaveLength(1)
  })

  it('every file lives in a listed layer, with nothing at the root of src/core or of a tier', () => {
    expect([...graph.keys()].map(layerOf).filter((l) => !LAYERS.includes(l))).toEqual([])
  })

  it('no module imports a layer above its own', () => {
    expect(upwardImports(graph, LAYERS)).toEqual([])
  })
})

const FORMATS_DIR = join(CORE, 'kernel', 'plugin', 'manifest-formats')

/** The modules of one format's own folder that `file` imports (the list, index.ts, and format.ts are not one). */
export const formatFolderImports = (file: string, source: string): string[] =>
  specifiers(source)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s))
    .filter((target) => target.startsWith(FORMATS_DIR + sep) && relative(FORMATS_DIR, target).includes(sep))

/** The quoted format ids in `source`, comments left out. */
export const namedFormats = (source: string, ids: readonly string[]): string[] => {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  return ids.filter((id) => new RegExp(`['"\`]${id.replace(/[-]/g, '\\-')}['"\`]`).test(text))
}

/** The modules that read, check, convert and create plugins in any format: they go through the list. */
const PIPELINE = [
  'kernel/plugin/manifests.ts',
  'kernel/plugin/read.ts',
  'kernel/plugin/manifest-fields.ts',
  'kernel/plugin/manifest-formats/convert-plan.ts',
  'kernel/plugin/manifest-formats/convert-parts.ts',
  'kernel/plugin/manifest-formats/scaffold-kit.ts',
  'kernel/plugin/scan.ts',
  'kernel/resolve/manifest.ts',
  'ops/authoring/plugin-validate.ts',
  'ops/authoring/plugin-validate-many.ts',
  'ops/authoring/plugin-fix.ts',
  'ops/authoring/plugin-pack.ts',
  'ops/authoring/convert.ts',
  'ops/authoring/convert-sources.ts',
  'ops/authoring/plugin-create.ts',
  'ops/authoring/plugin-scaffold.ts',
]

describe('src/core/kernel/plugin/manifest-formats', () => {
  it('finds an import of a format folder and a quoted format id (so the checks below can fail)', () => {
    const from = join(CORE, 'kernel', 'plugin', 'manifests.ts')
    const sample = [
      "import {readLexoraManifest} from './manifest-formats/lexora/read.js'",
      "import type {ManifestFormat} from './manifest-formats/format.js'",
      "import {MANIFEST_FILES} from './manifest-formats/index.js'",
      "const x = await import('./manifest-formats/codex/index.js')",
    ].join('\n')
    expect(formatFolderImports(from, sample).map((t) => relative(FORMATS_DIR, t))).toEqual([join('lexora', 'read.js'), join('codex', 'index.js')])
    expect(namedFormats("if (d.kind === 'cst-agent') x()\n// 'lexora' in a comment\n/** `codex` */", ['claude', 'codex', 'cst-agent', 'lexora'])).toEqual([
      'cst-agent',
    ])
  })

  it('no module outside it imports a format folder: only the list (index.ts) and the ManifestFormat type', () => {
    const offenders = files(join(ROOT, 'src'), /\.ts$/)
      .filter((file) => !file.startsWith(FORMATS_DIR + sep))
      .flatMap((file) => formatFolderImports(file, readFileSync(file, 'utf8')).map((t) => `${relative(ROOT, file)} imports ${relative(ROOT, t)}`))
    expect(offenders).toEqual([])
  })

  it('lists every format folder it holds, and the pipeline modules name none of them', async () => {
    const {MANIFEST_FORMATS} = (await import('../src/core/kernel/plugin/manifest-formats/index.js')) as {MANIFEST_FORMATS: ReadonlyArray<{id: string}>}
    const folders = readdirSync(FORMATS_DIR, {withFileTypes: true})
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()
    const list = readFileSync(join(FORMATS_DIR, 'index.ts'), 'utf8')
    expect(folders.filter((folder) => !list.includes(`'./${folder}/index.js'`))).toEqual([])
    const ids = MANIFEST_FORMATS.map((f) => f.id)
    expect(ids.length).toBeGreaterThanOrEqual(folders.length)
    const named = PIPELINE.flatMap((rel) => namedFormats(readFileSync(join(CORE, rel), 'utf8'), ids).map((id) => `${rel} names '${id}'`))
    expect(named).toEqual([])
  })
})

const SOURCES_DIR = join(CORE, 'kernel', 'sources')

/**
 * Where a source kind is decided outside its module: a `switch` on a source's, a spec's or a
 * fetch's `.kind`, or such a `.kind` compared with a kind's name. A source-like value is one whose
 * name says so (`source`, `market.source`, `spec`, `resolved.fetch`), which is how the code names them.
 */
export const sourceKindDecisions = (text: string, kinds: ReadonlySet<string>): string[] => {
  const sourceLike = String.raw`[\w.?]*(?:source|Source|spec|Spec|fetch)`
  const switches = [...text.matchAll(new RegExp(String.raw`switch\s*\(\s*(${sourceLike})\.kind\s*\)`, 'g'))].map((m) => `switch (${m[1]}.kind)`)
  const compared = [
    ...text.matchAll(new RegExp(String.raw`(${sourceLike})\.kind\s*[!=]==?\s*'([^']+)'`, 'g')),
    ...text.matchAll(new RegExp(String.raw`'([^']+)'\s*[!=]==?\s*(${sourceLike})\.kind\b`, 'g')),
  ]
    .map((m) => (m[0].startsWith("'") ? {on: m[2]!, kind: m[1]!} : {on: m[1]!, kind: m[2]!}))
    .filter(({kind}) => kinds.has(kind))
    .map(({on, kind}) => `${on}.kind vs '${kind}'`)
  return [...switches, ...compared, ...kindNameSwitches(text, kinds)]
}

/**
 * A `switch` on any value (say a catalog's JSON `type` string) whose cases name three or more source
 * kinds: the reading of each kind belongs in its module. One or two names may be another union's words
 * (the MCP Registry's package types npm, pypi, oci in kernel/mcp/server-json.ts).
 */
const kindNameSwitches = (text: string, kinds: ReadonlySet<string>): string[] =>
  text
    .split(/\bswitch\s*\(/)
    .slice(1)
    .map((body) => [...new Set([...body.matchAll(/\bcase\s+'([^']+)'\s*:/g)].map((m) => m[1]!).filter((name) => kinds.has(name)))])
    .filter((named) => named.length >= 3)
    .map((named) => `switch with cases ${named.map((name) => `'${name}'`).join(', ')}`)

describe('src/core/kernel/sources: one module per source kind', () => {
  const kindNames = async (): Promise<Set<string>> => {
    const {sourceKinds, fetchSpecKinds} = (await import('../src/core/kernel/sources/kinds/index.js')) as Record<string, object>
    const {entrySourceKinds} = (await import('../src/core/kernel/sources/kinds/entries.js')) as Record<string, object>
    return new Set([sourceKinds!, fetchSpecKinds!, entrySourceKinds!].flatMap((table) => Object.keys(table)))
  }

  it('finds a switch on a source kind and a comparison with a kind name, and passes the other unions', async () => {
    const kinds = await kindNames()
    const sample = [
      'switch (source.kind) {',
      "if (market.source.kind !== 'local') x()",
      "if (resolved.fetch.kind === 'git') x()",
      "const y = 'npm' === spec.kind",
      "if (layout.kind === 'folder') x()",
      'switch (op.kind) {',
      "if (source.kind === 'not-a-kind') x()",
      "switch (type) { case 'github': a(); break; case 'npm': b(); break; case 'url': c() }",
      "switch (registryType) { case 'npm': a(); break; case 'pypi': b(); break; case 'oci': c() }",
      "switch (scope) { case 'local': a(); break; case 'user': b() }",
    ].join('\n')
    expect(sourceKindDecisions(sample, kinds)).toEqual([
      'switch (source.kind)',
      "market.source.kind vs 'local'",
      "resolved.fetch.kind vs 'git'",
      "spec.kind vs 'npm'",
      "switch with cases 'github', 'npm', 'url'",
    ])
  })

  it('no file outside kernel/sources decides by a source kind: operations ask the kinds table', async () => {
    const kinds = await kindNames()
    const offenders = files(join(ROOT, 'src'), /\.ts$/)
      .filter((file) => !file.startsWith(SOURCES_DIR + sep))
      .flatMap((file) => sourceKindDecisions(readFileSync(file, 'utf8'), kinds).map((found) => `${relative(ROOT, file)}: ${found}`))
    expect(offenders).toEqual([])
  })

  it('every kind module under kinds/ is in a table', () => {
    const kindsDir = join(SOURCES_DIR, 'kinds')
    const table = readFileSync(join(kindsDir, 'index.ts'), 'utf8')
    const modules = readdirSync(kindsDir).filter((f) => f.endsWith('.ts') && !['index.ts', 'entries.ts', 'direct-name.ts'].includes(f))
    expect(modules.filter((f) => !table.includes(`'./${f.replace(/\.ts$/, '.js')}'`))).toEqual([])
  })
})
