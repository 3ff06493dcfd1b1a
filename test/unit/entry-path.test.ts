/** entryPath is join for a name read from a folder whose path is normalized already, without normalizing again. */
import {join, normalize} from 'node:path'
import {describe, expect, it} from 'vitest'
import {entryPath} from '../../src/core/kernel/fs/entry-path.js'
import {seededRandom} from '../support/seeded.js'

const pick = seededRandom(27)
const SEGMENT_CHARS = ['a', 'b', '.', '-', ' ', 'é', '/', '//', '..', '~']
const made = (length: number): string => Array.from({length}, () => SEGMENT_CHARS[pick(SEGMENT_CHARS.length)]).join('')

describe('entryPath', () => {
  it('is join(dir, name) for a normalized folder and any name a folder can list', () => {
    const folders = ['/', '/a', '/a/b', '.', 'a', 'a/b', '..', '../x', '/tmp/a b/é']
    for (let i = 0; i < 2000; i++) folders.push(normalize(`${pick(2) ? '/' : ''}${made(1 + pick(12))}`))
    let names = 0
    for (const folder of folders) {
      const name = made(1 + pick(6)).replaceAll('/', '')
      if (name === '' || name === '.' || name === '..') continue
      names++
      expect(entryPath(folder, name), `${folder} + ${name}`).toBe(join(folder, name))
    }
    expect(names).toBeGreaterThan(1500)
  })
})
