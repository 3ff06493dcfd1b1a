import {lstatSync, mkdirSync, rmdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join, sep} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, usageError, validationFailed} from '../../model/errors.js'
import {renderSubagent} from '../../kernel/writers/subagent.js'
import {assertNoLinksBelow} from '../../kernel/fs/contain.js'
import {ensureDirBelow, explainWriteError, stagingDirFor, swapDirectoryIn, writeFileAtomic} from '../../kernel/fs/write.js'
import type {SubagentComponent} from '../../model/plugin.js'
import {formatProblem, hasErrors} from '../../model/problems.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import {MAX_DESCRIPTION} from '../../kernel/skills/validate.js'
import type {Ownership} from '../../kernel/state/records.js'
import {splitList} from '../../kernel/targets/registry.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget, SubagentFormat} from '../../kernel/targets/types.js'
import {readTemplate, renderTemplate} from '../../kernel/env/templates.js'
import {entryPath, layoutOf} from '../../kernel/subagents/layout.js'
import {assertSubagentName} from '../../kernel/subagents/name.js'
import {parseSubagentText} from '../../kernel/subagents/read.js'

export const SUBAGENT_TEMPLATE = 'subagent'
const BODY_FILE = 'AGENT.md'

export interface CreateSubagentInput {
  name: string
  description?: string
  /** a comma list, as typed: `Read, Grep, Bash(git diff:*)` */
  tools?: string
  model?: string
  /** cst-agent's `readonly`; undefined lets the converter work it out from the tools */
  readonly?: boolean
  /** cst-agent's `max_steps` (Claude Code's `maxTurns`) */
  maxSteps?: number
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  ownership: Ownership
  force: boolean
  dryRun: boolean
}

export interface SubagentDestination {
  agents: string[]
  format: SubagentFormat
  /** the subagent's entry: its file, or its folder (deepagents) */
  path: string
  /** the file written */
  file: string
  replaced: boolean
  /** fields the format dropped, converted or filled in */
  notes: string[]
}

export interface CreatedSubagent {
  name: string
  scope: Scope
  dryRun: boolean
  destinations: SubagentDestination[]
  skipped: Array<{agent: string; reason: string}>
}

interface Planned extends SubagentDestination {
  root: string
  folder: string
  content: string
}

const title = (name: string) =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ')

const defaultDescription = (name: string) => `Describe what the ${name} subagent does and when an agent should hand it a task.`

/** The prompt of a new subagent, from templates/subagent/AGENT.md by plain `{{key}}` substitution. */
export const renderSubagentBody = (name: string, description: string): string => {
  const template = readTemplate(SUBAGENT_TEMPLATE).find((f) => f.path === BODY_FILE)
  if (!template) throw new Error(`internal error: templates/${SUBAGENT_TEMPLATE}/${BODY_FILE} is missing`)
  return renderTemplate(template.text, {name, title: title(name), description})
}

/** The Claude-style component the converter turns into each format, with the fields that format takes. */
const componentFor = (input: CreateSubagentInput, description: string, body: string, format: SubagentFormat): SubagentComponent => {
  const frontmatter: Record<string, unknown> = {name: input.name, description}
  if (input.tools !== undefined) frontmatter.tools = input.tools
  if (input.model !== undefined) frontmatter.model = input.model
  if (input.readonly !== undefined) frontmatter.readonly = input.readonly
  // Claude Code calls the step limit maxTurns; cst-agent calls it max_steps
  if (input.maxSteps !== undefined) frontmatter[format === 'claude-agent-md' ? 'maxTurns' : 'max_steps'] = input.maxSteps
  return {kind: 'subagent', name: input.name, file: '', frontmatter, body}
}

const checkInput = (input: CreateSubagentInput): string => {
  assertSubagentName(input.name)
  const description = input.description ?? defaultDescription(input.name)
  if (description.trim().length === 0) throw usageError('description-empty', 'the description is empty')
  const length = [...description].length
  if (length > MAX_DESCRIPTION) throw usageError('description-too-long', `the description is ${length} characters; the limit is ${MAX_DESCRIPTION}`)
  if (input.tools !== undefined && splitList(input.tools).length === 0) {
    throw usageError('tools-empty', '--tools names no tool', {
      suggestions: ["give a comma list such as --tools Read,Grep, or leave --tools out for the agent's defaults"],
    })
  }
  if (input.model !== undefined && input.model.trim() === '') throw usageError('model-empty', '--model is empty')
  return description
}

const lstatOrUndefined = (path: string) => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/**
 * Writes a new subagent into the first subagents folder of each chosen target for the scope, in
 * that target's format. Everything is checked before anything is written: the name, the flags, and
 * for every destination links on the way, an installed subagent of that name (never replaced) and an
 * existing one (replaced only with --force). A file is written beside its destination and renamed
 * over it; a deepagents folder is staged and swapped in.
 */
export const createSubagent = (input: CreateSubagentInput): CreatedSubagent => {
  const {name, env, context} = input
  const description = checkInput(input)
  const body = renderSubagentBody(name, description)

  const skipped: CreatedSubagent['skipped'] = []
  const byPath = new Map<string, Planned>()
  for (const target of input.targets) {
    const section = target.subagents
    const location = section ? sectionLocations(target, 'subagents', env, context)[0] : undefined
    if (!section || !location) {
      skipped.push({agent: target.id, reason: `${target.name} has no ${context.scope}-scope subagents folder`})
      continue
    }
    const rendered = renderSubagent(componentFor(input, description, body, section.format), section.format)
    const check = parseSubagentText(rendered.content, name, section.format, rendered.path)
    if (hasErrors(check.problems)) {
      throw validationFailed('template-invalid', `the rendered ${section.format} subagent is invalid: ${check.problems.map(formatProblem).join('; ')}`)
    }
    const path = entryPath(location.absolute, name, layoutOf(section.format))
    const known = byPath.get(path)
    if (known) {
      if (known.content !== rendered.content) {
        throw conflict('subagent-path-shared', `${known.agents.join(', ')} and ${target.id} read ${path} in different formats`, {
          suggestions: ['create it for one of them at a time with --agent'],
        })
      }
      known.agents.push(target.id)
      continue
    }
    byPath.set(path, {
      agents: [target.id],
      format: section.format,
      path,
      file: join(location.absolute, rendered.path),
      replaced: false,
      notes: rendered.notes,
      root: location.root,
      folder: location.absolute,
      content: rendered.content,
    })
  }
  if (byPath.size === 0) {
    throw usageError('no-subagent-target', `none of the chosen agents can hold a ${context.scope}-scope subagent`, {
      suggestions: skipped.map((s) => s.reason).concat('choose others with --agent, or another --scope'),
    })
  }

  for (const dest of byPath.values()) {
    assertNoLinksBelow(dest.root, dest.file)
    const stat = lstatOrUndefined(dest.path)
    if (!stat) continue
    const owner = input.ownership.ownerOf(dest.path)
    if (owner) {
      throw conflict('subagent-owned', `${dest.path} was installed by plugin ${owner}`, {suggestions: [`remove it with: loadout uninstall ${owner}`]})
    }
    if (!input.force) {
      throw conflict('subagent-exists', `a subagent named "${name}" already exists at ${dest.path}`, {
        suggestions: ['pass --force to replace it, or choose another name'],
      })
    }
    if (layoutOf(dest.format).kind === 'file' && stat.isDirectory()) {
      throw conflict('subagent-exists', `${dest.path} is a folder, not a subagent file; loadout will not replace it`, {
        suggestions: ['move it away yourself, or choose another name'],
      })
    }
    dest.replaced = true
  }

  const destinations = [...byPath.values()].map(({root: _root, folder: _folder, content: _content, ...d}) => d)
  const result: CreatedSubagent = {name, scope: context.scope, dryRun: input.dryRun, destinations, skipped}
  if (input.dryRun) return result

  // All or nothing: a write that fails takes back the new subagents (and the folders made for
  // them) this run already wrote. A replaced one is not brought back.
  const made: string[] = []
  const madeDirs = [...new Set([...byPath.values()].flatMap((dest) => missingDirs(dest.root, dest.folder)))]
  for (const dest of byPath.values()) {
    try {
      writeOne(dest)
      if (!dest.replaced) made.push(dest.path)
    } catch (error) {
      for (const path of made) rmSync(path, {recursive: true, force: true})
      for (const dir of madeDirs.sort((a, b) => b.length - a.length)) removeIfEmpty(dir)
      throw explainWriteError(error)
    }
  }
  return result
}

/** The folders from just below `root` down to `folder` that do not exist yet. */
const missingDirs = (root: string, folder: string): string[] => {
  const missing: string[] = []
  for (let dir = folder; dir !== root && dir.startsWith(root + sep) && !lstatOrUndefined(dir); dir = dirname(dir)) missing.push(dir)
  return missing
}

const removeIfEmpty = (dir: string): void => {
  try {
    rmdirSync(dir)
  } catch {
    // not empty (someone else wrote there) or already gone: left as it is
  }
}

const writeOne = (dest: Planned): void => {
  ensureDirBelow(dest.root, dest.folder)
  const layout = layoutOf(dest.format)
  if (layout.kind === 'file') {
    assertNoLinksBelow(dest.root, dest.file)
    writeFileAtomic(dest.file, dest.content)
    return
  }
  const staging = stagingDirFor(dest.path)
  try {
    const full = join(staging, layout.file)
    mkdirSync(dirname(full), {recursive: true})
    writeFileSync(full, dest.content, {flag: 'wx', mode: 0o644})
    assertNoLinksBelow(dest.root, dest.path)
    swapDirectoryIn(staging, dest.path, dest.replaced)
  } catch (error) {
    rmSync(staging, {recursive: true, force: true})
    throw error
  }
}
