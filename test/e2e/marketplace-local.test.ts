/**
 * Marketplaces given as a local path: a catalog file given by its path reads its relative plugins
 * from the marketplace root (the folder above `.claude-plugin/`), as Claude Code does; a link on the
 * way to a relative plugin is followed when it stays inside the marketplace, and refused otherwise.
 */
import {existsSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {changes, jsonError, loadout, sandboxes, snapshot} from './helpers.js'

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
    const installed = await loadout(sb, ['install', '--loose', 'tool@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.claude', 'skills', 'tool-use', 'SKILL.md'))).toBe(true)
  })
})

const SKILL = '---\nname: tool-use\ndescription: Use the tool.\n---\n\nUse it.\n'

/** A marketplace whose one plugin, `x`, is at `./plugins/x`; `links` are made relative to the marketplace root. */
const linkedMarket = (root: string, files: Record<string, string>, links: Record<string, string>): void => {
  write(root, {
    '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: [{name: 'x', source: './plugins/x'}]}),
    ...files,
  })
  for (const [at, target] of Object.entries(links)) {
    mkdirSync(dirname(join(root, at)), {recursive: true})
    symlinkSync(target, join(root, at))
  }
}

describe('a link on the way to a relative plugin', () => {
  const installX = async (links: Record<string, string>, files: Record<string, string>, outside: Record<string, string> = {}) => {
    const sb = sandbox()
    write(join(sb.dir, 'outside'), {'x/skills/tool-use/SKILL.md': SKILL, ...outside})
    const market = join(sb.dir, 'market')
    linkedMarket(market, files, links)
    const added = await loadout(sb, ['marketplace', 'add', market, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    const before = snapshot(sb.home)
    const installed = await loadout(sb, ['install', '--loose', 'x@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    return {sb, installed, before}
  }

  it('is followed to a folder inside the marketplace: plugins/x -> ../shared/x', async () => {
    const {sb, installed} = await installX({'plugins/x': '../shared/x'}, {'shared/x/skills/tool-use/SKILL.md': SKILL})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.claude', 'skills', 'tool-use', 'SKILL.md'))).toBe(true)
  })

  it('is followed to the marketplace root itself: plugins/x -> ..', async () => {
    const {sb, installed} = await installX({'plugins/x': '..'}, {'skills/tool-use/SKILL.md': SKILL})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.claude', 'skills', 'tool-use', 'SKILL.md'))).toBe(true)
  })

  const refusals: Array<[string, Record<string, string>, string]> = [
    ['a cycle (plugins/x -> y, plugins/y -> x)', {'plugins/x': 'y', 'plugins/y': 'x'}, 'source-link-cycle'],
    ['a link out of the root', {'plugins/x': '../../outside/x'}, 'source-through-link'],
    ['a link through a link out (plugins/x -> ../shared/x, shared -> outside)', {'plugins/x': '../shared/x', shared: '../outside'}, 'source-through-link'],
  ]
  for (const [what, links, code] of refusals) {
    it(`is refused for ${what}, and nothing is written`, async () => {
      const {sb, installed, before} = await installX(links, {})
      expect(installed.status, installed.stdout).toBe(4)
      const error = jsonError(installed)
      expect(error.code).toBe(code)
      expect(error.message).toContain('plugins/')
      expect(changes(before, snapshot(sb.home)).filter((p) => !p.includes('.cache') && !p.includes('loadout'))).toEqual([])
      expect(existsSync(join(sb.home, '.claude', 'skills', 'tool-use'))).toBe(false)
    })
  }
})
