import {existsSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, usageError, validationFailed} from '../../model/errors.js'
import {assertNoLinksBelow} from '../../kernel/fs/contain.js'
import {ensureDirBelow, explainWriteError, stagingDirFor, swapDirectoryIn, writeFileAtomic} from '../../kernel/fs/write.js'
import {renderCharacteroidSkill} from '../../kernel/writers/characteroid-skill.js'
import {formatProblem, hasErrors} from '../../model/problems.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import type {Ownership} from '../../kernel/state/records.js'
import {readTemplate, renderTemplate, yamlString} from '../../kernel/env/templates.js'
import {resolveLocation, writeLocation} from '../../kernel/targets/resolve.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import {checkSkillName} from '../../kernel/skills/name.js'
import {SKILL_FILE} from '../../kernel/skills/read.js'
import {MAX_DESCRIPTION, parseSkillText} from '../../kernel/skills/validate.js'

export const SKILL_EXTRAS = ['scripts', 'references', 'assets'] as const
export type SkillExtra = (typeof SKILL_EXTRAS)[number]

export interface CreateSkillInput {
  name: string
  description?: string
  extras: readonly string[]
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  ownership: Ownership
  force: boolean
  dryRun: boolean
}

export interface SkillDestination {
  agents: string[]
  path: string
  replaced: boolean
}

export interface CreatedSkill {
  name: string
  scope: Scope
  dryRun: boolean
  files: string[]
  destinations: SkillDestination[]
  skipped: Array<{agent: string; reason: string}>
}

const title = (name: string) =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ')

const defaultDescription = (name: string) => `Describe what the ${name} skill does and when an agent should use it.`

/** The files of a new skill, rendered from templates/skill. */
export const renderSkill = (name: string, description: string, extras: readonly SkillExtra[]): Map<string, string> => {
  const files = new Map<string, string>()
  const extrasText = extras.length === 0 ? '' : `\n## Files\n\n${extras.map((e) => `- \`${e}/\`: see ${e}/ for what belongs here.`).join('\n')}\n`
  const values = {name, description: yamlString(description), title: title(name), extras: extrasText}
  for (const file of readTemplate('skill')) {
    if (file.path.startsWith('extras/')) {
      const [, extra, ...rest] = file.path.split('/')
      if (extras.includes(extra as SkillExtra)) files.set([extra, ...rest].join('/'), renderTemplate(file.text, values))
    } else {
      files.set(file.path, renderTemplate(file.text, values))
    }
  }
  return files
}

const checkExtras = (extras: readonly string[]): SkillExtra[] => {
  for (const extra of extras) {
    if (!(SKILL_EXTRAS as readonly string[]).includes(extra)) {
      throw usageError('bad-with', `unknown --with value "${extra}"`, {suggestions: [`choose from ${SKILL_EXTRAS.join(', ')}`]})
    }
  }
  return [...new Set(extras)] as SkillExtra[]
}

/**
 * Scaffolds a skill into the first skills folder of each chosen target for the scope. Everything is
 * checked before anything is written; each copy is staged beside its destination and renamed in.
 */
export const createSkill = (input: CreateSkillInput): CreatedSkill => {
  const {name, env, context} = input
  const broken =
    checkSkillName(name) ??
    (name === name.normalize('NFKC') ? undefined : {code: 'name-not-normalized', message: `name "${name}" is not in Unicode normal form NFKC`})
  if (broken)
    throw usageError(broken.code, `invalid skill name: ${broken.message}`, {
      suggestions: ['use 1-64 lowercase letters, digits and single hyphens, e.g. pdf-tools'],
    })
  const description = input.description ?? defaultDescription(name)
  if (description.trim().length === 0) throw usageError('description-empty', 'the description is empty')
  const length = [...description].length
  if (length > MAX_DESCRIPTION) {
    throw usageError('description-too-long', `the description is ${length} characters; the limit is ${MAX_DESCRIPTION}`)
  }
  const extras = checkExtras(input.extras)

  const skipped: CreatedSkill['skipped'] = []
  const byPath = new Map<string, SkillDestination & {root: string; yaml: boolean}>()
  for (const target of input.targets) {
    const section = target.skills
    const location = section ? writeLocation(section.locations, context.scope) : undefined
    if (!section || !location) {
      skipped.push({agent: target.id, reason: `${target.name} has no ${context.scope}-scope skills folder`})
      continue
    }
    const yaml = section.format === 'characteroid-yaml'
    if (section.format !== 'agent-skills' && !yaml) {
      skipped.push({agent: target.id, reason: `${target.name} keeps skills as ${section.format}, which loadout does not write yet`})
      continue
    }
    const resolved = resolveLocation(target, location, env, context.projectRoot)
    const path = join(resolved.absolute, yaml ? `${name}.yaml` : name)
    const existing = byPath.get(path)
    if (existing) existing.agents.push(target.id)
    else byPath.set(path, {agents: [target.id], path, replaced: false, root: resolved.root, yaml})
  }
  if (byPath.size === 0) {
    throw usageError('no-skill-target', `none of the chosen agents can hold a ${context.scope}-scope skill`, {
      suggestions: skipped.map((s) => s.reason).concat('choose others with --agent, or another --scope'),
    })
  }

  for (const dest of byPath.values()) {
    assertNoLinksBelow(dest.root, dest.path)
    if (!existsSync(dest.path)) continue
    const owner = input.ownership.ownerOf(dest.path)
    if (owner) {
      throw conflict('skill-owned', `${dest.path} was installed by plugin ${owner}`, {suggestions: [`remove it with: loadout uninstall ${owner}`]})
    }
    if (!input.force) {
      throw conflict('skill-exists', `a skill named "${name}" already exists at ${dest.path}`, {
        suggestions: ['pass --force to replace it, or choose another name'],
      })
    }
    dest.replaced = true
  }

  const files = renderSkill(name, description, extras)
  const check = parseSkillText(files.get(SKILL_FILE)!, name, SKILL_FILE)
  if (hasErrors(check.problems)) {
    throw validationFailed('template-invalid', `the rendered skill is invalid: ${check.problems.map(formatProblem).join('; ')}`)
  }

  const destinations = [...byPath.values()].map(({root: _root, yaml: _yaml, ...d}) => d)
  const result: CreatedSkill = {name, scope: context.scope, dryRun: input.dryRun, files: [...files.keys()], destinations, skipped}
  if (input.dryRun) return result

  // All or nothing: a copy that fails takes back the new copies this run already made.
  const made: string[] = []
  for (const dest of byPath.values()) {
    try {
      if (dest.yaml) writeYamlSkill(dest, name, description, check.body)
      else writeCopy(dest, files)
      if (!dest.replaced) made.push(dest.path)
    } catch (error) {
      for (const path of made) rmSync(path, {recursive: true, force: true})
      throw explainWriteError(error)
    }
  }
  return result
}

/** A CHARACTOID skill is one YAML file: the SKILL.md text only (the --with folders have no place in it). */
const writeYamlSkill = (dest: SkillDestination & {root: string}, name: string, description: string, instructions: string): void => {
  ensureDirBelow(dest.root, dirname(dest.path))
  assertNoLinksBelow(dest.root, dest.path)
  writeFileAtomic(dest.path, renderCharacteroidSkill({name, description, instructions}))
}

const writeCopy = (dest: SkillDestination & {root: string}, files: ReadonlyMap<string, string>): void => {
  ensureDirBelow(dest.root, dirname(dest.path))
  const staging = stagingDirFor(dest.path)
  try {
    for (const [rel, text] of files) {
      const full = join(staging, rel)
      mkdirSync(dirname(full), {recursive: true})
      writeFileSync(full, text, {flag: 'wx'})
    }
    assertNoLinksBelow(dest.root, dest.path)
    swapDirectoryIn(staging, dest.path, dest.replaced)
  } catch (error) {
    rmSync(staging, {recursive: true, force: true})
    throw error
  }
}
