import {closeSync, constants, fstatSync, lstatSync, openSync} from 'node:fs'
import {errnoCode} from '../../model/errors.js'
import {resolvesInside, safeRealpath} from '../fs/contain.js'
import {problem, type Problem} from '../../model/problems.js'
import {parseYamlMapping, splitFrontmatter} from '../text/frontmatter.js'
import type {SubagentFormat} from '../targets/types.js'
import {layoutOf, textFile} from './layout.js'
import {readOpenFile} from '../fs/read.js'
import {decodeAgentText} from '../fs/utf8.js'
import {smolToml} from '../text/toml-lazy.js'

export const MAX_SUBAGENT_FILE_BYTES = 1024 * 1024

/** One subagent as found in a subagents folder, read without trusting it. */
export interface SubagentOnDisk {
  /** the file name without its suffix, or the folder name (deepagents) */
  name: string
  format: SubagentFormat
  /** the subagent's entry in the folder: its file, or its folder */
  path: string
  /** the file holding its text */
  file: string
  /** the frontmatter (Markdown formats) or the TOML table (Codex) */
  frontmatter?: Record<string, unknown>
  description?: string
  /** the prompt: the Markdown body, or Codex's developer_instructions */
  body: string
  bytes?: number
  /** set when the entry is a symbolic link: where it points */
  linkTarget?: string
  problems: Problem[]
}

type TextRead = {ok: true; text: string; bytes: number} | {ok: false; problem: Problem; bytes?: number}

const unreadable = (file: string, error: unknown): Problem => {
  const code = errnoCode(error)
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error))
  return problem('error', 'subagent-unreadable', `cannot read ${file}: ${why}`, {file})
}

/**
 * Reads a subagent's file: a regular file of at most 1 MB (the size is checked before a byte is
 * read); in a folder layout, a link must stay inside the subagent's folder.
 */
const readText = (file: string, boundary: string | undefined): TextRead => {
  let stat
  try {
    stat = lstatSync(file)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return {ok: false, problem: problem('error', 'subagent-file-missing', `${file} is missing`, {file})}
    return {ok: false, problem: unreadable(file, error)}
  }
  if (stat.isSymbolicLink() && boundary !== undefined && !resolvesInside(boundary, file)) {
    const target = safeRealpath(file) ?? 'a missing target'
    return {ok: false, problem: problem('error', 'subagent-file-link-outside', `${file} is a symbolic link out of its folder (to ${target}); not read`, {file})}
  }
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    return {
      ok: false,
      problem:
        errnoCode(error) === 'ENOENT' ? problem('error', 'subagent-file-missing', `${file} is a link to a missing file`, {file}) : unreadable(file, error),
    }
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return {ok: false, problem: problem('error', 'subagent-file-not-regular', `${file} is not a regular file`, {file})}
    if (info.size > MAX_SUBAGENT_FILE_BYTES) {
      return {
        ok: false,
        bytes: info.size,
        problem: problem('error', 'subagent-file-too-large', `${file} is ${(info.size / 1048576).toFixed(1)} MB; the limit is 1 MB`, {file}),
      }
    }
    const bytes = readOpenFile(fd, info.size)
    const decoded = decodeAgentText(bytes)
    if ('fault' in decoded) return {ok: false, bytes: bytes.length, problem: problem('error', decoded.fault.code, `${file} ${decoded.fault.why}`, {file})}
    return {ok: true, text: decoded.text, bytes: bytes.length}
  } catch (error) {
    return {ok: false, problem: unreadable(file, error)}
  } finally {
    closeSync(fd)
  }
}

interface Parsed {
  frontmatter?: Record<string, unknown>
  body: string
  problems: Problem[]
}

const parseMarkdown = (text: string, file: string): Parsed => {
  const split = splitFrontmatter(text)
  switch (split.kind) {
    case 'missing':
      return {body: text, problems: [problem('error', 'frontmatter-missing', 'has no YAML frontmatter (a "---" block on the first line)', {file})]}
    case 'not-at-start':
      return {
        body: text,
        problems: [
          problem('error', 'frontmatter-not-at-start', 'the frontmatter must open on the very first line (no BOM or blank lines before "---")', {file}),
        ],
      }
    case 'unclosed':
      return {body: '', problems: [problem('error', 'frontmatter-unclosed', 'the frontmatter is never closed by a "---" line', {file})]}
    case 'ok': {
      const yaml = parseYamlMapping(split.yaml)
      if (!yaml.ok) return {body: split.body, problems: [problem('error', yaml.code, yaml.message, {file})]}
      return {frontmatter: yaml.value, body: split.body, problems: []}
    }
  }
}

const parseCodexToml = (text: string, file: string): Parsed => {
  let table: Record<string, unknown>
  try {
    table = smolToml().parse(text) as Record<string, unknown>
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]
    return {body: '', problems: [problem('error', 'toml-invalid', `not valid TOML: ${message}`, {file})]}
  }
  const instructions = table.developer_instructions
  const problems: Problem[] = []
  if (instructions !== undefined && typeof instructions !== 'string') {
    problems.push(problem('error', 'subagent-field-invalid', '"developer_instructions" must be text', {file, path: 'developer_instructions'}))
  }
  // the prompt is the body, not a field to show beside name and description
  const {developer_instructions: _prompt, ...fields} = table
  return {frontmatter: fields, body: typeof instructions === 'string' ? instructions : '', problems}
}

const isStringList = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string')

/** The field rules every reader of the format relies on. */
const checkFields = (fields: Record<string, unknown>, name: string, format: SubagentFormat, file: string): Problem[] => {
  const problems: Problem[] = []
  const bad = (path: string, message: string) => problems.push(problem('error', 'subagent-field-invalid', message, {file, path}))
  const declared = fields.name
  if (declared === undefined) {
    if (format === 'claude-agent-md')
      problems.push(problem('error', 'subagent-name-missing', 'frontmatter "name" is missing (Claude Code requires it)', {file, path: 'name'}))
  } else if (typeof declared !== 'string') {
    bad('name', '"name" must be text')
  } else if (declared !== name) {
    problems.push(
      problem('warning', 'subagent-name-mismatch', `"name" is "${declared}" but the ${layoutOf(format).kind} is named "${name}"`, {file, path: 'name'}),
    )
  }
  const description = fields.description
  if (description === undefined || (typeof description === 'string' && description.trim() === '')) {
    problems.push(
      problem('error', 'subagent-description-missing', '"description" is missing or empty: an agent decides when to delegate from it', {
        file,
        path: 'description',
      }),
    )
  } else if (typeof description !== 'string') {
    bad('description', '"description" must be text')
  }
  if (fields.model !== undefined && typeof fields.model !== 'string') bad('model', '"model" must be text')
  const tools = fields.tools
  if (tools !== undefined) {
    const mapAllowed = format === 'opencode-agent-md'
    const ok = mapAllowed
      ? tools !== null && typeof tools === 'object' && !Array.isArray(tools) && Object.values(tools).every((v) => typeof v === 'boolean')
      : typeof tools === 'string' || isStringList(tools)
    if (!ok) bad('tools', mapAllowed ? '"tools" must map tool names to true or false' : '"tools" must be a comma list or a list of names')
  }
  if (format === 'cst-agent-md') {
    if (fields.readonly !== undefined && typeof fields.readonly !== 'boolean') bad('readonly', '"readonly" must be true or false')
    const steps = fields.max_steps
    if (steps !== undefined && !(typeof steps === 'number' && Number.isInteger(steps) && steps > 0))
      bad('max_steps', '"max_steps" must be a positive whole number')
  }
  return problems
}

/** Reads one subagent entry (its file, or its folder for deepagents) of the given format. */
export const readSubagent = (path: string, name: string, format: SubagentFormat): SubagentOnDisk => {
  const layout = layoutOf(format)
  const file = textFile(path, layout)
  let linkTarget: string | undefined
  try {
    if (lstatSync(path).isSymbolicLink()) linkTarget = safeRealpath(path) ?? 'a missing target'
  } catch {
    // reported when the file cannot be read
  }
  const base = {name, format, path, file, ...(linkTarget ? {linkTarget} : {})}
  const read = readText(file, layout.kind === 'folder' ? path : undefined)
  if (!read.ok) return {...base, body: '', problems: [read.problem], ...(read.bytes === undefined ? {} : {bytes: read.bytes})}
  return {...base, ...parseSubagentText(read.text, name, format, file), bytes: read.bytes}
}

/** Parses a subagent's text in its format and checks its fields; `name` is what the file is called. */
export const parseSubagentText = (
  text: string,
  name: string,
  format: SubagentFormat,
  file: string,
): Pick<SubagentOnDisk, 'frontmatter' | 'description' | 'body' | 'problems'> => {
  const parsed = format === 'codex-agent-toml' ? parseCodexToml(text, file) : parseMarkdown(text, file)
  const problems = [...parsed.problems]
  if (parsed.frontmatter) problems.push(...checkFields(parsed.frontmatter, name, format, file))
  const description = parsed.frontmatter?.description
  return {
    ...(parsed.frontmatter ? {frontmatter: parsed.frontmatter} : {}),
    ...(typeof description === 'string' && description.trim() !== '' ? {description} : {}),
    body: parsed.body,
    problems,
  }
}
