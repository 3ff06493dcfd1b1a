/**
 * The plugins a marketplace holds, checked as `plugin validate` checks them: a `./` entry whose
 * folder exists is validated with the same plugin rules, and each problem is reported under the
 * entry's JSON path. The containment rule `install` applies (no symbolic link as the plugin folder
 * or on its way, `source-through-link`) is an error here too.
 */
import {relative, resolve, sep} from 'node:path'
import {followInsideRoot} from '../../kernel/fs/contain.js'
import {validatePlugin} from './plugin-validate.js'
import type {Problem} from '../../model/problems.js'

/** One plugin folder a catalog entry points at (it exists and is a folder inside the marketplace). */
export interface EntryFolder {
  /** the catalog file, relative to the marketplace root */
  file: string
  /** the JSON path of the entry, e.g. `plugins[2]` */
  at: string
  /** the JSON path of its source path */
  pathAt: string
  /** the source path as written */
  shown: string
  abs: string
}

const shownPath = (root: string, abs: string): string => relative(root, abs).split(sep).join('/') || '.'

/** The problems of every entry's plugin folder; a folder listed twice is validated once, reported for each entry. */
export const checkEntryFolders = async (root: string, folders: readonly EntryFolder[], strict: boolean): Promise<Problem[]> => {
  const problems: Problem[] = []
  const cache = new Map<string, Awaited<ReturnType<typeof validatePlugin>>>()
  for (const folder of folders) {
    const followed = followInsideRoot(root, resolve(folder.abs))
    if (!('path' in followed)) {
      problems.push({
        severity: 'error',
        code: followed.code,
        message: `${folder.at}: ${folder.shown} goes through ${followed.why}, so install refuses it`,
        file: folder.file,
        path: folder.pathAt,
      })
      continue
    }
    let validation = cache.get(followed.path)
    if (!validation) {
      validation = await validatePlugin(followed.path, {strict})
      cache.set(followed.path, validation)
    }
    const pluginDir = shownPath(root, validation.path)
    for (const p of validation.problems) {
      // the catalog entry stands for the manifest (as Claude Code reads an entry with strict: false)
      if (p.code === 'manifest-missing') continue
      const where = !p.file || p.file === '.' ? pluginDir : pluginDir === '.' ? p.file : `${pluginDir}/${p.file}`
      problems.push({
        severity: p.severity,
        code: p.code,
        message: `${folder.at} (${folder.shown}): ${where}${p.path ? ` ${p.path}` : ''}: ${p.message}`,
        file: folder.file,
        path: folder.at,
      })
    }
  }
  return problems
}
