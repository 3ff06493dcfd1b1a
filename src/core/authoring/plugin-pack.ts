/**
 * `plugin pack --format lexora`: Lexora hosts install packages themselves, so loadout writes the
 * package archive they take instead of writing any folder. The plugin must pass `plugin validate`
 * in its Lexora form first; the archive holds every regular file of the package under `package/`,
 * bytes and relative paths as they are (no `.git`, no `node_modules`), and refuses links.
 */
import {lstatSync, readdirSync} from 'node:fs'
import {join, relative, resolve, sep} from 'node:path'
import {create} from 'tar'
import {usageError, validationFailed} from '../errors.js'
import {fileSha256Sync} from '../install/hash.js'
import {validatePlugin} from './plugin-validate.js'

export interface PackOptions {
  format: 'lexora'
  /** the folder the archive is written to */
  outDir: string
  home?: string
}

export interface PackResult {
  format: 'lexora'
  plugin: string
  archive: string
  files: number
  sha256: string
}

const SKIPPED = new Set(['.git', 'node_modules'])

/** Every regular file below `root`, relative, sorted; a link or special file is refused. */
const packageFiles = (root: string): string[] => {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (SKIPPED.has(name)) continue
      const full = join(dir, name)
      const stat = lstatSync(full)
      if (stat.isDirectory()) walk(full)
      else if (stat.isFile()) files.push(relative(root, full).split(sep).join('/'))
      else throw validationFailed('pack-not-regular', `${relative(root, full)} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; a Lexora package holds regular files only`)
    }
  }
  walk(root)
  return files
}

export const packPlugin = async (path: string, options: PackOptions): Promise<PackResult> => {
  const root = resolve(path)
  const validation = await validatePlugin(root, options.home ? {home: options.home} : {})
  if (!validation.formats.includes('lexora')) {
    throw usageError('pack-not-lexora', `${root} has no Lexora manifest (a package.json or plugin.json with "contributes")`, {suggestions: [`make one: loadout plugin convert ${path} --to lexora`]})
  }
  const errors = validation.problems.filter((p) => p.severity === 'error')
  if (errors.length > 0) {
    throw validationFailed('pack-invalid', `plugin "${validation.name}" has ${errors.length} error(s); a package is packed only when it passes validation`, {
      suggestions: [`loadout plugin validate ${path}`],
      details: {problems: validation.problems},
    })
  }
  const files = packageFiles(root)
  const archive = join(resolve(options.outDir), `${validation.name}.tgz`)
  await create({gzip: true, file: archive, cwd: root, portable: true, noMtime: true, prefix: 'package/'}, files)
  return {format: 'lexora', plugin: validation.name, archive, files: files.length, sha256: fileSha256Sync(archive)}
}
