// isInside answers two resolved POSIX paths by their text: held equal here to the definition it
// replaces for them (resolve both, take the relative path, refuse one that leads up), on paths made of
// the segments that trip a text test: `.`, `..`, `..a`, empty ones, trailing separators.
import {isAbsolute, relative, resolve, sep} from 'node:path'
import {describe, expect, it} from 'vitest'
import {isInside} from '../../src/core/kernel/fs/contain.js'

const byRelativePath = (root: string, path: string): boolean => {
  const rel = relative(resolve(root), resolve(path))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..')
}

describe('isInside', () => {
  it('gives what the relative path gives, for resolved and unresolved paths alike', () => {
    const segments = ['a', 'b', 'ab', '.', '..', '', '..a', '.a', '...', 'a.', 'A']
    let seed = 27
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      return seed % n
    }
    const path = () => {
      const parts = Array.from({length: next(5)}, () => segments[next(segments.length)])
      return `${next(10) < 9 ? '/' : ''}${parts.join('/')}${next(10) === 0 ? '/' : ''}`
    }
    for (let i = 0; i < 50_000; i++) {
      const root = path()
      const below = next(2) === 0 ? `${root}/${path().replace(/^\//, '')}` : path()
      expect(isInside(root, below), `${root} ${below}`).toBe(byRelativePath(root, below))
    }
  })

  it('keeps a name that starts with two dots outside, as the relative path does', () => {
    expect(isInside('/p/root', '/p/root/..hidden')).toBe(false)
    expect(isInside('/p/root', '/p/root/a/..b')).toBe(true)
    expect(isInside('/p/root', '/p/rootx')).toBe(false)
    expect(isInside('/p/root', '/p/root')).toBe(true)
    expect(isInside('/p/root', '/p/root/../root/a')).toBe(true)
  })
})
