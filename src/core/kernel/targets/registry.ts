import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {LoadoutError, EXIT, usageError} from '../../model/errors.js'
import {PACKAGE_ROOT, REGISTRY_DIR} from '../env/package-root.js'
import {describeSchemaErrors, loadValidator} from '../json/schemas.js'
import type {AgentTarget} from './types.js'

export const AGENTS_DIR = join(REGISTRY_DIR, 'agents')

let cached: Promise<AgentTarget[]> | undefined

/** Every agent target in registry/agents, validated against its schema, sorted by id. */
export const loadTargets = (dir = AGENTS_DIR): Promise<AgentTarget[]> => {
  if (dir !== AGENTS_DIR) return readTargets(dir)
  cached ??= readTargets(dir)
  return cached
}

/**
 * A registry folder's files as one text (names and bytes, in name order): the build writes the shipped
 * folder's to REGISTRY_CHECKED after validating every file, so that start-up validates only when the
 * files are no longer those (edited after the build, or run from the sources). The text itself, not a
 * digest of it: comparing ~50 KB costs nothing, and a digest would load node:crypto at every start.
 */
export const registrySnapshot = (files: ReadonlyArray<readonly [string, string]>): string => files.map(([name, text]) => `${name}\0${text}\0`).join('')

export const REGISTRY_CHECKED = join(PACKAGE_ROOT, 'dist', 'schemas', 'agents.checked')

const checkedAtBuild = (files: ReadonlyArray<readonly [string, string]>): boolean => {
  try {
    return readFileSync(REGISTRY_CHECKED, 'utf8') === registrySnapshot(files)
  } catch {
    return false
  }
}

/** The `.json` files of a registry folder, name and text, in name order. */
export const registryFiles = (dir: string): Array<readonly [string, string]> =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => [file, readFileSync(join(dir, file), 'utf8')] as const)

const readTargets = async (dir: string): Promise<AgentTarget[]> => {
  const files = registryFiles(dir)
  const validate = dir === AGENTS_DIR && checkedAtBuild(files) ? undefined : await loadValidator('agent-target')
  const targets: AgentTarget[] = []
  for (const [file, text] of files) {
    const shown = dir === AGENTS_DIR ? `registry/agents/${file}` : join(dir, file)
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw new LoadoutError('registry-invalid', EXIT.unexpected, `${shown} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (validate && !validate(data)) {
      throw new LoadoutError('registry-invalid', EXIT.unexpected, `${shown} is invalid: ${describeSchemaErrors(validate).join('; ')}`)
    }
    const target = data as AgentTarget
    if (`${target.id}.json` !== file) {
      throw new LoadoutError('registry-invalid', EXIT.unexpected, `${shown} has id "${target.id}"`)
    }
    targets.push(target)
  }
  return targets
}

/** Parses `--agent a,b` against the registry; an unknown id is a usage error listing the known ones. */
export const pickTargets = (ids: readonly string[], all: readonly AgentTarget[]): AgentTarget[] => {
  const byId = new Map(all.map((t) => [t.id, t]))
  const picked: AgentTarget[] = []
  for (const id of ids) {
    const target = byId.get(id)
    if (!target) {
      throw usageError('unknown-agent', `unknown agent "${id}"`, {
        suggestions: [`known agents: ${all.map((t) => t.id).join(', ')}`, 'try: loadout targets'],
      })
    }
    if (!picked.includes(target)) picked.push(target)
  }
  return picked
}

export const splitList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
