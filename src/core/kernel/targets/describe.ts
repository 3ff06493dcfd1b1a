import type {Environment} from '../env/environment.js'
import type {Scope, ScopeContext} from '../env/scope.js'
import {detectTarget, sectionLocations} from './resolve.js'
import {SECTION_NAMES, type AgentTarget, type Confidence, type SectionName} from './types.js'

export interface TargetPath {
  section: SectionName
  scope: Scope
  format: string
  path: string
  key?: string
  confidence: Confidence
  requiresTrust?: boolean
  note?: string
}

export interface TargetDescription {
  id: string
  name: string
  confidence: Confidence
  /** false for agents that install packages themselves (loadout only validates and packs) */
  installs: boolean
  detected: boolean
  /** the folder whose existence detected the agent */
  detectedAt?: string
  notes: string[]
  paths: TargetPath[]
}

/** What `targets` reports: the agents described, for one scope or 'all'. */
export interface TargetsResult {
  scope: string
  projectRoot: string
  targets: TargetDescription[]
}

export const describeTargets = (targets: readonly AgentTarget[], env: Environment, context: ScopeContext, scopes: readonly Scope[]): TargetDescription[] =>
  targets.map((target) => {
    const detectedAt = detectTarget(target, env)
    const paths: TargetPath[] = []
    for (const section of SECTION_NAMES) {
      const data = target[section]
      if (!data) continue
      const key = 'key' in data ? data.key : undefined
      for (const location of sectionLocations(target, section, env, context, scopes)) {
        const locationKey = location.key ?? key
        paths.push({
          section,
          scope: location.scope,
          format: data.format,
          path: location.absolute,
          ...(locationKey ? {key: locationKey} : {}),
          confidence: location.confidence ?? data.confidence ?? target.confidence,
          ...(location.requiresTrust ? {requiresTrust: true} : {}),
          ...((location.note ?? data.note) ? {note: location.note ?? data.note} : {}),
        })
      }
    }
    return {
      id: target.id,
      name: target.name,
      confidence: target.confidence,
      installs: target.installs !== false,
      detected: detectedAt !== undefined,
      ...(detectedAt ? {detectedAt} : {}),
      notes: target.notes ?? [],
      paths,
    }
  })
