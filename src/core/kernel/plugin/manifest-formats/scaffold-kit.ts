/**
 * What `plugin create` and each format's scaffold share: the parts a plugin can be made with, the
 * input, and the small pieces every manifest starts from (metadata, the author, display text).
 */
export const PLUGIN_PARTS = ['skills', 'agents', 'hooks', 'mcp', 'commands', 'tools'] as const
export type PluginPart = (typeof PLUGIN_PARTS)[number]

/** A manifest format's id (`claude`, `codex`, ...): the formats are listed in src/core/manifest-formats/. */
export type PluginFormat = string

export interface PluginAuthor {
  name: string
  email?: string
}

export interface ScaffoldInput {
  name: string
  description: string
  author?: PluginAuthor
  parts: readonly PluginPart[]
  formats: readonly PluginFormat[]
}

export const VERSION = '0.1.0'

export const title = (name: string): string =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ')

/** The first sentence of the description, at most 128 characters: Codex shows it as a subtitle. */
export const shortDescription = (description: string): string => {
  const sentence = /^(.+?[.!?])(\s|$)/s.exec(description)?.[1] ?? description
  const flat = sentence.replace(/\s+/g, ' ').trim()
  return [...flat].length <= 128 ? flat : `${[...flat].slice(0, 125).join('')}...`
}

export const has = (input: ScaffoldInput, part: PluginPart): boolean => input.parts.includes(part)

/** True when `format` is the only format asked for. */
export const alone = (input: ScaffoldInput, format: PluginFormat): boolean => input.formats.length === 1 && input.formats[0] === format

export const authorObject = (author: PluginAuthor) => ({name: author.name, ...(author.email ? {email: author.email} : {})})

export const metadata = (input: ScaffoldInput) => ({name: input.name, version: VERSION, description: input.description})
