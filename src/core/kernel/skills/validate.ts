import {problem, type Problem} from '../../model/problems.js'
import type {SkillDialect} from '../targets/types.js'
import {splitFrontmatter, parseYamlLeniently, type YamlMapping} from '../text/frontmatter.js'
import {checkSkillName} from './name.js'

export const MAX_DESCRIPTION = 1024
export const MAX_COMPATIBILITY = 500

/** Fields of the Agent Skills specification, plus `disable-model-invocation` (Lexora, Claude Code). */
export const KNOWN_FIELDS = new Set(['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools', 'disable-model-invocation'])

export interface ParsedSkill {
  name?: string
  description?: string
  frontmatter?: YamlMapping
  body: string
  /** true when the skill had no frontmatter and was read by the cst-agent fallback */
  fallback: boolean
  problems: Problem[]
}

/** What strict YAML rejects but the agents read: said by every reader of frontmatter. */
export const lenientMessage = (keys: readonly string[]): string =>
  `frontmatter is not strict YAML: ${keys.map((k) => `"${k}"`).join(', ')} ${keys.length === 1 ? 'is' : 'are'} read as plain text, as the agents read it; quote the value (an unquoted ": " starts a nested mapping in YAML)`

const firstProseLine = (text: string): string | undefined =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0 && !l.startsWith('#'))

/** Length in characters (code points), as the specification counts, not UTF-16 code units. */
const charCount = (text: string): number => [...text].length

const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value)

/**
 * Reads SKILL.md text to the Agent Skills specification. `folder` is the skill folder's name, which
 * the `name` field must equal. Every rule broken becomes a problem naming `file`.
 */
export const parseSkillText = (text: string, folder: string, file: string, dialect: SkillDialect = 'spec'): ParsedSkill => {
  const problems: Problem[] = []
  const err = (code: string, message: string) => problems.push(problem('error', code, message, {file}))
  const warn = (code: string, message: string) => problems.push(problem('warning', code, message, {file}))

  const split = splitFrontmatter(text)
  if (split.kind === 'missing') {
    if (dialect === 'cst-agent') {
      warn('frontmatter-missing-fallback', 'no frontmatter: cst-agent uses the folder name and the first non-heading line')
      const description = firstProseLine(text)
      if (!description) err('description-missing', 'no frontmatter and no line of text to use as the description')
      return {name: folder, description, body: text, fallback: true, problems}
    }
    err('frontmatter-missing', 'SKILL.md must start with YAML frontmatter between --- lines')
    return {body: text, fallback: false, problems}
  }
  if (split.kind === 'not-at-start') {
    err('frontmatter-not-at-start', 'the frontmatter must open with --- on the very first line (byte 0)')
    return {body: text, fallback: false, problems}
  }
  if (split.kind === 'unclosed') {
    err('frontmatter-unclosed', 'the frontmatter opens with --- but never closes with a --- line')
    return {body: text, fallback: false, problems}
  }
  const parsed = parseYamlLeniently(split.yaml)
  if (!parsed.ok) {
    err(parsed.code, parsed.message)
    return {body: split.body, fallback: false, problems}
  }
  if (parsed.lenientKeys) err('frontmatter-yaml-lenient', lenientMessage(parsed.lenientKeys))
  const fm = parsed.value
  const result: ParsedSkill = {frontmatter: fm, body: split.body, fallback: false, problems}

  if (!('name' in fm)) err('name-missing', 'the required field "name" is missing')
  else if (typeof fm.name !== 'string') err('name-not-string', `"name" must be a string, not ${typeName(fm.name)}`)
  else {
    result.name = fm.name
    const broken = checkSkillName(fm.name)
    if (broken) err(broken.code, broken.message)
    else if (fm.name.normalize('NFKC') !== folder.normalize('NFKC')) {
      err('name-folder-mismatch', `name "${fm.name}" must equal its folder name "${folder}"`)
    }
  }

  if (!('description' in fm)) err('description-missing', 'the required field "description" is missing')
  else if (typeof fm.description !== 'string') err('description-not-string', `"description" must be a string, not ${typeName(fm.description)}`)
  else if (fm.description.trim().length === 0) err('description-empty', '"description" is empty')
  else {
    result.description = fm.description
    const length = charCount(fm.description)
    if (length > MAX_DESCRIPTION) {
      err('description-too-long', `"description" is ${length} characters; the limit is ${MAX_DESCRIPTION}`)
    }
  }

  if ('compatibility' in fm) {
    if (typeof fm.compatibility !== 'string') err('compatibility-not-string', `"compatibility" must be a string, not ${typeName(fm.compatibility)}`)
    else if (charCount(fm.compatibility) > MAX_COMPATIBILITY) {
      err('compatibility-too-long', `"compatibility" is ${charCount(fm.compatibility)} characters; the limit is ${MAX_COMPATIBILITY}`)
    }
  }
  if ('license' in fm && typeof fm.license !== 'string') err('license-not-string', `"license" must be a string, not ${typeName(fm.license)}`)
  if ('metadata' in fm) {
    const metadata = fm.metadata
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      err('metadata-not-map', `"metadata" must be a map of strings, not ${typeName(metadata)}`)
    } else {
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value !== 'string') err('metadata-value-not-string', `metadata "${key}" must be a string, not ${typeName(value)}`)
      }
    }
  }
  if ('allowed-tools' in fm) {
    const tools = fm['allowed-tools']
    const ok = typeof tools === 'string' || (Array.isArray(tools) && tools.every((t) => typeof t === 'string'))
    if (!ok) err('allowed-tools-invalid', `"allowed-tools" must be a space-separated string (or a list of strings), not ${typeName(tools)}`)
  }
  if ('disable-model-invocation' in fm && typeof fm['disable-model-invocation'] !== 'boolean') {
    err('disable-model-invocation-not-boolean', `"disable-model-invocation" must be true or false`)
  }
  for (const key of Object.keys(fm)) {
    if (!KNOWN_FIELDS.has(key)) warn('field-unknown', `unknown field "${key}" (the specification knows ${[...KNOWN_FIELDS].join(', ')})`)
  }
  return result
}
