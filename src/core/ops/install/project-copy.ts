import {existsSync, mkdirSync, readdirSync, rmSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {assertNoLinksBelow} from '../../kernel/fs/contain.js'
import {copyTree} from '../../kernel/fs/copy.js'
import {stagingDirFor, swapDirectoryIn} from '../../kernel/fs/write.js'
import {treeIntegrity} from '../../kernel/fs/integrity.js'
import {PROJECT_DIR} from '../../kernel/env/environment.js'
import {projectCopiesOf} from './project-root.js'
import type {Guard} from '../../kernel/state/transaction.js'

/**
 * Puts a project-scope plugin's installed copy in place under the project's `.loadout/` folder.
 * That folder sits in a checkout someone else may have filled (a committed `.loadout/`, a link):
 * nothing is written through a link, and an existing copy is kept only when its content is exactly
 * the fetched, checked tree; anything else is replaced.
 */
export const placeProjectCopy = async (projectRoot: string, from: string, to: string, integrity: string): Promise<void> => {
  assertNoLinksBelow(projectRoot, to)
  if (existsSync(to) && (await treeIntegrity(to).catch(() => '')) === integrity) return
  mkdirSync(dirname(to), {recursive: true})
  const staging = stagingDirFor(to)
  try {
    copyTree(from, staging)
    swapDirectoryIn(staging, to, existsSync(to))
  } catch (error) {
    rmSync(staging, {recursive: true, force: true})
    throw error
  }
}

/**
 * Removes the project-scope copies of `id` that no record names any more (an update's old revision,
 * everything once it is uninstalled), so `.loadout/` holds only what the lock uses. Through the
 * run's guard: a rollback puts them back.
 */
export const pruneProjectCopies = (
  projectRoot: string,
  id: string,
  records: readonly {plugin: string; scope: string; pluginRoot?: string; dirs?: readonly string[]}[],
  guard: Pick<Guard, 'remove' | 'pruneLater'>,
): void => {
  const folder = projectCopiesOf(projectRoot, id)
  if (!existsSync(folder)) return
  assertNoLinksBelow(projectRoot, folder)
  const mine = records.filter((r) => r.plugin === id && r.scope === 'project')
  // a copy a native plugin is offered without its parts off is one of the folders its record made
  const used = new Set([...mine.flatMap((r) => (r.pluginRoot ? [r.pluginRoot] : [])), ...mine.flatMap((r) => r.dirs ?? [])].map((d) => resolve(d)))
  for (const revision of readdirSync(folder)) {
    // a revision never starts with a dot: `.claude-plugin` is a native plugin's catalog, recorded on its own
    if (revision.startsWith('.')) continue
    const path = join(folder, revision)
    if (!used.has(path)) guard.remove(path)
  }
  guard.pruneLater(folder, 'dir')
  // and the folders above it, once nothing else is in them: the last uninstall leaves no `.loadout/plugins`
  guard.pruneLater(dirname(folder), 'dir')
  guard.pruneLater(join(projectRoot, PROJECT_DIR), 'dir')
}
