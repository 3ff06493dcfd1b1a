import {existsSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../environment.js'
import {readInstallRecords} from '../state/records.js'
import {readJournal, rollBack} from './apply.js'

export const journalFile = (env: Environment): string => join(loadoutPaths(env).config, 'journal.json')

export interface Recovery {
  plugin: string
  action: 'rolled-back' | 'completed'
  steps: number
}

/**
 * Finishes what a killed run left: when its records were written the install had completed and the
 * journal is only removed; otherwise every journalled step is undone, so the agents' folders are as
 * they were before that run. Called under the lock.
 */
export const recoverJournal = (env: Environment, projectRoot: string): Recovery | undefined => {
  const file = journalFile(env)
  if (!existsSync(file)) return undefined
  const journal = readJournal(file)
  if (!journal) {
    rmSync(file, {force: true})
    return undefined
  }
  const records = readInstallRecords(env, projectRoot)
  const recorded = new Set(records.filter((r) => r.plugin === journal.plugin).flatMap((r) => r.files.map((f) => f.path)))
  const written = journal.steps.flatMap((s) => s.applied?.files.map((f) => f.path) ?? [])
  const complete = journal.steps.every((s) => s.applied) && written.length > 0 && written.every((p) => recorded.has(p))
  if (!complete) rollBack(journal)
  rmSync(file, {force: true})
  return {plugin: journal.plugin, action: complete ? 'completed' : 'rolled-back', steps: journal.steps.length}
}
