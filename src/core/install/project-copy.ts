import {existsSync, mkdirSync, rmSync} from 'node:fs'
import {dirname} from 'node:path'
import {assertNoLinksBelow} from '../fs/contain.js'
import {copyTree} from '../fs/copy.js'
import {stagingDirFor, swapDirectoryIn} from '../fs/write.js'
import {treeIntegrity} from '../integrity.js'

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
