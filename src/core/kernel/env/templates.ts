import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {TEMPLATES_DIR} from './package-root.js'

/**
 * Plain placeholder substitution: `{{key}}` becomes the value, nothing else is interpreted, so text
 * an author typed can never act as template code.
 */
export const renderTemplate = (text: string, values: Readonly<Record<string, string>>): string =>
  text.replace(/\{\{([a-zA-Z][a-zA-Z0-9]*)\}\}/g, (whole, key: string) => (Object.hasOwn(values, key) ? values[key]! : whole))

export interface TemplateFile {
  /** path relative to the template folder, with `/` separators */
  path: string
  text: string
}

/** Every file of `templates/<name>`, read as text, sorted by path. */
export const readTemplate = (name: string, root = TEMPLATES_DIR): TemplateFile[] => {
  const base = join(root, name)
  const files: TemplateFile[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile()) files.push({path: relative(base, full).split('\\').join('/'), text: readFileSync(full, 'utf8')})
    }
  }
  walk(base)
  return files.sort((a, b) => a.path.localeCompare(b.path))
}

/** A YAML scalar that reads back as exactly `value` (a JSON string is valid YAML). */
export const yamlString = (value: string): string => JSON.stringify(value)
