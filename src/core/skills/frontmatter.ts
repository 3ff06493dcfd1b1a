import {parseDocument} from 'yaml'

export type FrontmatterSplit =
  | {kind: 'ok'; yaml: string; body: string; bodyStart: number}
  | {kind: 'missing'}
  | {kind: 'not-at-start'}
  | {kind: 'unclosed'}

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
