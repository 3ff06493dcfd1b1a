/**
 * CHARACTOID's two authoring formats (TARGETS.md marks their exact shape as unsure): a skill is a
 * YAML file (`name`, `description`, `instructions`, `tool_names`), and `data/mcp_servers.json` maps
 * server names to entries of transport stdio, streamable_http or sse. The shapes are the JSON
 * Schemas `registry/schemas/characteroid-{skill,mcp}.schema.json` (compiled at build time); the
 * rules that cross fields (unknown fields, the other transport's fields, the URL) are here.
 * The caller enforces the 10 MB size cap before reading the text.
 */
import {nodeRequire} from '../env/node-require.js'
import {join} from 'node:path'
import {parseDocument} from 'yaml'
import {PACKAGE_ROOT} from '../env/package-root.js'
import {jsonPathJoin, pointerToJsonPath} from '../json/path.js'
import {problem, type Problem} from '../../model/problems.js'
import type {CompiledValidator} from '../json/schemas.js'
import {checkSkillName} from '../skills/name.js'

const requireCjs = nodeRequire
const validators = new Map<string, CompiledValidator>()

/** The compiled schema, loaded synchronously (the standalone validators are CommonJS). */
const validatorFor = (name: string): CompiledValidator => {
  let validator = validators.get(name)
  if (!validator) {
    const file = join(PACKAGE_ROOT, 'dist', 'schemas', `${name}.cjs`)
    try {
      validator = requireCjs(file) as CompiledValidator
    } catch (error) {
      throw new Error(`the compiled schema ${name} is missing (run node bin/build.mjs): ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      })
    }
    validators.set(name, validator)
  }
  return validator
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`)

const valueAt = (pointer: string, data: unknown): unknown => {
  let value: unknown = data
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    value = Array.isArray(value) ? value[Number(segment)] : isRecord(value) ? value[segment] : undefined
  }
  return value
}

interface AjvError {
  instancePath: string
  keyword: string
  params?: Record<string, unknown>
  message?: string
}

/** The schema's errors as problems (`if` errors only repeat the `then` error under them). */
const schemaProblems = (schema: string, data: unknown, file: string): Problem[] => {
  const validate = validatorFor(schema)
  if (validate(data)) return []
  const out: Problem[] = []
  for (const e of (validate.errors ?? []) as AjvError[]) {
    if (e.keyword === 'if') continue
    const path = pointerToJsonPath(e.instancePath, data)
    const value = valueAt(e.instancePath, data)
    const params = e.params ?? {}
    const label = `"${path || 'the file'}"`
    const at = (code: string, message: string, where = path) => out.push(problem('error', code, message, {file, ...(where ? {path: where} : {})}))
    switch (e.keyword) {
      case 'required': {
        const missing = String(params.missingProperty)
        at('characteroid-field-missing', `the required field "${missing}" is missing`, jsonPathJoin(path, missing))
        break
      }
      case 'type':
        at(
          'characteroid-field-type',
          `${label} must be ${String(params.type) === 'object' ? 'an object' : String(params.type) === 'array' ? 'a list' : `a ${String(params.type)}`}, not ${typeName(value)}`,
        )
        break
      case 'enum':
        at(
          'characteroid-field-enum',
          `${label} is ${JSON.stringify(value)}; use one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        )
        break
      case 'minLength':
        at('characteroid-field-empty', `${label} is empty`)
        break
      case 'maxLength':
        at('characteroid-field-too-long', `${label} is ${[...String(value)].length} characters; the limit is ${String(params.limit)}`)
        break
      case 'pattern':
        at('characteroid-field-pattern', `${label} is ${JSON.stringify(value)}, which does not have the required form (${String(params.pattern)})`)
        break
      default:
        at(`characteroid-schema-${e.keyword}`, `${label} ${e.message ?? 'is invalid'}`)
    }
  }
  return out
}

/** YAML text to a value, with the parser's errors (including keys written twice) as problems. */
const parseYaml = (text: string, file: string): {value?: unknown; problems: Problem[]} => {
  const doc = parseDocument(text.startsWith('\uFEFF') ? text.slice(1) : text, {uniqueKeys: true})
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((e) => {
        const code = e.code === 'DUPLICATE_KEY' ? 'yaml-duplicate-key' : 'yaml-invalid'
        return problem('error', code, (e.message.split('\n')[0] ?? e.message).replace(/:$/, ''), {file})
      }),
    }
  }
  try {
    return {value: doc.toJS({maxAliasCount: 100}), problems: []}
  } catch (error) {
    return {problems: [problem('error', 'yaml-invalid', `cannot read the YAML: ${error instanceof Error ? error.message : String(error)}`, {file})]}
  }
}

const SKILL_FIELDS = new Set(['name', 'description', 'instructions', 'tool_names'])
const NAME_SCHEMA_KEYWORDS = new Set(['characteroid-field-empty', 'characteroid-field-too-long', 'characteroid-field-pattern'])

export interface CharacteroidSkill {
  /** the skill's name when the YAML has a string `name` */
  name?: string
  description?: string
  problems: Problem[]
}

/** CHARACTOID's own names (its example is `example_skill`): lowercase words joined by "_" or "-". */
const CHARACTOID_NAME = /^[a-z0-9]+([_-][a-z0-9]+)*$/

/** A CHARACTOID skill YAML: its name (when it has one) and every problem with it. */
export const readCharacteroidSkill = (text: string, file: string): CharacteroidSkill => {
  const parsed = parseYaml(text, file)
  if (parsed.problems.length > 0) return {problems: parsed.problems}
  const data = parsed.value
  const problems = schemaProblems('characteroid-skill', data, file)
  if (!isRecord(data)) return {problems}
  const name = typeof data.name === 'string' ? data.name : undefined
  if (name !== undefined) {
    // the name rule's own reasons, clearer than the schema's pattern
    const broken =
      CHARACTOID_NAME.test(name) && name.length <= 64
        ? undefined
        : (checkSkillName(name) ?? {
            code: 'name-invalid-characters',
            message: `name "${name}" may hold only lowercase letters, digits, "_" and "-", one between words`,
          })
    const kept = problems.filter((p) => !(p.path === 'name' && NAME_SCHEMA_KEYWORDS.has(p.code)))
    if (!broken) {
      problems.length = 0
      problems.push(...kept)
    } else {
      problems.length = 0
      problems.push(...kept, problem('error', broken.code, broken.message, {file, path: 'name'}))
    }
  }
  for (const key of Object.keys(data)) {
    if (!SKILL_FIELDS.has(key))
      problems.push(
        problem('warning', 'characteroid-field-unknown', `unknown field "${key}"; CHARACTOID does not read it`, {file, path: jsonPathJoin('', key)}),
      )
  }
  return {...(name === undefined ? {} : {name}), ...(typeof data.description === 'string' ? {description: data.description} : {}), problems}
}

export const validateCharacteroidSkill = (text: string, file: string): Problem[] => readCharacteroidSkill(text, file).problems

const STDIO_FIELDS = ['command', 'args', 'env', 'cwd']
const HTTP_FIELDS = ['url', 'headers']
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost'])

const urlProblem = (raw: string): string | undefined => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `"${raw}" is not a valid URL`
  }
  if (url.username !== '' || url.password !== '') return 'has user info (user:password@) in it; pass credentials in "headers" instead'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:')
    return LOCAL_HOSTS.has(url.hostname) ? undefined : `uses http:// for ${url.hostname}; only 127.0.0.1 and localhost may use http, anything else needs https`
  return `uses ${url.protocol}; use https (or http for 127.0.0.1 and localhost)`
}

/** CHARACTOID's `data/mcp_servers.json` (JSON text; keys written twice are reported as YAML parses it). */
export const validateCharacteroidMcp = (text: string, file: string): Problem[] => {
  // JSON is YAML: parsing it as YAML with uniqueKeys catches keys JSON.parse would silently merge
  let data: unknown
  try {
    data = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text)
  } catch (error) {
    return [problem('error', 'json-invalid', `not valid JSON: ${error instanceof Error ? error.message : String(error)}`, {file})]
  }
  const dup = parseYaml(text, file)
    .problems.filter((p) => p.code === 'yaml-duplicate-key')
    .map((p) => ({...p, code: 'json-duplicate-key'}))
  if (dup.length > 0) return dup
  const problems = schemaProblems('characteroid-mcp', data, file)
  if (!isRecord(data)) return problems
  const wrapped = 'mcp_servers' in data
  const servers = wrapped ? data.mcp_servers : data
  const base = wrapped ? 'mcp_servers' : ''
  if (wrapped) {
    for (const key of Object.keys(data)) {
      if (key !== 'mcp_servers')
        problems.push(
          problem('warning', 'characteroid-field-unknown', `unknown field "${key}"; CHARACTOID reads only "mcp_servers"`, {file, path: jsonPathJoin('', key)}),
        )
    }
  }
  if (!isRecord(servers)) return problems
  for (const [name, entry] of Object.entries(servers)) {
    if (!isRecord(entry)) continue
    const at = jsonPathJoin(base, name)
    const transport = entry.transport
    const known = transport === 'stdio' || transport === 'streamable_http' || transport === 'sse'
    const own = transport === 'stdio' ? STDIO_FIELDS : HTTP_FIELDS
    const other = transport === 'stdio' ? HTTP_FIELDS : STDIO_FIELDS
    for (const key of Object.keys(entry)) {
      if (key === 'transport' || own.includes(key)) continue
      if (known && other.includes(key)) {
        problems.push(
          problem(
            'error',
            'characteroid-mcp-wrong-transport-field',
            `"${key}" belongs to ${transport === 'stdio' ? 'the streamable_http and sse transports' : 'the stdio transport'}, not ${String(transport)}`,
            {file, path: jsonPathJoin(at, key)},
          ),
        )
      } else if (!other.includes(key)) {
        problems.push(
          problem('warning', 'characteroid-field-unknown', `unknown field "${key}"; CHARACTOID does not read it`, {file, path: jsonPathJoin(at, key)}),
        )
      }
    }
    if (transport !== 'stdio' && known && typeof entry.url === 'string') {
      const why = urlProblem(entry.url)
      if (why) problems.push(problem('error', 'characteroid-mcp-url', `"url" ${why}`, {file, path: jsonPathJoin(at, 'url')}))
    }
  }
  return problems
}
