import {readFileSync} from 'node:fs'
import {isAbsolute, join, resolve} from 'node:path'
import type {Environment} from '../environment.js'
import {loadoutPaths} from '../environment.js'
import type {Scope} from '../scope.js'

/** One file loadout wrote for a plugin into a target. */
export interface RecordedFile {
  /** absolute in the user state file; relative to the project root in loadout.lock */
  path: string
  sha256: string
}

/** What was written for one plugin into one target: the install record. */
export interface InstallRecord {
  plugin: string
  target: string
  scope: Scope
  files: RecordedFile[]
}

export interface InstallState {
  installs: InstallRecord[]
}

export const userStateFile = (env: Environment): string => join(loadoutPaths(env).config, 'state.json')
export const projectLockFile = (projectRoot: string): string => join(projectRoot, 'loadout.lock')

const readState = (file: string): InstallState => {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return {installs: []}
  }
  const data = JSON.parse(text) as Partial<InstallState>
  return {installs: Array.isArray(data.installs) ? data.installs : []}
}

/** Answers "which plugin installed this path?" from the user state and the project's lock. */
export interface Ownership {
  ownerOf(path: string): string | undefined
}

export const loadOwnership = (env: Environment, projectRoot: string): Ownership => {
  const owners = new Map<string, string>()
  const add = (state: InstallState, base: string) => {
    for (const record of state.installs) {
      for (const file of record.files ?? []) {
        owners.set(isAbsolute(file.path) ? resolve(file.path) : resolve(base, file.path), record.plugin)
      }
    }
  }
  add(readState(userStateFile(env)), env.home)
  add(readState(projectLockFile(projectRoot)), projectRoot)
  return {
    ownerOf(path: string) {
      const prefix = resolve(path)
      for (const [file, plugin] of owners) {
        if (file === prefix || file.startsWith(prefix + '/')) return plugin
      }
      return undefined
    },
  }
}
