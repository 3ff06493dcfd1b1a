import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {LoadoutError, EXIT, usageError} from '../errors.js'
import {REGISTRY_DIR} from '../package-root.js'
import {describeSchemaErrors, loadValidator} from '../schemas.js'
import type {AgentTarget} from './types.js'

export const AGENTS_DIR = join(REGISTRY_DIR, 'agents')

let cached: Promise<AgentTarget[]> | undefined

/** Every agent target in registry/agents, validated against its schema, sorted by id. */
export const loadTargets = (dir = AGENTS_DIR): Promise<AgentTarget[]> => {
  if (dir !== AGENTS_DIR) return readTargets(dir)
  cached ??= readTargets(dir)
  return cached
}

const readTargets = async (dir: string): Promise<AgentTarget[]> => {
  const validate = await loadValidator('agent-target')
  const targets: AgentTarget[] = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const shown = dir === AGENTS_DIR ? `registry/agents/${file}` : join(dir, file)
    let data: unknown
    try {
      data = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    } catch (error) {
      throw new LoadoutError('registry-invalid', EXIT.unexpected, `${shown} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (!validate(data)) {
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
  (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)
