/**
 * The fast bundle's `join`, `resolve`, `relative` and `normalize` (src/core/kernel/fs/path-fast.ts)
 * must answer exactly what node:path answers: every combination of a few hundred paths built from the
 * segments that make normalisation do something (empty, `.`, `..`, trailing `/`, a root) is asked of
 * both.
 */
import * as nodePath from 'node:path'
import {describe, expect, it} from 'vitest'
import {join, normalize, relative, resolve} from '../../src/core/kernel/fs/path-fast.js'

const SEGMENTS = ['a', 'bb', '.', '..', '', '.x', '..y', 'z.', 'c d']
const paths = (): string[] => {
  const out = new Set<string>(['', '/', '//', '.', '..', './', '../', '/.', '/..', 'a/', '/a/', 'a//b', '/a/./b', '/a/b/..'])
  for (const a of SEGMENTS)
    for (const b of SEGMENTS) {
      out.add(`${a}/${b}`)
      out.add(`/${a}/${b}`)
      out.add(`/${a}/${b}/`)
      for (const c of ['a', '..', '.', '']) out.add(`/tmp/${a}/${b}/${c}`)
    }
  return [...out]
}

describe('path-fast', () => {
  const all = paths()

  it('normalize answers as node:path does', () => {
    for (const p of all) expect(normalize(p), p).toBe(nodePath.normalize(p))
  })

  it('join, resolve and relative answer as node:path does for every pair', () => {
    for (const a of all)
      for (const b of all) {
        const pair = JSON.stringify([a, b])
        expect(join(a, b), pair).toBe(nodePath.join(a, b))
        expect(resolve(a, b), pair).toBe(nodePath.resolve(a, b))
        expect(relative(a, b), pair).toBe(nodePath.relative(a, b))
      }
  })

  it('join and resolve answer as node:path does for one part and for three', () => {
    for (const a of all) {
      expect(join(a), a).toBe(nodePath.join(a))
      expect(resolve(a), a).toBe(nodePath.resolve(a))
      for (const c of ['x', '', '..', '/y', 'y/']) {
        expect(join(a, 'm', c), JSON.stringify([a, c])).toBe(nodePath.join(a, 'm', c))
        expect(resolve('/base', a, c), JSON.stringify([a, c])).toBe(nodePath.resolve('/base', a, c))
      }
    }
    expect(join()).toBe(nodePath.join())
    expect(resolve()).toBe(nodePath.resolve())
  })

  it('refuses what node:path refuses', () => {
    expect(() => join('a', 1 as unknown as string)).toThrow(TypeError)
    expect(() => resolve('/a', null as unknown as string)).toThrow(TypeError)
    expect(() => relative('/a', undefined as unknown as string)).toThrow(TypeError)
  })
})
