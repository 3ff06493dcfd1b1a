/**
 * One way into every command: each command oclif lists is a shared body on the fast path's list
 * (src/ui/fast/run.ts), whose oclif class only lends it help, completion and the manifest.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {FAST_COMMANDS} from '../../src/ui/fast/run.js'
import {fastParse} from '../../src/ui/fast/parse.js'
import type {CommandSpec} from '../../src/ui/command-spec.js'

const commandIds = (): string[] => Object.keys(JSON.parse(readFileSync('oclif.manifest.json', 'utf8')).commands).map((id) => id.replaceAll(':', ' '))

describe('one way into every command', () => {
  it('every command oclif lists is a shared body on the fast path, and the fast path names no other', () => {
    const ids = commandIds()
    expect(ids.length).toBeGreaterThan(40)
    expect(ids.filter((id) => !FAST_COMMANDS[id])).toEqual([])
    expect(Object.keys(FAST_COMMANDS).filter((id) => !ids.includes(id))).toEqual([])
  })

  it('every oclif class is made from its shared body by oclifCommand', () => {
    const files = readdirSync('src/commands', {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.ts'))
    expect(files.length).toBe(commandIds().length)
    for (const file of files) expect(readFileSync(join('src/commands', file), 'utf8'), file).toMatch(/export default oclifCommand\(/)
  })
})

describe('the fast parse of a spec', () => {
  const spec = {
    flags: {
      git: {type: 'boolean', description: 'g', allowNo: true, default: true},
      limit: {type: 'integer', description: 'l', min: 1, max: 500, default: 50},
      env: {type: 'string', description: 'e', multiple: true, nonGreedy: true},
      skill: {type: 'string', description: 's', multiple: true},
      yes: {type: 'boolean', description: 'y', exclusive: ['dry-run']},
      'dry-run': {type: 'boolean', description: 'd'},
    },
    args: {name: 'name', description: 'n'},
    passthrough: true,
  } as const satisfies CommandSpec

  it('applies defaults, --no-, bounded integers, one value per non-greedy flag and the words after --', () => {
    expect(fastParse(spec, ['x'])).toEqual({flags: {git: true, limit: 50}, argv: ['x'], json: false})
    expect(fastParse(spec, ['x', '--no-git', '--limit', '7', '--json'])?.flags).toEqual({git: false, limit: 7})
    expect(fastParse(spec, ['x', '--env', 'A', '--env', 'B=1'])?.flags.env).toEqual(['A', 'B=1'])
    expect(fastParse(spec, ['x', '--', 'docker', 'run', '--rm', '-e', 'A'])).toMatchObject({argv: ['x'], passthrough: ['docker', 'run', '--rm', '-e', 'A']})
  })

  it('leaves to oclif what oclif might read otherwise', () => {
    for (const argv of [
      ['x', '--limit', '0'],
      ['x', '--limit', '501'],
      ['x', '--limit', '1.5'],
      ['x', '--no-limit'],
      ['x', '--git', '--no-git'],
      ['x', '--skill', 'a'],
      ['x', '--yes', '--dry-run'],
      ['x', '--limit', '3', '--limit', '4'],
    ]) {
      expect(fastParse(spec, argv), argv.join(' ')).toBeUndefined()
    }
    expect(fastParse({flags: {}, args: {name: 'n', description: 'n'}}, ['x', '--', 'y'])).toBeUndefined()
    // a variadic argument that must be given (`mcp search <words...>`, `mcp add <name> -- ...`): none is oclif's usage error
    expect(fastParse({flags: {}, args: {name: 'n', description: 'n', variadic: true, required: true}, passthrough: true}, ['--', 'x'])).toBeUndefined()
    expect(fastParse({flags: {}, args: {name: 'n', description: 'n', variadic: true, required: true}}, ['a', 'b'])?.argv).toEqual(['a', 'b'])
  })

  it('leaves to oclif a required flag not given, and a required variadic argument with no word', () => {
    const required = {
      flags: {format: {type: 'string', description: 'f', options: ['a', 'b'], required: true}},
      args: {name: 'plugins', description: 'p', variadic: true, required: true},
    } as const satisfies CommandSpec
    expect(fastParse(required, ['x', 'y', '--format', 'a'])).toEqual({flags: {format: 'a'}, argv: ['x', 'y'], json: false})
    expect(fastParse(required, ['x'])).toBeUndefined()
    expect(fastParse(required, ['--format', 'b'])).toBeUndefined()
  })

  it('reads arguments in order and leaves a missing one, or a missing required flag, to oclif', () => {
    const two = {
      flags: {format: {type: 'string', description: 'f', options: ['a', 'b'], required: true}},
      args: [
        {name: 'path', description: 'p', required: true},
        {name: 'target', description: 't', required: true},
      ],
    } as const satisfies CommandSpec
    expect(fastParse(two, ['p', 't', '--format', 'a'])).toEqual({flags: {format: 'a'}, argv: ['p', 't'], json: false})
    for (const argv of [
      ['p', 't'],
      ['p', '--format', 'a'],
      ['p', 't', 'u', '--format', 'a'],
      ['--format', 'a'],
    ]) {
      expect(fastParse(two, argv), argv.join(' ')).toBeUndefined()
    }
  })
})
