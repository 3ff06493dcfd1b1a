import {describe, expect, it} from 'vitest'
import {globMatches} from '../../src/core/kernel/policy/glob.js'
import {canonicalHost, hostMatches, hostOfUrl} from '../../src/core/kernel/policy/hosts.js'

describe('canonical hosts', () => {
  it('gives one spelling per host', () => {
    const cases: Array<[string, string]> = [
      ['EVIL.example.', 'evil.example'],
      ['evil.example..', 'evil.example'],
      ['[::ffff:127.0.0.1]', '127.0.0.1'],
      ['[::FFFF:7f00:1]', '127.0.0.1'],
      ['::ffff:10.1.2.3', '10.1.2.3'],
      ['2130706433', '127.0.0.1'],
      ['0x7f.0.0.1', '127.0.0.1'],
      ['0177.0.0.1', '127.0.0.1'],
      ['127.1', '127.0.0.1'],
      ['bücher.example', 'xn--bcher-kva.example'],
      ['[::1]', '[::1]'],
    ]
    expect(cases.map(([raw]) => [raw, canonicalHost(raw)])).toEqual(cases)
  })

  it('matches patterns written in any of those spellings', () => {
    expect(hostMatches('EVIL.example.', hostOfUrl('https://evil.example/x'))).toBe(true)
    expect(hostMatches('127.0.0.1:*', hostOfUrl('https://[::ffff:127.0.0.1]:8443/'))).toBe(true)
    expect(hostMatches('*.bücher.example', hostOfUrl('https://a.xn--bcher-kva.example/'))).toBe(true)
    expect(hostMatches('evil.example', hostOfUrl('git@EVIL.example.:o/r.git'))).toBe(true)
    expect(hostMatches('good.example', hostOfUrl('https://evil.example/'))).toBe(false)
  })
})

describe('globs', () => {
  it('match as before: * any run, ? one character, the rest literal', () => {
    expect(globMatches('*.corp.example', 'a.b.corp.example')).toBe(true)
    expect(globMatches('*.corp.example', 'corp.example')).toBe(false)
    expect(globMatches('a?c', 'abc')).toBe(true)
    expect(globMatches('a?c', 'ac')).toBe(false)
    expect(globMatches('A*', 'abc', true)).toBe(true)
    expect(globMatches('A*', 'abc')).toBe(false)
    expect(globMatches('a.c', 'abc')).toBe(false)
    expect(globMatches('**', '')).toBe(true)
    expect(globMatches('?', '😀')).toBe(true)
  })

  it('take no time on a pattern that backtracks a regular expression exponentially', () => {
    const started = performance.now()
    expect(globMatches('*a*a*a*a*a*a*a*a*a*a*ab', 'a'.repeat(5000))).toBe(false)
    expect(globMatches('*a*a*a*a*a*a*a*a*a*a*ab', `${'a'.repeat(5000)}b`)).toBe(true)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
