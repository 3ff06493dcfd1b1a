/**
 * `loadout plugin convert <path> --to <format> [--out dir]`: writes the manifest another agent
 * needs from what the plugin has, and says what that format cannot carry. Each format's builder
 * and target file live in its folder under src/core/manifest-formats/.
 *
 * Nothing is written until the result is known to be good: the plugin is copied (into the staging
 * folder beside --out, or a temporary folder), the manifest written into the copy, and the copy
 * validated and read back. A conversion that would add an error the plugin did not have is refused.
 * Then either the copy is renamed into place as --out, or the manifest is written into the plugin
 * folder itself (staged and renamed).
 */
import {lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, dirname, join, resolve} from 'node:path'
import {expandHome, type Environment} from '../../kernel/env/environment.js'
import {conflict, usageError, validationFailed} from '../../model/errors.js'
import {assertNoLinksBelow, isInside, safeRealpath} from '../../kernel/fs/contain.js'
import {copyTree} from '../../kernel/fs/copy.js'
import {ensureDirBelow, explainWriteError, stagingDirFor, swapDirectoryIn, writeFileAtomic} from '../../kernel/fs/write.js'
import {isRecord, type Json} from '../../kernel/plugin/components.js'
import {MAX_MANIFEST_BYTES} from '../../kernel/plugin/manifest-fields.js'
import {entryKind, readContainedText} from '../../kernel/plugin/paths.js'
import {inspectPlugin, pluginRefused} from '../../kernel/plugin/read.js'
import type {ComponentKind, ManifestKind, PluginModel} from '../../model/plugin.js'
import type {Problem} from '../../model/problems.js'
import {MANIFEST_FORMATS, type ManifestFormat} from '../../kernel/plugin/manifest-formats/index.js'
import {
  mcpIdentity,
  relPath,
  type CarriedParts,
  type ConversionPlan,
  type ConvertFormat,
  type NotCarried,
  type TargetManifest,
} from '../../kernel/plugin/manifest-formats/convert-plan.js'
import {pluginSources} from './convert-sources.js'
import {validatePlugin} from './plugin-validate.js'

export {type ConvertFormat, type NotCarried, type CarriedParts} from '../../kernel/plugin/manifest-formats/convert-plan.js'

/** The formats `plugin convert` can write. */
export const CONVERT_FORMATS: readonly string[] = MANIFEST_FORMATS.filter((f) => f.convert).map((f) => f.id)

export interface ConvertPluginInput {
  /** the plugin folder */
  path: string
  /** the format to write: one of CONVERT_FORMATS */
  to?: string
  /** copy the plugin here and convert the copy; default: write into the plugin folder */
  out?: string
  force: boolean
  dryRun: boolean
  env: Environment
}

/** A part loadout reads differently once the new manifest is there. */
export interface ConversionEffect {
  kind: ComponentKind
  name: string
  change: 'lost' | 'changed'
  detail: string
}

export interface PluginConversion {
  name: string
  /** the formats the plugin had */
  from: ManifestKind[]
  to: ConvertFormat
  /** the plugin folder converted, absolute */
  source: string
  /** where the converted plugin is: the plugin folder, or --out */
  path: string
  out: boolean
  /** the manifest written, relative to `path` */
  manifest: string
  /** `new`; `replace` (an existing manifest of the format, --force); `merge` (Lexora fields added to an npm package.json) */
  manifestMode: TargetManifest['mode']
  /** the manifest as written */
  manifestJson: Json
  /** every file written (relative to `path`); with --out the copied files come on top */
  files: string[]
  /** files copied into --out */
  copied: number
  /** --out existed and was replaced (--force) */
  replacedOut: boolean
  dryRun: boolean
  carried: CarriedParts
  notCarried: NotCarried[]
  effects: ConversionEffect[]
  notes: string[]
  /** `plugin validate` of the converted plugin */
  validation: {valid: boolean; errors: number; warnings: number; problems: Problem[]}
  next: string[]
}

// ---------------------------------------------------------------------------------------------
// Checks made before anything is read into a copy

const parseFormat = (to: string | undefined): ManifestFormat => {
  if (to === undefined)
    throw usageError('to-missing', `missing --to: the format to write, one of ${CONVERT_FORMATS.join(', ')}`, {
      suggestions: ['e.g. loadout plugin convert ./my-plugin --to codex'],
    })
  const format = CONVERT_FORMATS.includes(to) ? MANIFEST_FORMATS.find((f) => f.id === to) : undefined
  if (format) return format
  throw usageError('bad-format', `unknown --to format "${to}"`, {suggestions: [`choose one of ${CONVERT_FORMATS.join(', ')}`]})
}

const readExisting = (root: string, rel: string): Json | undefined => {
  const file = join(root, rel)
  if (entryKind(file) === 'missing') return undefined
  let value: unknown
  try {
    value = JSON.parse(readContainedText(file, {root, file, maxBytes: MAX_MANIFEST_BYTES}).replace(/^\uFEFF/, ''))
  } catch (error) {
    throw conflict(
      'manifest-unreadable',
      `${file} cannot be read as JSON (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); loadout will not write over it`,
      {
        suggestions: ['fix or remove it, then convert again; `loadout plugin validate` shows what is wrong'],
      },
    )
  }
  if (!isRecord(value))
    throw conflict('manifest-unreadable', `${file} does not hold a JSON object; loadout will not write over it`, {
      suggestions: ['fix or remove it, then convert again'],
    })
  return value
}

const refuseReplace = (root: string, target: TargetManifest, format: ManifestFormat, force: boolean): void => {
  if (target.mode !== 'replace' || force) return
  throw conflict('manifest-exists', `the plugin already has a ${format.name} manifest: ${join(root, target.rel)}`, {
    suggestions: [
      'pass --force to replace it (its fields loadout does not manage are kept)',
      'or pass --out <dir> --force to write the converted plugin elsewhere',
    ],
  })
}

/** The real path `path` would have: its deepest existing ancestor resolved, the rest appended. */
const realish = (path: string): string => {
  const real = safeRealpath(path)
  if (real !== undefined) return real
  const parent = dirname(path)
  return parent === path ? path : join(realish(parent), basename(path))
}

interface OutTarget {
  path: string
  exists: boolean
}

const checkOut = (out: string, root: string, env: Environment, force: boolean): OutTarget => {
  const path = resolve(env.cwd, expandHome(out, env))
  const kind = entryKind(path)
  if (kind === 'link') {
    throw usageError(
      'out-is-link',
      `--out ${path} is a symbolic link (to ${safeRealpath(path) ?? 'a missing target'}); loadout does not write a plugin through a link`,
      {
        suggestions: ['give the real folder with --out, or another path'],
      },
    )
  }
  const realRoot = safeRealpath(root) ?? root
  const realOut = realish(path)
  if (isInside(realRoot, realOut))
    throw usageError('out-inside-plugin', `--out ${path} is inside the plugin folder ${root}`, {suggestions: ['choose a folder outside the plugin']})
  if (isInside(realOut, realRoot))
    throw usageError('out-holds-plugin', `--out ${path} holds the plugin folder ${root}; replacing it would remove the plugin`, {
      suggestions: ['choose another folder'],
    })
  if (isInside(env.cwd, path)) assertNoLinksBelow(env.cwd, path)
  if (kind === 'missing') return {path, exists: false}
  if (kind !== 'dir') throw conflict('out-not-folder', `--out ${path} exists and is not a folder`, {suggestions: ['choose another --out']})
  if (readdirSync(path).length === 0) return {path, exists: true}
  if (!force) throw conflict('out-not-empty', `--out ${path} is not empty`, {suggestions: ['pass --force to replace it, or choose another --out']})
  if (isInside(path, env.cwd) || resolve(path) === resolve(env.home)) {
    throw usageError('out-unsafe', `refusing to replace ${path}: it holds the current folder or is your home folder`, {suggestions: ['choose another --out']})
  }
  return {path, exists: true}
}

// ---------------------------------------------------------------------------------------------
// The plan, the check, the write

export const manifestText = (json: Json): string => `${JSON.stringify(json, null, 2)}\n`

/** What the plan writes, relative path -> text: the manifest and any files the format needs. */
const planFiles = (plan: ConversionPlan): Array<{path: string; text: string}> => [{path: plan.target.rel, text: manifestText(plan.json)}, ...plan.files]

const writeInto = (root: string, files: ReadonlyArray<{path: string; text: string}>): void => {
  for (const file of files) {
    const abs = join(root, ...file.path.split('/'))
    ensureDirBelow(root, dirname(abs))
    assertNoLinksBelow(root, abs)
    writeFileAtomic(abs, file.text)
  }
}

const NOUN: Record<ComponentKind, string> = {skill: 'skills', subagent: 'subagents', mcp: 'MCP servers', hooks: 'hooks', command: 'commands', tool: 'tools'}
const CONVENTION: Partial<Record<ComponentKind, string>> = {
  skill: 'skills/',
  subagent: 'agents/',
  mcp: '.mcp.json',
  hooks: 'hooks/hooks.json',
  command: 'commands/',
}

/** What loadout reads differently after the conversion: parts lost, and parts now defined elsewhere. */
const effectsOf = (before: PluginModel, after: PluginModel, manifest: string): ConversionEffect[] => {
  const effects: ConversionEffect[] = []
  const lost = (kind: ComponentKind, beforeNames: string[], afterNames: string[]) => {
    for (const name of beforeNames.filter((n) => !afterNames.includes(n))) {
      const where = CONVENTION[kind] ? `it was found in ${CONVENTION[kind]} by convention; ` : ''
      effects.push({
        kind,
        name,
        change: 'lost',
        detail: `${where}once ${manifest} declares ${NOUN[kind]} itself, loadout reads only the declared ones: declare it in another manifest to keep it for \`loadout install\``,
      })
    }
  }
  const names = (list: ReadonlyArray<{name: string}>) => list.map((c) => c.name)
  lost('skill', names(before.skills), names(after.skills))
  lost('subagent', names(before.subagents), names(after.subagents))
  lost('mcp', names(before.mcpServers), names(after.mcpServers))
  lost('hooks', names(before.hooks), names(after.hooks))
  lost('command', names(before.commands), names(after.commands))
  lost('tool', names(before.tools), names(after.tools))
  for (const server of before.mcpServers) {
    const now = after.mcpServers.find((s) => s.name === server.name)
    if (now && mcpIdentity(now.config) !== mcpIdentity(server.config)) {
      effects.push({
        kind: 'mcp',
        name: server.name,
        change: 'changed',
        detail: `loadout now reads it as ${manifest} defines it (without what that format cannot hold)`,
      })
    }
  }
  for (const agent of before.subagents) {
    const now = after.subagents.find((s) => s.name === agent.name)
    if (now && relPath(after.root, now.file) !== relPath(before.root, agent.file)) {
      effects.push({
        kind: 'subagent',
        name: agent.name,
        change: 'changed',
        detail: `loadout now reads it from ${relPath(after.root, now.file)} instead of ${relPath(before.root, agent.file)}`,
      })
    }
  }
  return effects
}

const errorKey = (p: Problem) => `${p.code}\u0000${p.file ?? ''}\u0000${p.path ?? ''}`

/** Converts the plugin at `input.path` (or, with `dryRun`, says what converting would do). */
export const convertPlugin = async (input: ConvertPluginInput): Promise<PluginConversion> => {
  const {env} = input
  const format = parseFormat(input.to)
  const {model, fatal} = inspectPlugin(resolve(env.cwd, expandHome(input.path, env)), {home: env.home})
  if (fatal.length > 0) throw pluginRefused(model, fatal)
  const root = model.root
  const convert = await format.convert!()
  const target = convert.target((rel) => readExisting(root, rel), root)
  refuseReplace(root, target, format, input.force)
  const out = input.out === undefined ? undefined : checkOut(input.out, root, env, input.force)
  if (!out) assertNoLinksBelow(root, join(root, target.rel))

  const plan: ConversionPlan = convert.build({model, sources: pluginSources(model), format: format.id, formatName: format.name, target})
  for (const file of plan.files) if (!out) assertNoLinksBelow(root, join(root, file.path))
  const files = planFiles(plan)

  const staged = out !== undefined && !input.dryRun
  let shell: string | undefined
  try {
    if (staged) mkdirSync(dirname(out.path), {recursive: true})
    shell = staged ? stagingDirFor(out.path) : mkdtempSync(join(tmpdir(), 'loadout-convert-'))
    const copy = join(shell, basename(out?.path ?? root))
    const copied = copyTree(root, copy, root)
    writeInto(copy, files)

    const [before, after] = await Promise.all([validatePlugin(root, {home: env.home}), validatePlugin(copy, {home: env.home})])
    const had = new Set(before.problems.filter((p) => p.severity === 'error').map(errorKey))
    const added = after.problems.filter((p) => p.severity === 'error' && !had.has(errorKey(p)))
    if (added.length > 0) {
      throw validationFailed(
        'convert-invalid',
        `the plugin converted to ${format.name} would not validate (nothing was written):\n  ${added.map((p) => `${p.file ?? ''}${p.path ? ` ${p.path}` : ''}: ${p.message}`).join('\n  ')}`,
        {
          suggestions: [`${format.name} reads the plugin by stricter rules than its format does now: fix what is listed, then convert again`],
          details: {problems: added},
        },
      )
    }
    const effects = effectsOf(model, inspectPlugin(copy, {home: env.home}).model, target.rel)
    const notes = [...plan.notes]
    if (before.errors > 0)
      notes.push(`the plugin had ${before.errors} error(s) before the conversion, and still has them: \`loadout plugin validate\` lists them`)

    if (!input.dryRun) {
      if (out) {
        // the destination may have changed while we worked: never rename onto a link
        if (lstatSync(out.path, {throwIfNoEntry: false})?.isSymbolicLink())
          throw usageError('out-is-link', `${out.path} became a symbolic link; nothing was written`)
        swapDirectoryIn(copy, out.path, out.exists)
      } else writeInto(root, [...files.slice(1), files[0]!]) // the manifest last: until it is there, nothing reads the new files
    }
    const shownPath = out?.path ?? root
    return {
      name: model.name,
      from: model.manifests,
      to: format.id,
      source: root,
      path: shownPath,
      out: out !== undefined,
      manifest: target.rel,
      manifestMode: target.mode,
      manifestJson: plan.json,
      files: files.map((f) => f.path),
      copied: out ? copied.length : 0,
      replacedOut: out?.exists === true,
      dryRun: input.dryRun,
      carried: plan.carried,
      notCarried: plan.notCarried,
      effects,
      notes,
      validation: {valid: after.valid, errors: after.errors, warnings: after.warnings, problems: after.problems},
      next: [`loadout plugin validate ${shownPath}`],
    }
  } catch (error) {
    throw explainWriteError(error)
  } finally {
    if (shell) rmSync(shell, {recursive: true, force: true})
  }
}
