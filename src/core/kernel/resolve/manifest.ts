/**
 * The two plugin.json fields this folder adds meaning to, `dependencies` and `userConfig`, read
 * leniently from the Claude manifest (or the marketplace entry when it is the manifest,
 * `strict: false`): a malformed item is reported and dropped, never trusted.
 */
import type {PluginEntry} from '../../model/marketplace.js'
import {MANIFEST_FORMATS} from '../plugin/manifest-formats/index.js'
import {loadManifestJson} from '../plugin/manifest-fields.js'
import {checkMarketplaceName} from '../text/names.js'
import {parsePluginSpec, type PluginSpec} from './plugin-input.js'

export interface Dependency {
  name: string
  /** the marketplace it comes from; absent: the dependent's own */
  marketplace?: string
  /** a semver range; absent: any version */
  range?: string
  /** how plugin.json wrote it, for messages */
  written: string
}

export const USER_CONFIG_TYPES = ['string', 'number', 'boolean', 'directory', 'file'] as const
export type UserConfigType = (typeof USER_CONFIG_TYPES)[number]

export interface UserConfigOption {
  key: string
  type: UserConfigType
  title?: string
  description?: string
  required: boolean
  sensitive: boolean
  default?: string | number | boolean
}

export interface PluginExtras {
  dependencies: Dependency[]
  userConfig: UserConfigOption[]
  problems: string[]
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/** The manifest's JSON (the Claude one), else the entry's fields when the entry is the manifest. */
const manifestJson = (root: string, entry?: PluginEntry): Record<string, unknown> => {
  // with strict: false the entry is the whole definition and plugin.json is ignored, as for every other field
  if (entry?.strict === false) return entry.raw
  try {
    const rel = MANIFEST_FORMATS.find((f) => f.declaresDependencies)?.files[0]?.path
    const loaded = rel === undefined ? undefined : loadManifestJson(root, rel)
    if (loaded && isRecord(loaded.json)) return {...entry?.raw, ...loaded.json}
  } catch {
    // a broken manifest is reported by the plugin reader; nothing to add here
  }
  return entry?.raw ?? {}
}

/** A dependency string is `name` or `name@marketplace` (a range goes in `{name, version}`); undefined when it is neither. */
const dependencyString = (text: string): {name: string; marketplace?: string} | string => {
  let spec: PluginSpec | undefined
  try {
    spec = parsePluginSpec(text)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  if (!spec) return `${JSON.stringify(text)} is not name or name@marketplace`
  // Claude's dependency strings name a marketplace, never a version: `dep@1.0` is marketplace "1.0"
  if (spec.range !== undefined && !spec.rangeOrMarketplace)
    return `${JSON.stringify(text)} is not name or name@marketplace; write a version range as {"name": ${JSON.stringify(spec.marketplace ? `${spec.name}@${spec.marketplace}` : spec.name)}, "version": ${JSON.stringify(spec.range)}}`
  const marketplace = spec.marketplace ?? spec.range
  if (marketplace !== undefined) {
    const rule = checkMarketplaceName(marketplace)
    if (rule) return `${JSON.stringify(text)} ${rule}`
  }
  return {name: spec.name, ...(marketplace !== undefined ? {marketplace} : {})}
}

const parseDependency = (item: unknown, index: number, problems: string[]): Dependency | undefined => {
  let named: string | {name: string; marketplace?: string}
  let range: string | undefined
  if (typeof item === 'string') {
    named = dependencyString(item)
  } else if (isRecord(item) && typeof item.name === 'string') {
    if (item.version !== undefined) {
      if (typeof item.version !== 'string') {
        problems.push(`dependencies[${index}].version must be a semver range`)
        return undefined
      }
      range = item.version
    }
    named = dependencyString(item.name)
  } else {
    problems.push(`dependencies[${index}] must be a name, name@marketplace or {name, version}`)
    return undefined
  }
  if (typeof named === 'string') {
    problems.push(`dependencies[${index}]: ${named}`)
    return undefined
  }
  const id = named.marketplace ? `${named.name}@${named.marketplace}` : named.name
  return {...named, ...(range ? {range} : {}), written: typeof item === 'string' ? item : `${id}@${range ?? '*'}`}
}

const parseOption = (key: string, value: unknown, problems: string[]): UserConfigOption | undefined => {
  if (!KEY.test(key)) {
    problems.push(`userConfig.${key}: a key is letters, digits and "_"`)
    return undefined
  }
  if (!isRecord(value)) {
    problems.push(`userConfig.${key} must be an object with a type`)
    return undefined
  }
  const type = value.type ?? 'string'
  if (typeof type !== 'string' || !(USER_CONFIG_TYPES as readonly string[]).includes(type)) {
    problems.push(`userConfig.${key}.type must be one of ${USER_CONFIG_TYPES.join(', ')}`)
    return undefined
  }
  const def = value.default
  return {
    key,
    type: type as UserConfigType,
    ...(typeof value.title === 'string' ? {title: value.title} : {}),
    ...(typeof value.description === 'string' ? {description: value.description} : {}),
    required: value.required === true,
    sensitive: value.sensitive === true,
    ...(typeof def === 'string' || typeof def === 'number' || typeof def === 'boolean' ? {default: def} : {}),
  }
}

export const readPluginExtras = (root: string, entry?: PluginEntry): PluginExtras => {
  const json = manifestJson(root, entry)
  const problems: string[] = []
  const dependencies: Dependency[] = []
  if (json.dependencies !== undefined) {
    if (!Array.isArray(json.dependencies)) problems.push('dependencies must be an array')
    else
      json.dependencies.forEach((item, i) => {
        const dep = parseDependency(item, i, problems)
        if (dep) dependencies.push(dep)
      })
  }
  const userConfig: UserConfigOption[] = []
  if (json.userConfig !== undefined) {
    if (!isRecord(json.userConfig)) problems.push('userConfig must be an object of key -> option')
    else
      for (const [key, value] of Object.entries(json.userConfig)) {
        const option = parseOption(key, value, problems)
        if (option) userConfig.push(option)
      }
  }
  return {dependencies, userConfig, problems}
}
