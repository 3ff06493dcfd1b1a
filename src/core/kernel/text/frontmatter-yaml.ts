/**
 * YAML frontmatter as loadout writes it (subagents, converted agents): every value reads back as
 * itself under YAML 1.2 (the `yaml` package, most JS agents) and YAML 1.1 (PyYAML, Python agents),
 * and no value can open a new key, end the frontmatter or change type.
 */
import {lazy} from '../env/lazy.js'
import {yaml} from './yaml-lazy.js'

/**
 * Text that reads back as the same string as a plain YAML scalar under both YAML versions, and that
 * a line-based frontmatter reader cannot misread: letters first, no `:`, `#`, quotes at the start,
 * line breaks or edge spaces. Made on first need: its classes hold thousands of ranges (~1 ms of a
 * run to build), and most text is ASCII.
 */
const PLAIN_SAFE = lazy(() => /^[\p{L}\p{M}_][\p{L}\p{M}\p{N} _.,()/+@'-]*$/u)
/** The same for ASCII text: the letters, marks and digits of ASCII are A-Z, a-z and 0-9. */
const PLAIN_SAFE_ASCII = /^[A-Za-z_][A-Za-z0-9 _.,()/+@'-]*$/
const ASCII = /^[\x00-\x7f]*$/
const YAML_WORDS = /^(y|yes|n|no|true|false|on|off|null)$/i

const plainSafe = (text: string): boolean => (ASCII.test(text) ? PLAIN_SAFE_ASCII : PLAIN_SAFE()).test(text) && !/\s$/.test(text) && !YAML_WORDS.test(text)

/** Characters left raw inside double quotes by the `yaml` package that some readers treat as line breaks or strip. */
export const INVISIBLE = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g

export const hex4 = (char: string): string => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`

/**
 * YAML for `fields`, in their order. A string is written plain only when {@link plainSafe}; every
 * other string is double-quoted with escapes. Flat fields of the common kinds are written directly
 * ({@link flatFrontmatter}); anything else goes through the `yaml` package and is parsed back as
 * YAML 1.2 and 1.1, which must give `fields` again (anything else is a bug and throws).
 */
export const frontmatterYaml = (fields: Record<string, unknown>): string => flatFrontmatter(fields) ?? frontmatterByLibrary(fields)

export const frontmatterByLibrary = (fields: Record<string, unknown>): string => {
  const {Document, parse, visit} = yaml()
  const doc = new Document(fields)
  visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'string') return
      node.type = plainSafe(node.value) ? 'PLAIN' : 'QUOTE_DOUBLE'
    },
  })
  // no folding: every value stays on its own line, escapes and all, for line-based readers
  const text = doc.toString({lineWidth: 0, minContentWidth: 0, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER}).replace(INVISIBLE, hex4)
  for (const version of ['1.2', '1.1'] as const) {
    if (!sameJson(parse(text, {version}), fields)) throw new Error(`internal error: subagent frontmatter does not read back as written (YAML ${version})`)
  }
  return text
}

const FLAT_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/
/**
 * Printable text needing no escape beyond `"` and `\`: no control characters, none of
 * {@link INVISIBLE}, no surrogates (astral characters) and no noncharacters U+FFFE, U+FFFF.
 */
const QUOTABLE = /^[\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd]*$/
const HAS_INVISIBLE = new RegExp(INVISIBLE.source)

const flatScalar = (value: unknown): string | undefined => {
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined
  if (typeof value !== 'string') return undefined
  if (plainSafe(value)) return value
  // a JSON string of such text is a YAML double-quoted scalar with the same escapes in 1.1 and 1.2
  return QUOTABLE.test(value) && !HAS_INVISIBLE.test(value) ? JSON.stringify(value) : undefined
}

/**
 * The frontmatter of `fields` when every key is a plain word and every value a boolean, a safe
 * integer or a string of {@link QUOTABLE} text, written as the `yaml` package writes them (the
 * tests compare the two), without loading it (~25 ms of an install); undefined for anything else.
 */
export const flatFrontmatter = (fields: Record<string, unknown>): string | undefined => {
  let text = ''
  for (const [key, value] of Object.entries(fields)) {
    const scalar = FLAT_KEY.test(key) && !YAML_WORDS.test(key) ? flatScalar(value) : undefined
    if (scalar === undefined) return undefined
    text += `${key}: ${scalar}\n`
  }
  return text === '' ? undefined : text
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, item]) => [key, sortKeys(item)]),
    )
  }
  return value
}
