/**
 * Marketplaces given as a local path: a catalog file given by its path reads its relative plugins
 * from the marketplace root (the folder above `.claude-plugin/`), as Claude Code does.
 */
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

const write = (root: string, files: Record<string, string>): void => {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), {recursive: true})
    writeFileSync(join(root, rel), text)
  }
}

const MARKET = {
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: [{name: 'tool', source: './plugins/tool'}]}),
  'plugins/tool/skills/tool-use/SKILL.md': '---\nname: tool-use\ndescription: Use the tool.\n---\n\nUse it.\n',
}

describe('marketplace add <path>/.claude-plugin/marketplace.json', () => {
  it('reads relative plugins from the marketplace root, not from .claude-plugin/', async () => {
    const sb = sandbox()
    const market = join(sb.dir, 'market')
    write(market, MARKET)
    const added = await loadout(sb, ['marketplace', 'add', join(market, '.claude-plugin', 'marketplace.json'), '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    expect(added.json().warnings).toEqual([])
    const installed = await loadout(sb, ['install', 'tool@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.claude', 'skills', 'tool-use', 'SKILL.md'))).toBe(true)
  })
})
