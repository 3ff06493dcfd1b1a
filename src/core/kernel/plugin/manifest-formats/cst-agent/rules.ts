/**
 * cst-agent's manifest rules beyond its schema: identity, tool names within its byte limit, tool
 * parameter schemas compiled for real, and the plugin files a tool command names.
 */
import {join} from 'node:path'
import {add, checkIdentity, type RuleContext} from '../plugin-rules.js'
import {isRecord, type Json} from '../../components.js'
import {followedKind} from '../../paths.js'
import {jsonPathJoin} from '../../../json/path.js'

const MAX_TOOL_NAME_BYTES = 63

/** A word of a tool command that names a plugin file: `scripts/run.sh`, `tools/x.mjs`. */
const PLUGIN_FILE = /^[\w.@+-]+(\/[\w.@+-]+)+$/

interface SchemaCompiler {
  compile(schema: object): unknown
}

/** ajv is CommonJS: seen from ESM, its class is the module's `default.default`. Loaded on first use only. */
const newAjv = async (): Promise<SchemaCompiler> => {
  const mod = await import('ajv')
  return new mod.default.default({strict: false, allErrors: true})
}

let sharedAjv: Promise<SchemaCompiler> | undefined
const compiled = new Map<string, string | undefined>()

/**
 * Why `schema` is not a JSON Schema ajv can compile, or undefined. One ajv instance serves every
 * schema (making one costs more than compiling); a schema with its own `$id` gets a fresh one,
 * since an instance refuses a second schema under an id it has seen.
 */
const compileSchema = async (schema: Json): Promise<string | undefined> => {
  const key = JSON.stringify(schema)
  if (compiled.has(key)) return compiled.get(key)
  sharedAjv ??= newAjv()
  const ajv = key.includes('"$id"') ? await newAjv() : await sharedAjv
  let broken: string | undefined
  try {
    ajv.compile(schema)
  } catch (error) {
    broken = error instanceof Error ? error.message.split('\n')[0] : String(error)
  }
  compiled.set(key, broken)
  return broken
}

const checkToolFiles = (tool: Json, at: string, ctx: RuleContext): void => {
  const words = Array.isArray(tool.command)
    ? tool.command.filter((w): w is string => typeof w === 'string')
    : typeof tool.command === 'string'
      ? tool.command.trim().split(/\s+/)
      : []
  words.forEach((word, i) => {
    if (!PLUGIN_FILE.test(word) || word.split('/').includes('..')) return
    const where = Array.isArray(tool.command) ? jsonPathJoin(jsonPathJoin(at, 'command'), i) : jsonPathJoin(at, 'command')
    if (followedKind(join(ctx.root, word)) !== 'missing') return
    if (i === 0) add(ctx, 'error', 'path-missing', `the tool's program ${JSON.stringify(word)} does not exist in the plugin`, where)
    else add(ctx, 'warning', 'tool-file-missing', `the tool's command names ${JSON.stringify(word)}, which does not exist in the plugin`, where)
  })
}

export const cstAgentRules = async (json: Json, ctx: RuleContext): Promise<void> => {
  checkIdentity(json, ctx)
  if (!Array.isArray(json.tools)) return
  for (const [i, tool] of json.tools.entries()) {
    if (!isRecord(tool)) continue
    const at = jsonPathJoin('tools', i)
    if (typeof tool.name === 'string') {
      const bytes = Buffer.byteLength(tool.name, 'utf8')
      if (bytes > MAX_TOOL_NAME_BYTES) {
        add(
          ctx,
          'error',
          'tool-name-too-long',
          `tool name is ${bytes} bytes; cst-agent allows at most ${MAX_TOOL_NAME_BYTES} (a longer one is cut, and two cut names can collide)`,
          jsonPathJoin(at, 'name'),
        )
      }
    }
    if ('parameters' in tool && 'inputSchema' in tool) {
      add(ctx, 'error', 'tool-parameters-both', 'the tool has both "parameters" and "inputSchema"; give one', jsonPathJoin(at, 'inputSchema'))
    }
    const key = 'parameters' in tool ? 'parameters' : 'inputSchema'
    const schema = tool[key]
    if (isRecord(schema)) {
      const broken = await compileSchema(schema)
      if (broken) add(ctx, 'error', 'tool-parameters-not-schema', `"${key}" is not a valid JSON Schema: ${broken}`, jsonPathJoin(at, key))
      else if (schema.type !== undefined && schema.type !== 'object') {
        add(
          ctx,
          'warning',
          'tool-parameters-not-object',
          `"${key}" describes ${JSON.stringify(schema.type)}, but a tool's arguments are a JSON object ("type": "object")`,
          jsonPathJoin(jsonPathJoin(at, key), 'type'),
        )
      }
    }
    checkToolFiles(tool, at, ctx)
  }
}
