import {existsSync} from 'node:fs'
import {isAbsolute, resolve} from 'node:path'
import type {InstallRecord, RecordedConfigEdit} from '../../kernel/state/records.js'
import {PROJECT_DIR} from '../../kernel/env/environment.js'

/**
 * The plugin files an installed MCP server or hook runs, as its config names them, that do not exist
 * here. Agent files committed by mistake point into the HOME or project folder of whoever installed
 * them; on another machine they look "as written" while every command points at nothing, so verify
 * and "already installed" must see the missing files, not only the unchanged config entry.
 *
 * Checked: `${CLAUDE_PROJECT_DIR}/...` (against the project root), `.loadout/...` (project-relative),
 * and absolute paths into an installed copy (a plugins folder's `<plugin>/<revision>`), wherever the
 * data folder was on the machine that wrote them. Other words of a command (`npx`, `/usr/bin/env`,
 * flags) are the agent's and the user's business.
 */

const PROJECT_VARS = ['${CLAUDE_PROJECT_DIR}', '$CLAUDE_PROJECT_DIR']

/** A path into an installed copy: `.../plugins/<marketplace>/<plugin>/<revision>` or `.../plugins/<plugin@marketplace>/<revision>`. */
const INSTALLED_COPY = /\/plugins\/[^/]+\/(?:[^/]+\/)?[0-9a-f]{16}(?:\/|$)/

/** The project root of a project record: four folders above its copy at `.loadout/plugins/<id>/<rev>`. */
const projectRootOf = (record: InstallRecord): string | undefined =>
  record.scope === 'project' && record.pluginRoot ? resolve(record.pluginRoot, '..', '..', '..', '..') : undefined

const commandWords = (edit: RecordedConfigEdit): string[] => {
  const words: string[] = []
  const add = (value: unknown) => {
    if (typeof value === 'string') words.push(...value.split(/\s+/))
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') words.push(v)
  }
  if (edit.addedHooks) {
    for (const groups of Object.values(edit.addedHooks))
      for (const group of groups) for (const hook of (group as {hooks?: Array<{command?: unknown}>}).hooks ?? []) add(hook.command)
  } else if (edit.value && typeof edit.value === 'object') {
    const v = edit.value as {command?: unknown; args?: unknown}
    add(v.command)
    add(v.args)
  }
  return words.map((w) => w.replace(/^["']+|["';]+$/g, '')).filter(Boolean)
}

const fileNamed = (word: string, projectRoot: string | undefined): string | undefined => {
  const variable = PROJECT_VARS.find((v) => word.startsWith(`${v}/`))
  if (variable) return projectRoot ? resolve(projectRoot, word.slice(variable.length + 1)) : undefined
  if (word.startsWith(`${PROJECT_DIR}/`) || word.startsWith(`./${PROJECT_DIR}/`)) return projectRoot ? resolve(projectRoot, word) : undefined
  if (isAbsolute(word) && INSTALLED_COPY.test(word)) return word
  return undefined
}

export const missingCommandFiles = (record: InstallRecord): string[] => {
  const root = projectRootOf(record)
  const missing: string[] = []
  for (const edit of record.config) {
    for (const word of commandWords(edit)) {
      const file = fileNamed(word, root)
      if (file && !existsSync(file)) missing.push(`${edit.file} ${[...edit.path, edit.key].filter(Boolean).join('.')}: runs ${word}, which does not exist`)
    }
  }
  return [...new Set(missing)]
}
