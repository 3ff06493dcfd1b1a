/**
 * The JSON files of a plugin as an author wrote them: the text-level defects JSON.parse hides (a
 * byte-order mark, a key written twice, of which JSON.parse silently keeps the last), and the
 * schema check of a manifest, with ajv's errors turned into problems a person can act on.
 */
import {closeSync, openSync, readSync} from 'node:fs'
import {jsonLayout} from '../json/scan.js'
import {MAX_MANIFEST_BYTES, parseManifestJson} from './manifest-fields.js'
import {problemsOf, readContainedText, typeName} from './paths.js'
import {jsonPathJoin, pointerToJsonPath, valueAtPointer} from '../json/path.js'
import {problem, type Problem} from '../../model/problems.js'
import {loadValidator, type CompiledValidator} from '../json/schemas.js'

export const BOM = '\uFEFF'

export interface DuplicateKey {
  /** the JSON path of the object that holds the key twice ('' for the top level) */
  path: string
  key: string
}

/** Every key that an object of `text` (valid JSON) holds more than once. */
export const duplicateKeys = (text: string): DuplicateKey[] => jsonLayout(text).repeated.map((r) => ({path: r.parent, key: r.key}))

/**
 * True when the file's first bytes are a UTF-8 byte-order mark. It is looked for in the bytes:
 * a TextDecoder (which reads the text) drops it without a word.
 */
export const hasBom = (file: string): boolean => {
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const head = Buffer.alloc(3)
    return readSync(fd, head, 0, 3, 0) === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

export interface JsonFileRead {
  file: string
  text: string
  json: Record<string, unknown>
}

/**
 * Reads a JSON file of the plugin for validation and reports what only its text shows: a
 * byte-order mark (which JSON.parse, and so Claude Code, refuses) and duplicate keys. Undefined
 * when it cannot be read or parsed; the plugin reader reports that.
 */
export const readJsonForChecks = (file: string, root: string, problems: Problem[]): JsonFileRead | undefined => {
  let text: string
  let json: Record<string, unknown>
  try {
    text = readContainedText(file, {root, file, maxBytes: MAX_MANIFEST_BYTES})
    json = parseManifestJson(text, file)
  } catch (error) {
    const found = problemsOf(error)
    if (!found) throw error
    problems.push(...found)
    return undefined
  }
  if (text.startsWith(BOM) || hasBom(file)) {
    problems.push(
      problem('error', 'json-bom', 'the file starts with a byte-order mark (U+FEFF); JSON readers such as JSON.parse refuse it (--fix removes it)', {file}),
    )
  }
  for (const dup of duplicateKeys(text)) {
    const where = dup.path === '' ? 'the top-level object' : `"${dup.path}"`
    problems.push(
      problem(
        'error',
        'json-duplicate-key',
        `key "${dup.key}" appears more than once in ${where}; JSON.parse keeps only the last one, so the first is silently lost`,
        {
          file,
          path: jsonPathJoin(dup.path, dup.key),
        },
      ),
    )
  }
  return {file, text, json}
}

// ---------------------------------------------------------------------------------------------
// Schema errors as problems

interface AjvError {
  instancePath: string
  keyword: string
  params?: Record<string, unknown>
  message?: string
}

/** The last step of a JSON path, for messages: `defaultPrompt[0]`, `name`. */
const label = (path: string): string => path.split('.').pop() || path || 'the manifest'

const entries = (n: number) => (n === 1 ? '1 entry' : `${n} entries`)

const schemaProblem = (error: AjvError, data: unknown, file: string, reader: string): Problem => {
  const path = pointerToJsonPath(error.instancePath, data)
  const value = valueAtPointer(error.instancePath, data)
  const params = error.params ?? {}
  const at = (code: string, message: string, where = path, severity: 'error' | 'warning' = 'error') =>
    problem(severity, code, message, {file, ...(where ? {path: where} : {})})
  const name = `"${label(path)}"`
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty)
      return at('manifest-field-missing', `the required field "${missing}" is missing`, jsonPathJoin(path, missing))
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty)
      return at('manifest-field-unknown', `unknown field "${extra}"; ${reader} does not read it`, jsonPathJoin(path, extra), 'warning')
    }
    case 'type': {
      const types = String(params.type)
        .split(',')
        .map((t) => (t === 'array' ? 'a list' : t === 'object' ? 'an object' : `a ${t}`))
      return at('manifest-field-type', `${name} must be ${types.join(' or ')}, not ${typeName(value)}`)
    }
    case 'enum':
      return at(
        'manifest-field-enum',
        `${name} is ${JSON.stringify(value)}; use one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      )
    case 'const':
      return at('manifest-field-value', `${name} must be ${JSON.stringify(params.allowedValue)}, not ${JSON.stringify(value)}`)
    case 'maxItems':
      return at('manifest-too-many', `${name} has ${entries((value as unknown[]).length)}; the limit is ${String(params.limit)}`)
    case 'minItems':
      return at('manifest-too-few', `${name} must have at least ${String(params.limit)} ${Number(params.limit) === 1 ? 'entry' : 'entries'}`)
    case 'maxLength':
      return at('manifest-field-too-long', `${name} is ${[...String(value)].length} characters; the limit is ${String(params.limit)}`)
    case 'minLength':
      return at('manifest-field-empty', `${name} is empty`)
    case 'pattern':
      return at('manifest-field-pattern', `${name} is ${JSON.stringify(value)}, which does not have the required form (${String(params.pattern)})`)
    case 'maximum':
    case 'exclusiveMaximum':
      return at(
        'manifest-field-too-large',
        `${name} is ${String(value)}; it must be ${error.keyword === 'maximum' ? 'at most' : 'less than'} ${String(params.limit)}`,
      )
    case 'minimum':
    case 'exclusiveMinimum':
      return at(
        'manifest-field-too-small',
        `${name} is ${String(value)}; it must be ${error.keyword === 'minimum' ? 'at least' : 'more than'} ${String(params.limit)}`,
      )
    default:
      return at(`manifest-schema-${error.keyword}`, `${name} ${error.message ?? 'is invalid'}`)
  }
}

/** The manifest checked against `registry/schemas/<schema>.schema.json` (compiled at build time). */
export const schemaProblems = async (schema: string, json: unknown, file: string, reader: string): Promise<Problem[]> => {
  let validator: CompiledValidator
  try {
    validator = await loadValidator(schema)
  } catch (error) {
    throw new Error(`the compiled schema ${schema} is missing (run node bin/build.mjs): ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
  if (validator(json)) return []
  return (validator.errors ?? []).map((e) => schemaProblem(e as AjvError, json, file, reader))
}
