import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'

export const fileSha256Sync = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex')
