// What killed runs leave in loadout's cache goes on the next fetch: an entry renamed aside for
// removal at once, a staging or download folder once it is an hour old (a live run's is younger).
import {existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {isRemovedLeftover, removeAside, removeEntries, staleWithPrefix} from '../../src/core/kernel/fs/write.js'

const base = mkdtempSync(join(tmpdir(), 'loadout-sweep-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

const folder = (dir: string, name: string, ageMs = 0): string => {
  const path = join(dir, name)
  mkdirSync(path, {recursive: true})
  writeFileSync(join(path, 'file'), 'x')
  const when = (Date.now() - ageMs) / 1000
  utimesSync(path, when, when)
  return path
}

describe('sweeping what killed runs left', () => {
  it('staleWithPrefix picks the entries with the prefix that are over an hour old, and nothing else', () => {
    const dir = join(base, 'stale')
    const old = folder(dir, '.download-old', 2 * 3600_000)
    const young = folder(dir, '.download-young', 60_000)
    const other = folder(dir, 'archive-abc', 2 * 3600_000)
    removeEntries(dir, staleWithPrefix('.download-'))
    expect([existsSync(old), existsSync(young), existsSync(other)]).toEqual([false, true, true])
  })

  it('removeAside leaves nothing under the name, and isRemovedLeftover picks what a killed removal left', () => {
    const dir = join(base, 'aside')
    const tree = folder(dir, 'trees')
    removeAside(tree)
    removeAside(join(dir, 'never-there'))
    expect(existsSync(tree)).toBe(false)
    const left = folder(dir, '.mirror.loadout-del-0123abcd')
    const staged = folder(dir, '.mirror.loadout-stage-0123abcd')
    const kept = folder(dir, 'mirror')
    removeEntries(dir, isRemovedLeftover)
    expect([existsSync(left), existsSync(staged), existsSync(kept)]).toEqual([false, true, true])
  })
})
