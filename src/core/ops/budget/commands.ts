import {readdirSync, readFileSync, statSync} from 'node:fs'
import {surelyMissing} from '../../kernel/fs/exists.js'
import {basename, join, relative} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import {parseYamlLeniently, splitFrontmatter} from '../../kernel/text/frontmatter.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget, CommandFormat} from '../../kernel/targets/types.js'

/** One slash command in an agent's commands folder, with the description the agent lists. */
export interface CommandOnDisk {
  name: string
  scope: Scope
  path: string
  description: string
}

/** A command file bigger than this is not read for its description (an agent would not list it whole either). */
const MAX_COMMAND_BYTES = 1024 * 1024

const EXTENSIONS: Record<CommandFormat, RegExp> = {markdown: /\.md$/, 'copilot-prompt': /\.prompt\.md$/, 'gemini-toml': /\.toml$/}

/** Markdown: the frontmatter's `description`, else the first line of text (as Claude Code lists it); TOML: `description = "…"`. */
export const describeCommand = (text: string, format: CommandFormat): string => {
  if (format === 'gemini-toml') {
    const line = /^description\s*=\s*"((?:[^"\\]|\\.)*)"/m.exec(text)
    return line ? line[1]! : ''
  }
  const split = splitFrontmatter(text)
  if (split.kind === 'ok') {
    const parsed = parseYamlLeniently(split.yaml)
    const description = parsed.ok ? parsed.value.description : undefined
    if (typeof description === 'string') return description
  }
  const body = split.kind === 'ok' ? split.body : text
  return (
    body
      .split('\n')
      .find((l) => l.trim() !== '' && l.trim() !== '---')
      ?.trim() ?? ''
  )
}

/** Files below a folder, one level of sub-folders deep (Claude Code namespaces commands by sub-folder); links are not followed. */
const commandFiles = (dir: string, pattern: RegExp): string[] => {
  const out: string[] = []
  const walk = (folder: string, depth: number) => {
    let entries
    // most agents' command folders do not exist: asked, not thrown
    if (surelyMissing(folder)) return
    try {
      entries = readdirSync(folder, {withFileTypes: true})
    } catch {
      return
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.name.startsWith('.')) continue
      const full = join(folder, entry.name)
      if (entry.isDirectory() && depth === 0) walk(full, 1)
      else if (entry.isFile() && pattern.test(entry.name)) out.push(full)
    }
  }
  walk(dir, 0)
  return out
}

/** Every slash command each scope's commands folder of the agent holds, hand-made or installed. */
export const scanCommands = (target: AgentTarget, env: Environment, context: ScopeContext, scopes: readonly Scope[]): CommandOnDisk[] => {
  const section = target.commands
  if (!section) return []
  const pattern = EXTENSIONS[section.format]
  return sectionLocations(target, 'commands', env, context, scopes).flatMap((location) =>
    commandFiles(location.absolute, pattern).flatMap((path): CommandOnDisk[] => {
      try {
        if (statSync(path).size > MAX_COMMAND_BYTES) return []
        const name = relative(location.absolute, path).replace(pattern, '').split('/').join(':') || basename(path)
        return [{name, scope: location.scope, path, description: describeCommand(readFileSync(path, 'utf8'), section.format)}]
      } catch {
        return []
      }
    }),
  )
}
