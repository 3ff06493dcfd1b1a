/**
 * `plugin pack --format <id>`: some hosts (Lexora's) install packages themselves, so loadout writes
 * the package archive they take instead of writing any folder. The plugin must pass `plugin
 * validate` in that format first; the archive holds every regular file of the package under `package/`,
 * bytes and relative paths as they are (no `.git`, no `node_modules`), and refuses links.
 */
import {lstatSync, readdirSync, statSync} from 'node:fs'
import {join, relative, resolve, sep} from 'node:path'
import {create} from 'tar'
import {notFound, usageError, validationFailed} from '../../model/errors.js'
import {fileSha256Sync} from '../../kernel/fs/integrity.js'
import {MANIFEST_FORMATS} from '../../kernel/plugin/manifest-formats/index.js'
import {validatePlugin} from './plugin-validate.js'

/** The formats whose hosts take a package archive. */
export const PACK_FORMATS: readonly string[] = MANIFEST_FORMATS.filter((f) => f.packs).map((f) => f.id)

export interface PackOptions {
  /** one of PACK_FORMATS */
  format: string
  /** the folder the archive is written to */
  outDir: string
  home?: string
}

export interface PackResult {
  format: string
  plugin: string
  archive: string
  files: number
  sha256: string
}

const SKIPPED = new Set(['.git', 'node_modules'])

/** Every regular file below `root`, relative, sorted; a link or special file is refused (`what` names the package in the error). */
export const packageFiles = (root: string, what: string): string[] => {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (SKIPPED.has(name)) continue
      const full = join(dir, name)
      const stat = lstatSync(full)
      if (stat.isDirectory()) walk(full)
      else if (stat.isFile()) files.push(relative(root, full).split(sep).join('/'))
      else
        throw validationFailed(
          'pack-not-regular',
          `${relative(root, full)} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; ${what} holds regular files only`,
        )
    }
  }
  walk(root)
  return files
}

/** Like `npm pack --pack-destination`, the folder must exist already: a typo is not silently made into a folder. */
const checkOutDir = (outDir: string): void => {
  const stat = statSync(outDir, {throwIfNoEntry: false})
  if (stat?.isDirectory()) return
  throw notFound('pack-out-missing', `${outDir} ${stat ? 'is not a folder' : 'does not exist'}; the archive is written into an existing folder`, {
    suggestions: stat ? ['give --out a folder'] : [`create it first: mkdir -p ${outDir}`],
  })
}

export const packPlugin = async (path: string, options: PackOptions): Promise<PackResult> => {
  const root = resolve(path)
  checkOutDir(resolve(options.outDir))
  const format = MANIFEST_FORMATS.find((f) => f.id === options.format && f.packs)
  if (!format) throw usageError('bad-format', `unknown --format "${options.format}"`, {suggestions: [`choose one of ${PACK_FORMATS.join(', ')}`]})
  const validation = await validatePlugin(root, options.home ? {home: options.home} : {})
  if (!validation.formats.includes(format.id)) {
    throw usageError(`pack-not-${format.id}`, `${root} has no ${format.name} manifest (${format.packs!.manifest})`, {
      suggestions: [`make one: loadout plugin convert ${path} --to ${format.id}`],
    })
  }
  const errors = validation.problems.filter((p) => p.severity === 'error')
  if (errors.length > 0) {
    throw validationFailed('pack-invalid', `plugin "${validation.name}" has ${errors.length} error(s); a package is packed only when it passes validation`, {
      suggestions: [`loadout plugin validate ${path}`],
      details: {problems: validation.problems},
    })
  }
  const files = packageFiles(root, `a ${format.name} package`)
  const archive = join(resolve(options.outDir), `${validation.name}.tgz`)
  await create({gzip: true, file: archive, cwd: root, portable: true, noMtime: true, prefix: 'package/'}, files)
  return {format: format.id, plugin: validation.name, archive, files: files.length, sha256: fileSha256Sync(archive)}
}
