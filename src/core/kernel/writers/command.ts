/**
 * Slash commands (a plugin's `commands/*.md`) in each agent's own form, one writer per format:
 *  - `markdown`: the file as it is (Claude Code, Cursor, OpenCode, Codex prompts);
 *  - `gemini-toml`: Gemini CLI's `<name>.toml` with `description` and `prompt`, `$ARGUMENTS` -> `{{args}}`;
 *  - `copilot-prompt`: a GitHub Copilot `<name>.prompt.md`, its frontmatter cut to the fields
 *    prompt files read, `$ARGUMENTS` -> `${input:args}`.
 */
import {tomlString} from '../agent-config/toml-read.js'
import {parseYamlLeniently, splitFrontmatter} from '../text/frontmatter.js'
import type {CommandFormat} from '../targets/types.js'

export interface RenderedCommand {
  /** the file name inside the agent's commands folder */
  path: string
  content: string
}

const ARGUMENTS = /\$ARGUMENTS\b/g

interface CommandText {
  description?: string
  argumentHint?: string
  body: string
}

const readCommandText = (text: string): CommandText => {
  const split = splitFrontmatter(text)
  if (split.kind !== 'ok') return {body: text}
  const parsed = parseYamlLeniently(split.yaml)
  const fm = parsed.ok ? parsed.value : {}
  return {
    ...(typeof fm.description === 'string' ? {description: fm.description} : {}),
    ...(typeof fm['argument-hint'] === 'string' ? {argumentHint: fm['argument-hint']} : {}),
    body: split.body,
  }
}

const yamlLine = (key: string, value: string) => `${key}: ${JSON.stringify(value)}\n`

const renderers: Record<CommandFormat, (name: string, text: string) => RenderedCommand> = {
  markdown: (name, text) => ({path: `${name}.md`, content: text}),
  'gemini-toml': (name, text) => {
    const command = readCommandText(text)
    const lines = [
      ...(command.description ? [`description = ${tomlString(command.description)}`] : []),
      `prompt = ${tomlString(command.body.replace(ARGUMENTS, '{{args}}').replace(/^\n+/, ''))}`,
    ]
    return {path: `${name}.toml`, content: `${lines.join('\n')}\n`}
  },
  'copilot-prompt': (name, text) => {
    const command = readCommandText(text)
    const fields = [
      ...(command.description ? [yamlLine('description', command.description)] : []),
      ...(command.argumentHint ? [yamlLine('argument-hint', command.argumentHint)] : []),
      yamlLine('mode', 'agent'),
    ]
    return {path: `${name}.prompt.md`, content: `---\n${fields.join('')}---\n\n${command.body.replace(ARGUMENTS, '${input:args}').replace(/^\n+/, '')}`}
  },
}

export const renderCommand = (name: string, text: string, format: CommandFormat): RenderedCommand => renderers[format](name, text)
