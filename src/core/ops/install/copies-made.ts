/**
 * The user-scope plugin copies this run made or kept, with what a read of each gives: an install into
 * an agent with a start-up budget counts at once what that agent will list, the copy just made among
 * it, and reading the copy again is a walk and checks of its whole tree (~8 ms a plugin). Such a copy
 * holds the bytes its source was read from (plugin-copy.ts refuses any other), so the read of the
 * source, its paths moved to the copy, is the read of the copy. Only this process's copies, under
 * the integrity the copy was made to.
 */
import {sep} from 'node:path'
import type {PluginModel} from '../../model/plugin.js'
import {sameSkillAsRead} from '../../kernel/plugin/collect.js'

const made = new Map<string, {integrity: string; view: PluginModel}>()

/** The copy at `root` was made (or kept) with the files of integrity `integrity`, read as `view`. */
export const copyMade = (root: string, integrity: string, view: PluginModel): void => {
  made.set(root, {integrity, view})
}

/** The items with the path under `key` moved from the source `from` to the copy `to`; undefined when one lies outside the source. */
const moveAll = <K extends string, T extends Record<K, string>>(items: readonly T[], key: K, from: string, to: string): T[] | undefined => {
  const out: T[] = []
  for (const item of items) {
    const path = item[key]
    if (path === from) out.push({...item, [key]: to})
    else if (path.startsWith(`${from}${sep}`)) out.push({...item, [key]: `${to}${path.slice(from.length)}`})
    else return undefined
  }
  return out
}

/**
 * The skills, commands and subagents (name, path in the copy, frontmatter) of the copy this run made
 * at `root` with `integrity`, or undefined for any other copy.
 */
export const madeCopyParts = (root: string, integrity: string | undefined): Pick<PluginModel, 'name' | 'skills' | 'commands' | 'subagents'> | undefined => {
  const copy = made.get(root)
  if (!copy || copy.integrity !== integrity) return undefined
  const {view} = copy
  const skills = moveAll(view.skills, 'dir', view.root, root)
  // the copy holds the bytes the view was read from (the same integrity): its skills read as the view's did
  skills?.forEach((skill, i) => sameSkillAsRead(view.skills[i]!, skill))
  const commands = moveAll(view.commands, 'file', view.root, root)
  const subagents = moveAll(view.subagents, 'file', view.root, root)
  return skills && commands && subagents ? {name: view.name, skills, commands, subagents} : undefined
}
