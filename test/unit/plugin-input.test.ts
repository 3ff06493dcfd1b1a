import {describe, expect, it} from 'vitest'
import {MAX_INPUT, parsePluginInput, parsePluginSpec} from '../../src/core/kernel/resolve/plugin-input.js'
import {LoadoutError} from '../../src/core/model/errors.js'

const options = {cwd: '/work/project', home: '/home/me'}
const parse = (input: string) => parsePluginInput(input, options)

const refusal = (input: string): LoadoutError => {
  try {
    parse(input)
  } catch (error) {
    return error as LoadoutError
  }
  throw new Error(`${JSON.stringify(input)} was accepted`)
}

describe('parsePluginInput: every accepted form', () => {
  it.each([
    ['review', {form: 'plugin', name: 'review'}],
    ['review@acme', {form: 'plugin', name: 'review', marketplace: 'acme'}],
    ['review@acme.tools_2', {form: 'plugin', name: 'review', marketplace: 'acme.tools_2'}],
    ['review@acme@^1.2', {form: 'plugin', name: 'review', marketplace: 'acme', range: '^1.2'}],
    ['review@acme@~2.1.0', {form: 'plugin', name: 'review', marketplace: 'acme', range: '~2.1.0'}],
    ['review@acme@1.2.3', {form: 'plugin', name: 'review', marketplace: 'acme', range: '1.2.3'}],
    ['review@acme@>=1 <3', {form: 'plugin', name: 'review', marketplace: 'acme', range: '>=1 <3'}],
    ['review@acme@*', {form: 'plugin', name: 'review', marketplace: 'acme', range: '*'}],
    ['review@^1.2', {form: 'plugin', name: 'review', range: '^1.2'}],
    ['review@~1.2', {form: 'plugin', name: 'review', range: '~1.2'}],
    ['review@>=1', {form: 'plugin', name: 'review', range: '>=1'}],
    ['review@*', {form: 'plugin', name: 'review', range: '*'}],
    // a version is a range of one; it is also a valid marketplace name, so a known marketplace of that name wins
    ['review@1.2.0', {form: 'plugin', name: 'review', range: '1.2.0', rangeOrMarketplace: true}],
    ['review@v1.2.0', {form: 'plugin', name: 'review', range: 'v1.2.0', rangeOrMarketplace: true}],
    ['review@1password', {form: 'plugin', name: 'review', range: '1password', rangeOrMarketplace: true}],
  ])('%s', (input, expected) => {
    expect(parse(input)).toEqual(expected)
  })

  it.each([
    ['owner/repo', 'github'],
    ['./plugins/review', 'local'],
    ['.', 'local'],
    ['~/plugins/review', 'local'],
    ['https://example.com/acme/review.git', 'git'],
    ['git@github.com:owner/repo.git', 'git'],
    ['npm:@scope/review@1.0.0', 'npm'],
    ['https://example.com/review.tar.gz', 'archive'],
  ])('%s is a source (%s)', (input, kind) => {
    const parsed = parse(input)
    expect(parsed.form).toBe('source')
    expect(parsed.form === 'source' && parsed.source.kind).toBe(kind)
  })
})

describe('parsePluginInput: refused forms', () => {
  it.each([
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['@', 'neither'],
    ['@@', 'neither'],
    ['@acme', 'neither'],
    ['review@', 'ends with "@"'],
    ['review@@1.0.0', 'empty marketplace'],
    ['review@acme@', 'no version or range'],
    ['review@acme@1@2', 'neither'],
    ['a@b@c@d', 'neither'],
    ['Review@acme', 'upper-case'],
    ['re view@acme', 'whitespace'],
    ['review--x@acme', 'two hyphens'],
    ['review\u0000@acme', 'control character'],
    ['review@acme\n', 'control character'],
    ['review@acme@^1\u001b[2J', 'control character'],
    ['revie\u0301w', 'neither'],
  ])('%j', (input, why) => {
    const error = refusal(input)
    expect(error.code).toBe('bad-plugin-spec')
    expect(error.exitStatus).toBe(2)
    expect(error.message).toContain(why === 'neither' ? '' : why)
    expect(error.message).not.toMatch(/[\u0000-\u001f]/)
  })

  it('refuses very long input quickly, without echoing all of it', () => {
    const long = `${'a'.repeat(MAX_INPUT)}@acme`
    const started = performance.now()
    const error = refusal(long)
    expect(performance.now() - started).toBeLessThan(50)
    expect(error.code).toBe('bad-plugin-spec')
    expect(error.message).toContain(`the limit is ${MAX_INPUT}`)
    expect(error.message.length).toBeLessThan(300)
    // long but under the limit: the name rule, not a slow regex
    expect(refusal(`${'a'.repeat(MAX_INPUT - 10)}@acme`).message).toContain('characters long')
  })

  it("a source-shaped input keeps the source parser's own refusal", () => {
    expect(() => parse('https://user:secret@example.com/x.git')).toThrow()
    expect(() => parse('https://user:secret@example.com/x.git')).not.toThrow(/secret/)
  })
})

describe('parsePluginSpec (dependency strings): plugin forms only', () => {
  it('leaves source forms undefined', () => {
    expect(parsePluginSpec('owner/repo')).toBeUndefined()
    expect(parsePluginSpec('./x')).toBeUndefined()
    expect(parsePluginSpec('dep@acme')).toEqual({form: 'plugin', name: 'dep', marketplace: 'acme'})
  })
})
