import {validationFailed} from '../../model/errors.js'
import {scanJson} from './scan.js'
import {lineAndColumn} from '../text/text.js'

/** How deep a catalog may nest: `{"plugins": [{"source": {}}]}` is 4 levels. */
export const MAX_JSON_DEPTH = 64

/**
 * Parses untrusted JSON text whose nesting is bounded. Parsers recurse, and so does much of what
 * reads the value afterwards, so a file of 100,000 `[` must be refused before anything parses it
 * (a RangeError is not a message a user can act on). `scanJson` checks the grammar and stops at
 * the first mistake or where nesting passes `maxDepth`, whichever comes first, never recursing
 * deeper than the limit; only text it accepts reaches `JSON.parse`.
 *
 * A byte-order mark at the start is skipped (editors on Windows write one; it carries no data).
 * Throws `catalog-not-json` (naming the file, line and column) or `catalog-too-deep`.
 */
export const parseJsonBounded = (text: string, file: string, maxDepth = MAX_JSON_DEPTH): unknown => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (!nestsDeeperThan(body, maxDepth)) {
    try {
      return JSON.parse(body) as unknown
    } catch {
      // not JSON: the scanner below says where and why
    }
  }
  const mistake = scanJson(body, {}, {maxDepth})
  if (mistake === undefined) {
    try {
      return JSON.parse(body) as unknown
    } catch (error) {
      // The scanner accepts exactly the JSON grammar, so this is not expected; keep V8's word for it.
      throw validationFailed('catalog-not-json', `${file}: not valid JSON: ${(error as Error).message}`, {cause: error})
    }
  }
  const at = lineAndColumn(body, mistake.at)
  if (mistake.tooDeep) {
    throw validationFailed('catalog-too-deep', `${file}: JSON nests more than ${maxDepth} levels deep (at line ${at.line}, column ${at.column})`, {
      suggestions: [`a catalog may nest at most ${maxDepth} arrays and objects inside one another`],
    })
  }
  throw validationFailed('catalog-not-json', `${file}: not valid JSON: ${mistake.message} at line ${at.line}, column ${at.column}`)
}

/**
 * Whether brackets outside strings nest deeper than `maxDepth`: exact for any text `JSON.parse`
 * accepts, so valid JSON reaches it only when shallow enough, without loading the scanner.
 */
export const nestsDeeperThan = (text: string, maxDepth: number): boolean => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // a string: skip to its closing quote, past escapes
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) i++
        else if (d === 0x22) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
