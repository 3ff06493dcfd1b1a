/**
 * The authoring commands' git calls each print something: simple-git waits 50 ms more after a process
 * that printed nothing at all. A git first on PATH logs what each command loadout ran printed
 * (test/support/git-said.ts); the clone, fetch and checkout of an install are held to it in
 * test/unit/git-process.test.ts.
 */
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {gitSaying} from '../support/git-said.js'
import {makeRepo} from '../support/git-repos.js'
import {loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

describe('git says what it did', {timeout: 120_000}, () => {
  it('in plugin create, marketplace create and plugin tag, but for the tag itself', async () => {
    const sb = sandbox()
    const saying = gitSaying(join(sb.dir, 'saying'))
    // no git identity anywhere: the author is asked of git, which has none to give
    const env = {PATH: saying.path, GIT_CONFIG_NOSYSTEM: '1'}
    const plugin = await loadout(sb, ['plugin', 'create', 'demo', '--dir', join(sb.home, 'demo'), '--json'], {env})
    expect(plugin.status, plugin.stderr + plugin.stdout).toBe(0)
    expect(plugin.json()).toMatchObject({git: {initialized: true}, authorFrom: 'none'})
    const market = await loadout(sb, ['marketplace', 'create', 'shelf', '--dir', join(sb.home, 'shelf'), '--git', '--json'], {env})
    expect(market.status, market.stderr + market.stdout).toBe(0)
    const repo = join(sb.home, 'tagged')
    makeRepo(repo, {
      '.claude-plugin/marketplace.json': JSON.stringify({name: 'tagged', owner: {name: 'o'}, plugins: [{name: 'b', source: './plugins/b'}]}),
      'plugins/b/.claude-plugin/plugin.json': JSON.stringify({name: 'b', version: '1.2.0'}),
      'plugins/b/skills/b/SKILL.md': '---\nname: b\ndescription: b\n---\nb\n',
    })
    const tagged = await loadout(sb, ['plugin', 'tag', join(repo, 'plugins', 'b'), '--json'], {env})
    expect(tagged.status, tagged.stderr + tagged.stdout).toBe(0)
    const said = saying.said()
    expect(said.map((s) => s.command)).toEqual(['config', 'rev-parse', 'init', 'config', 'init', 'rev-parse', 'status', 'rev-parse', 'rev-parse', 'tag'])
    // making a tag prints nothing whatever it is asked: the one wait left, once per release
    expect(said.filter((s) => s.bytes === 0).map((s) => s.command)).toEqual(['tag'])
  })
})
