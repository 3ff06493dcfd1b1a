/**
 * One way into every command: each command oclif lists is a shared body on the fast path's list
 * (src/ui/fast/run.ts), whose oclif class only lends it help, completion and the manifest. The
 * commands not moved yet are named here; the list only shrinks.
 */
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {FAST_COMMANDS} from '../../src/ui/fast/run.js'
import {fastParse} from '../../src/ui/fast/parse.js'
import type {CommandSpec} from '../../src/ui/command-spec.js'

const NOT_YET = new Set([
  'audit',
  'budget',
  'cache clean',
  'cache list',
  'configure',
  'diff',
  'disable',
  'doctor',
  'enable',
  'marketplace add-plugin',
  'marketplace create',
  'marketplace info',
  'marketplace list',
  'marketplace push',
  'marketplace remove',
  'marketplace update',
  'marketplace validate',
  'outdated',
  'plugin attach',
  'plugin convert',
  'plugin create',
  'plugin pack',
  'plugin push',
  'plugin tag',
  'plugin validate',
  'policy show',
  'prune',
  'sbom',
  'update',
])

const commandIds = (): string[] => Object.keys(JSON.parse(readFileSync('oclif.manifest.json', 'utf8')).commands).map((id) => id.replaceAll(':', ' '))

describe('one way into every command', () => {
  it('every command is a shared body on the fast path, but for those named as not moved yet', () => {
    const missing = commandIds().filter((id) => !FAST_COMMANDS[id] && !NOT_YET.has(id))
    expect(missing).toEqual([])
    const moved = [...NOT_YET].filter((id) => FAST_COMMANDS[id])
    expect(moved, 'moved: take them off NOT_YET').toEqual([])
    expect(Object.keys(FAST_COMMANDS).filter((id) => !commandIds().includes(id))).toEqual([])
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
})
