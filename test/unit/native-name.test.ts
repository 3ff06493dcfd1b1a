import {describe, expect, it} from 'vitest'
import type {InstallRecord} from '../../src/core/kernel/state/records.js'
import {holdsSharedProjectName, marketplaceNameFor, nameToRecord} from '../../src/core/ops/install/native-name.js'

const project = {scope: 'project' as const, projectRoot: '/p'}
// a record as the lock holds it: the name in its own field, and in the settings keys while it is enabled
const named = (key: string, plugin = 'duo@acme'): InstallRecord =>
  ({
    plugin,
    scope: 'project',
    marketplace: key,
    config: [
      {path: ['extraKnownMarketplaces'], key},
      {path: ['enabledPlugins'], key: `duo@${key}`},
    ],
  }) as unknown as InstallRecord

describe('the name a native plugin’s marketplace is registered under', () => {
  it('is loadout-<market>-<plugin> in the user scope, and that with a suffix of its own in a project', () => {
    expect(marketplaceNameFor('duo@acme', {scope: 'user', projectRoot: '/p'}, [], false)).toBe('loadout-acme-duo')
    const drawn = marketplaceNameFor('duo@acme', project, [], false)
    expect(drawn).toMatch(/^loadout-acme-duo-[0-9a-f]{8}$/)
    // one per plugin and project in a run: consent and the write agree, and so do two agents
    expect(marketplaceNameFor('duo@acme', project, [], false)).toBe(drawn)
    expect(marketplaceNameFor('duo@acme', {...project, projectRoot: '/q'}, [], false)).not.toBe(drawn)
  })

  it('is read back from the lock: an update, a part turned off, a teammate’s clone keep it, and so does a disabled plugin', () => {
    expect(marketplaceNameFor('duo@acme', project, [named('loadout-acme-duo-0badcafe')], false)).toBe('loadout-acme-duo-0badcafe')
    const disabled = {...named('loadout-acme-duo-0badcafe'), enabled: false, config: []}
    expect(marketplaceNameFor('duo@acme', project, [disabled], false)).toBe('loadout-acme-duo-0badcafe')
  })

  it('is kept in a record of a native plugin in a project, and only there', () => {
    const record = (scope: string, form: string) => ({plugin: 'duo@acme', scope, form}) as unknown as InstallRecord
    expect(nameToRecord('duo@acme', record('project', 'native'), 'loadout-acme-duo-0badcafe')).toBe('loadout-acme-duo-0badcafe')
    expect(nameToRecord('duo@acme', record('project', 'loose'), 'loadout-acme-duo-0badcafe')).toBeUndefined()
    expect(nameToRecord('duo@acme', record('user', 'native'), 'loadout-acme-duo')).toBeUndefined()
    // a lock from before project names had a suffix, kept under --frozen, stays as it was
    expect(nameToRecord('duo@acme', record('project', 'native'), 'loadout-acme-duo')).toBeUndefined()
  })

  it('is never a name the lock holds that loadout would not have drawn for this plugin', () => {
    for (const key of ['claude-plugins-official', 'loadout-acme-other-0badcafe', 'loadout-acme-duo-0BADCAFE', 'loadout-acme-duo-0badcafe0'])
      expect(marketplaceNameFor('duo@acme', project, [named(key)], false)).toMatch(/^loadout-acme-duo-[0-9a-f]{8}$/)
    expect(marketplaceNameFor('duo@acme', project, [named('claude-plugins-official')], false)).not.toBe('claude-plugins-official')
  })

  it('keeps the name every project once shared only under --frozen, when the lock must not change', () => {
    const legacy = [named('loadout-acme-duo')]
    expect(holdsSharedProjectName(legacy)).toBe(true)
    expect(holdsSharedProjectName([named('loadout-acme-duo-0badcafe')])).toBe(false)
    expect(marketplaceNameFor('duo@acme', project, legacy, true)).toBe('loadout-acme-duo')
    expect(marketplaceNameFor('duo@acme', project, legacy, false)).toMatch(/^loadout-acme-duo-[0-9a-f]{8}$/)
  })
})
