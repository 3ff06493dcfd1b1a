/**
 * The naming rules for marketplaces and the plugins they list. Each check returns the rule a name
 * breaks, phrased to follow the quoted name (`marketplace name "Acme" ${rule}`), or undefined.
 * The most specific rule is reported first, so a user learns what to change rather than the
 * whole alphabet of allowed characters.
 */

import {nfkcRule} from './name-skeleton.js'

export const MAX_NAME = 64

const MARKETPLACE_CHARS = /^[a-z0-9._-]+$/
const PLUGIN_CHARS = /^[a-z0-9-]+$/
const WHITESPACE = /\s/
const UPPERCASE = /[A-Z]/

const lengthRule = (name: string): string | undefined => {
  if (name.length === 0) return 'is empty'
  if (name.length > MAX_NAME) return `is ${name.length} characters long; the limit is ${MAX_NAME}`
  return undefined
}

/** Lowercase letters, digits, `-`, `.`, `_`; no `/`, `\`, `..`, `@`, whitespace; 1-64; no leading `.` or `-`. */
export const checkMarketplaceName = (name: string): string | undefined => {
  const length = lengthRule(name)
  if (length) return length
  if (WHITESPACE.test(name)) return 'contains whitespace'
  if (name.includes('/') || name.includes('\\')) return 'contains a path separator (/ or \\)'
  if (name.includes('@')) return 'contains "@", which separates a plugin from its marketplace'
  if (name.includes('..')) return 'contains ".."'
  if (name.startsWith('.') || name.startsWith('-')) return `starts with "${name.charAt(0)}"`
  if (UPPERCASE.test(name)) return 'has upper-case letters; use lowercase letters, digits, "-", "." and "_"'
  if (!MARKETPLACE_CHARS.test(name)) return 'may hold only lowercase letters, digits, "-", "." and "_"'
  return undefined
}

/** Kebab-case: lowercase letters and digits in words joined by single hyphens; 1-64 characters. */
export const checkPluginName = (name: string): string | undefined => {
  const length = lengthRule(name)
  if (length) return length
  const notNormal = nfkcRule(name)
  if (notNormal) return notNormal
  if (name.includes('/') || name.includes('\\')) return 'contains a path separator (/ or \\)'
  if (name.includes('..')) return 'contains ".."'
  if (WHITESPACE.test(name)) return 'contains whitespace; use kebab-case (lowercase words joined by "-")'
  if (UPPERCASE.test(name)) return 'has upper-case letters; use kebab-case (lowercase words joined by "-")'
  if (!PLUGIN_CHARS.test(name)) return 'may hold only lowercase letters, digits and "-" (kebab-case)'
  if (name.startsWith('-') || name.endsWith('-')) return 'starts or ends with "-"'
  if (name.includes('--')) return 'has two hyphens in a row'
  return undefined
}
