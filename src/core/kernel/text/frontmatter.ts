import {yaml} from './yaml-lazy.js'

// most frontmatter is flat `key: text` lines read by readFlatMapping: the parser loads on first need
const parseDocument: typeof import('yaml').parseDocument = (...args) => yaml().parseDocument(...args)

export type FrontmatterSplit = {kind: 'ok'; yaml: string; body: string; bodyStart: number} | {kind: 'missing'} | {kind: 'not-at-start'} | {kind: 'unclosed'}

const OPEN = /^---[ \t]*\r?\n/
const CLOSE = /^---[ \t]*$/m

/** Splits a Markdown file into YAML frontmatter and body. The frontmatter must open at byte 0. */
export const splitFrontmatter = (text: string): FrontmatterSplit => {
  const open = OPEN.exec(text)
  if (!open) return /^\uFEFF?\s*---[ \t]*\r?\n/.test(text) ? {kind: 'not-at-start'} : {kind: 'missing'}
  const rest = text.slice(open[0].length)
  // The closing fence may also sit right after the opening one (an empty frontmatter).
  const close = CLOSE.exec(rest)
  if (!close) return {kind: 'unclosed'}
  const yaml = rest.slice(0, close.index)
  let bodyStart = open[0].length + close.index + close[0].length
  if (text.startsWith('\r\n', bodyStart)) bodyStart += 2
  else if (text.startsWith('\n', bodyStart)) bodyStart += 1
  return {kind: 'ok', yaml, body: text.slice(bodyStart), bodyStart}
}

export type YamlMapping = Record<string, unknown>

export type YamlResult = {ok: true; value: YamlMapping} | {ok: false; code: string; message: string}

/** Parses frontmatter YAML; it must be a mapping with unique keys. */
export const parseYamlMapping = (yaml: string): YamlResult => {
  const doc = parseDocument(yaml, {uniqueKeys: true, prettyErrors: false})
  if (doc.errors.length > 0) {
    return {ok: false, code: 'frontmatter-yaml-invalid', message: `frontmatter is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`}
  }
  let value: unknown
  try {
    value = doc.toJS({maxAliasCount: 50})
  } catch (error) {
    // an alias expanding too far (a "billion laughs" document) is refused here, not thrown
    return {ok: false, code: 'frontmatter-yaml-invalid', message: `frontmatter is not valid YAML: ${error instanceof Error ? error.message : String(error)}`}
  }
  if (value === null || value === undefined) return {ok: false, code: 'frontmatter-empty', message: 'frontmatter is empty'}
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {ok: false, code: 'frontmatter-not-mapping', message: `frontmatter must be a YAML mapping, not ${Array.isArray(value) ? 'a list' : typeof value}`}
  }
  return {ok: true, value: value as YamlMapping}
}

export type LenientYamlResult = YamlResult & {lenientKeys?: string[]}

/** A top-level key line: `key:` then the rest of the line. */
const KEY_LINE = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/

const PLAIN_START = /^[^\s[\]{}"'|>&*!%@`#,?-]/

/** Top-level chunks: a key line and the indented, list or blank lines that follow it. */
const topLevelChunks = (yaml: string): string[][] => {
  const chunks: string[][] = []
  for (const line of yaml.split(/\r?\n/)) {
    const continues = line.trim() === '' || /^[ \t]/.test(line) || line.startsWith('- ') || line.startsWith('#')
    if (continues && chunks.length > 0) chunks[chunks.length - 1]!.push(line)
    else if (!continues) chunks.push([line])
  }
  return chunks
}

/** An own property even for `__proto__`, which plain assignment would take as the prototype. */
const setOwn = (target: YamlMapping, key: string, value: unknown): void => {
  Object.defineProperty(target, key, {value, enumerable: true, writable: true, configurable: true})
}

const unquote = (text: string): string => {
  const t = text.trim()
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1)
  return t
}

/**
 * Reads frontmatter as the agents do. Strict YAML first; when that fails, each top-level key is
 * read on its own, and a key whose value strict YAML rejects (typically an unquoted colon,
 * `description: Use when: ...`) is taken as plain text, the way Claude Code and Codex read it.
 * `lenientKeys` names the keys read that way; strict readers (validate) report them.
 */
export const parseYamlLeniently = (yaml: string): LenientYamlResult => readFlatMapping(yaml) ?? parseYamlLenientlyByParser(yaml)

/** parseYamlLeniently through the YAML parser alone (exported for the test that holds the two equal). */
export const parseYamlLenientlyByParser = (yaml: string): LenientYamlResult => {
  const strict = parseYamlMapping(yaml)
  if (strict.ok || strict.code !== 'frontmatter-yaml-invalid') return strict
  const value: YamlMapping = {}
  const lenientKeys: string[] = []
  for (const chunk of topLevelChunks(yaml)) {
    const key = KEY_LINE.exec(chunk[0]!)
    if (!key) return strict
    const alone = parseYamlMapping(chunk.join('\n'))
    if (alone.ok && key[1]! in alone.value) {
      setOwn(value, key[1]!, alone.value[key[1]!])
      continue
    }
    // only a plain value is read as text: one opening with a YAML indicator ([, {, a quote, |, >,
    // an anchor or a tag) is broken YAML the agents reject too
    if (!PLAIN_START.test(key[2] ?? '')) return strict
    const rest = [key[2]!, ...chunk.slice(1).map((l) => l.trim())].filter((l) => l !== '' && !l.startsWith('#'))
    setOwn(value, key[1]!, unquote(rest.join(' ')))
    lenientKeys.push(key[1]!)
  }
  if (lenientKeys.length === 0) return strict
  return {ok: true, value, lenientKeys}
}

/** `key: value` where the key is a plain word and the value plain text opening with a letter. */
const FLAT_LINE = /^([A-Za-z][A-Za-z0-9_-]*):[ ]+([A-Za-z][^\t\x00-\x1f\x7f-\x9f\uFEFF]*)$/
const NOT_TEXT = new Set(['true', 'false', 'null'])

/**
 * The common frontmatter, read without a YAML parser: only lines `key: text` (and blank lines),
 * each value a plain scalar that YAML takes as a string. Returns what parseYamlLeniently would
 * (a value with ": " inside is one strict YAML rejects and the agents read as text, so its key is
 * lenient), or undefined for anything else (quotes, comments, lists, nesting, numbers, a repeated
 * key), which the YAML parser reads.
 */
export const readFlatMapping = (yaml: string): LenientYamlResult | undefined => {
  const value: YamlMapping = {}
  const lenientKeys: string[] = []
  for (const line of yaml.split(/\r?\n/)) {
    if (line.trim() === '') continue
    const m = FLAT_LINE.exec(line)
    if (!m) return undefined
    const key = m[1]!
    const text = m[2]!.trimEnd()
    if (Object.hasOwn(value, key) || key === '__proto__' || text.includes(' #') || text.endsWith(':') || NOT_TEXT.has(text.toLowerCase())) return undefined
    setOwn(value, key, text)
    if (text.includes(': ')) lenientKeys.push(key)
  }
  if (Object.keys(value).length === 0) return undefined
  return lenientKeys.length > 0 ? {ok: true, value, lenientKeys} : {ok: true, value}
}
