/**
 * A CHARACTOID skill: one YAML file with `name`, `description`, `instructions` (the SKILL.md body)
 * and `tool_names`, which carries the skill's `allowed-tools`. The Agent Skills field is a string of
 * names separated by spaces (Claude Code also takes commas), or a list; a name may carry an argument
 * pattern in parentheses (`Bash(git add:*)`), which is kept whole.
 */
import {yaml} from '../text/yaml-lazy.js'

/** The tool names an `allowed-tools` value gives, in order, each once; undefined when it gives none. */
export const toolNamesOf = (allowed: unknown): string[] | undefined => {
  const words: string[] = []
  if (typeof allowed === 'string') {
    let depth = 0
    let word = ''
    for (const char of allowed) {
      if (char === '(') depth++
      else if (char === ')') depth = Math.max(0, depth - 1)
      if (depth === 0 && (char === ',' || /\s/.test(char))) {
        words.push(word)
        word = ''
      } else word += char
    }
    words.push(word)
  } else if (Array.isArray(allowed)) {
    for (const item of allowed) if (typeof item === 'string') words.push(item)
  }
  const names = [...new Set(words.map((w) => w.trim()).filter(Boolean))]
  return names.length > 0 ? names : undefined
}

export interface CharacteroidSkill {
  name: string
  description: string
  instructions: string
  /** the skill's `allowed-tools`, as its frontmatter gives it */
  allowedTools?: unknown
}

export const renderCharacteroidSkill = (skill: CharacteroidSkill): string => {
  const toolNames = toolNamesOf(skill.allowedTools)
  const fields = {
    name: skill.name,
    description: skill.description,
    instructions: `${skill.instructions.trim()}\n`,
    ...(toolNames ? {tool_names: toolNames} : {}),
  }
  return yaml().stringify(fields, {lineWidth: 0})
}
