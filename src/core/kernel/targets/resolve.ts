import {statSync} from 'node:fs'
import {dirname, isAbsolute, join, resolve} from 'node:path'
import {expandHome, type Environment} from '../env/environment.js'
import type {Scope, ScopeContext} from '../env/scope.js'
import type {AgentTarget, BaseCandidate, Location, SectionName} from './types.js'

/** A location with its path made absolute, plus the folder that bounds every write under it. */
export interface ResolvedLocation extends Location {
  absolute: string
  /** the folder the location hangs from (a base, HOME or the project root): nothing above it is checked */
  root: string
}

const candidateValue = (candidate: BaseCandidate, env: Environment): string | undefined => {
  if (candidate.platform && candidate.platform !== env.platform) return undefined
  if (candidate.env) {
    const value = env.vars[candidate.env]
    if (!value || !value.trim()) return undefined
    // XDG base-directory variables count only when absolute, as their specification says.
    if (candidate.env.startsWith('XDG_') && !value.startsWith('/')) return undefined
    return candidate.join ? join(value, candidate.join) : value
  }
  return candidate.path
}

/** The folder a named base points at in this environment, absolute. */
export const resolveBase = (target: AgentTarget, name: string, env: Environment): string => {
  const candidates = target.bases[name]
  if (!candidates) throw new Error(`registry/agents/${target.id}.json uses {${name}} without defining it`)
  for (const candidate of candidates) {
    const value = candidateValue(candidate, env)
    if (value !== undefined) return resolve(env.cwd, expandHome(value, env))
  }
  throw new Error(`registry/agents/${target.id}.json: no candidate of base {${name}} applies`)
}

const BASE_REF = /^\{([a-zA-Z0-9]+)\}(?:\/(.*))?$/

export const resolveUserPath = (target: AgentTarget, path: string, env: Environment): {absolute: string; root: string} => {
  const match = BASE_REF.exec(path)
  if (match) {
    const root = resolveBase(target, match[1]!, env)
    // A base that names a file (claude-code's .claude.json) is bounded by the folder it sits in.
    return match[2] ? {absolute: join(root, match[2]), root} : {absolute: root, root: dirname(root)}
  }
  if (path === '~' || path.startsWith('~/')) return {absolute: expandHome(path, env), root: env.home}
  if (isAbsolute(path)) return {absolute: path, root: path}
  throw new Error(`registry/agents/${target.id}.json: user path "${path}" must start with ~ or {base}`)
}

export const resolveLocation = (target: AgentTarget, location: Location, env: Environment, projectRoot: string): ResolvedLocation => {
  if (location.scope === 'project') {
    return {...location, absolute: resolve(projectRoot, location.path), root: projectRoot}
  }
  return {...location, ...resolveUserPath(target, location.path, env)}
}

/** The locations of one section, for one scope or both, in the agent's load order. */
export const sectionLocations = (
  target: AgentTarget,
  section: SectionName,
  env: Environment,
  context: ScopeContext,
  scopes: readonly Scope[] = [context.scope],
): ResolvedLocation[] => {
  const data = target[section]
  if (!data) return []
  const order = section === 'skills' && target.skills ? target.skills.precedence : (['project', 'user'] as const)
  return order
    .filter((scope) => scopes.includes(scope))
    .flatMap((scope) => data.locations.filter((l) => l.scope === scope))
    .map((l) => resolveLocation(target, l, env, context.projectRoot))
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** An agent is present when one of its home folders exists: a stat, never a subprocess. */
export const detectTarget = (target: AgentTarget, env: Environment): string | undefined =>
  target.detect.map((path) => resolveUserPath(target, path, env).absolute).find(isDirectory)

/** Where loadout writes in a scope: the location marked `write`, else the first one of the scope. */
export const writeLocation = <L extends {scope: Scope; write?: boolean}>(locations: readonly L[], scope: Scope): L | undefined =>
  locations.find((l) => l.scope === scope && l.write === true) ?? locations.find((l) => l.scope === scope)
