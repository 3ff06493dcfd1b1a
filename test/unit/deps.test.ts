import {describe, expect, it} from 'vitest'
import {dependencyFields} from '../../src/core/kernel/state/mark.js'
import {unneededDependencies} from '../../src/core/ops/install/prune.js'
import {followRename} from '../../src/core/kernel/resolve/renames.js'
import {readCatalog} from '../../src/core/kernel/marketplace/catalog.js'
import type {InstallRecord} from '../../src/core/kernel/state/records.js'

const record = (plugin: string, fields: Partial<InstallRecord> = {}, target = 'universal'): InstallRecord => ({
  plugin,
  target,
  scope: 'user',
  source: '',
  integrity: '',
  enabled: true,
  components: [],
  skipped: [],
  files: [],
  dirs: [],
  config: [],
  ...fields,
})

describe('unneededDependencies', () => {
  const records = [
    record('a@m'),
    record('b@m', {autoInstalled: true, dependencyOf: ['a@m']}),
    record('c@m', {autoInstalled: true, dependencyOf: ['b@m', 'd@m']}),
    record('d@m'),
    record('e@m', {autoInstalled: true, dependencyOf: ['gone@m']}),
    record('f@m', {dependencyOf: ['gone@m']}),
  ]
  it('prune: every auto-installed plugin whose dependents are all gone, and nothing explicit', () => {
    expect(unneededDependencies(records, 'user')).toEqual(['e@m'])
  })
  it('removing a plugin frees its chain, but not what another plugin still needs', () => {
    expect(unneededDependencies(records, 'user', ['a@m'])).toEqual(['b@m'])
    expect(unneededDependencies(records, 'user', ['a@m', 'd@m'])).toEqual(['b@m', 'c@m'])
  })
  it('a dependent in another scope does not count', () => {
    expect(
      unneededDependencies(
        records.map((r) => (r.plugin === 'd@m' ? {...r, scope: 'project' as const} : r)),
        'user',
        ['a@m'],
      ),
    ).toEqual(['b@m', 'c@m'])
  })
  it('one target record naming a dependent keeps it', () => {
    const two = [record('b@m', {autoInstalled: true}), record('b@m', {autoInstalled: true, dependencyOf: ['a@m']}, 'codex'), record('a@m')]
    expect(unneededDependencies(two, 'user')).toEqual([])
  })
})

describe('dependencyFields', () => {
  it('a dependency install marks it auto and adds the dependent; an explicit install clears auto; an update keeps both', () => {
    expect(dependencyFields([], {kind: 'dependency', of: ['a@m']})).toEqual({dependencyOf: ['a@m'], autoInstalled: true})
    const auto = [record('b@m', {autoInstalled: true, dependencyOf: ['a@m']})]
    expect(dependencyFields(auto, {kind: 'dependency', of: ['c@m']})).toEqual({dependencyOf: ['a@m', 'c@m'], autoInstalled: true})
    expect(dependencyFields(auto, {kind: 'explicit'})).toEqual({dependencyOf: ['a@m']})
    expect(dependencyFields(auto, undefined)).toEqual({dependencyOf: ['a@m'], autoInstalled: true})
    expect(dependencyFields([record('b@m')], {kind: 'dependency', of: ['a@m']})).toEqual({dependencyOf: ['a@m']})
  })
})

describe('renames', () => {
  const {catalog, problems} = readCatalog(
    {name: 'm', plugins: [{name: 'new', source: './new'}], renames: {old: 'mid', mid: 'new', gone: null, 'Bad Name': null}},
    {file: 'marketplace.json', origin: 'local'},
  )
  it('reads null as removed and follows chains of renames', () => {
    expect(catalog.removed).toEqual(['gone'])
    expect(problems.map((p) => p.path)).toEqual(['renames["Bad Name"]'])
    expect(followRename(catalog, 'old')).toEqual({kind: 'renamed', from: 'old', to: 'new'})
    expect(followRename(catalog, 'new')).toEqual({kind: 'listed', name: 'new'})
    expect(followRename(catalog, 'gone')).toEqual({kind: 'removed', name: 'gone'})
    expect(followRename(catalog, 'other')).toEqual({kind: 'unlisted', name: 'other'})
  })
})
