/**
 * node:crypto, loaded on its first use. It is the dearest of Node's own modules to load (~5 ms, and
 * ~0.8 MB of memory touched, where the bench runs), and a read-only command that finds every file it
 * would hash remembered (kernel/fs/stat-memo.ts) hashes nothing.
 */
import type {Hash} from 'node:crypto'
import {lazyRequire} from '../env/lazy.js'

const nodeCrypto = lazyRequire<typeof import('node:crypto')>('node:crypto')

export type {Hash}
export const createHash = (algorithm: string): Hash => nodeCrypto().createHash(algorithm)
export const randomBytes = (size: number): Buffer => nodeCrypto().randomBytes(size)
export const randomUUID = (): string => nodeCrypto().randomUUID()
