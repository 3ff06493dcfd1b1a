import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'

/** Where a run's journal lives: a leaf module, so read-only commands can look for one without loading the transaction code. */
export const journalFile = (env: Environment): string => join(loadoutPaths(env).config, 'journal.jsonl')
