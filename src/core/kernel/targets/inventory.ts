/**
 * What the skills and subagents listings share: opening a folder an agent loads from, and placing
 * what it holds in the agent's precedence, where the first of a name wins and later ones are shadowed.
 */
import {lstatSync, readdirSync, type Dirent} from 'node:fs'
import {safeRealpath} from '../fs/contain.js'
import {problem, type Problem} from '../../model/problems.js'
import type {Scope} from '../env/scope.js'
import type {ResolvedLocation} from './resolve.js'

export interface LoadFolder {
  exists: boolean
  /** where the folder points, when it is a symbolic link */
  linkTarget?: string
  problems: Problem[]
  entries: Dirent[]
}

/**
 * Reads a folder an agent loads `noun` from. A link is read (the agent follows it) with a warning
 * that ends in `linkNote`; an unreadable folder is an error, not an empty listing.
 */
export const openLoadFolder = (path: string, noun: 'skills' | 'subagents', linkNote: string): LoadFolder => {
  const problems: Problem[] = []
  let linkTarget: string | undefined
  try {
    const stat = lstatSync(path, {throwIfNoEntry: false})
    if (stat === undefined) return {exists: false, problems, entries: []}
    if (stat.isSymbolicLink()) {
      linkTarget = safeRealpath(path) ?? 'a missing target'
      problems.push(problem('warning', `${noun}-folder-link`, `the ${noun} folder is a symbolic link to ${linkTarget}; ${linkNote}`, {file: path}))
    }
  } catch {
    return {exists: false, problems, entries: []}
  }
  const found = linkTarget ? {linkTarget} : {}
  try {
    return {exists: true, ...found, problems, entries: readdirSync(path, {withFileTypes: true})}
  } catch (error) {
    problems.push(problem('error', `${noun}-folder-unreadable`, `cannot read the ${noun} folder: ${(error as Error).message}`, {file: path}))
    return {exists: true, ...found, problems, entries: []}
  }
}

export interface Placement<S, T> {
  /** the folders of the scopes asked for, with what scanning them found */
  folders: Array<{location: ResolvedLocation; scan: S}>
  /** their items, with the path of the item that wins over each shadowed one */
  items: Array<{item: T; name: string; location: ResolvedLocation; shadowedBy?: string}>
}

/**
 * Walks one agent's folders in its load order (each folder once). Shadowing is worked out over every
 * folder given, then the result is cut to the scopes asked for.
 */
export const placeByPrecedence = <S, T>(input: {
  locations: readonly ResolvedLocation[]
  scopes: readonly Scope[]
  scan: (location: ResolvedLocation) => S
  itemsOf: (scan: S) => readonly T[]
  nameOf: (item: T, location: ResolvedLocation) => string
  pathOf: (item: T) => string
}): Placement<S, T> => {
  const placement: Placement<S, T> = {folders: [], items: []}
  const winners = new Map<string, string>()
  const seen = new Set<string>()
  for (const location of input.locations) {
    if (seen.has(location.absolute)) continue
    seen.add(location.absolute)
    const scan = input.scan(location)
    const wanted = input.scopes.includes(location.scope)
    if (wanted) placement.folders.push({location, scan})
    for (const item of input.itemsOf(scan)) {
      const name = input.nameOf(item, location)
      const winner = winners.get(name)
      if (!winner) winners.set(name, input.pathOf(item))
      if (wanted) placement.items.push({item, name, location, ...(winner ? {shadowedBy: winner} : {})})
    }
  }
  return placement
}

/** A scan cached by key for the whole listing: two agents reading one folder read it once. */
export const cachedScan = <S>(cache: Map<string, S>, key: string, scan: () => S): S => {
  let found = cache.get(key)
  if (found === undefined) {
    found = scan()
    cache.set(key, found)
  }
  return found
}
