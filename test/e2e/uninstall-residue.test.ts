/**
 * When the last entry goes, the user's config files are as they were: no `"hooks": {}`, no
 * `{"SessionStart": []}`, no `"mcpServers": {}`, and the files loadout created are gone, whichever
 * order two plugins sharing those files are installed and removed in.
 */
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {changes, changesOutside, loadout, sandboxes, snapshot} from './helpers.js'
import {AGENTS3, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const LOADOUT_OWN = ['.config/loadout', '.local/share/loadout', '.cache/loadout']

const homes = {
  'config files without the keys loadout adds': (home: string) => {
    mkdirSync(join(home, '.claude'), {recursive: true})
    writeFileSync(join(home, '.claude.json'), '{"theme":"dark"}')
    writeFileSync(join(home, '.claude', 'settings.json'), '{\n  "model": "opus"\n}\n')
    mkdirSync(join(home, '.codex'))
    writeFileSync(join(home, '.codex', 'config.toml'), '# mine\nmodel = "x"\n')
  },
  'config files that already hold hooks and servers of the user': (home: string) => {
    mkdirSync(join(home, '.claude'), {recursive: true})
    writeFileSync(join(home, '.claude.json'), '{"theme":"dark","mcpServers":{"mine":{"command":"x"}}}\n')
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}]}}\n',
    )
  },
  'no config files at all': (home: string) => {
    mkdirSync(join(home, '.claude'), {recursive: true})
  },
}

describe('uninstalling the last entry', () => {
  for (const [name, prepare] of Object.entries(homes)) {
    for (const order of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      it(`${name}: install a, b; uninstall ${order.join(', ')}`, {timeout: 60_000}, async () => {
        const sb = sandbox()
        prepare(sb.home)
        const before = snapshot(sb.home)
        for (const p of ['a', 'b']) {
          const r = await loadout(sb, ['install', '--loose', writeKit(sb.dir, p), '--agent', AGENTS3, '--scope', 'user', '--yes'])
          expect(r.status, r.stderr).toBe(0)
        }
        for (const p of order) {
          const r = await loadout(sb, ['uninstall', p, '--scope', 'user', '--yes'])
          expect(r.status, r.stderr).toBe(0)
        }
        expect(changesOutside(changes(before, snapshot(sb.home)), LOADOUT_OWN)).toEqual([])
      })
    }
  }
})

describe('after the last uninstall and cache clean', () => {
  it("loadout's data and cache folders hold nothing: no plugin copy, no plugin-files record, no empty folder", async () => {
    const sb = sandbox()
    const plugin = join(sb.dir, 'kit')
    mkdirSync(join(plugin, 'skills', 'kit-skill'), {recursive: true})
    writeFileSync(join(plugin, 'skills', 'kit-skill', 'SKILL.md'), '---\nname: kit-skill\ndescription: For tests.\n---\n\nBody.\n')
    expect((await loadout(sb, ['install', '--loose', plugin, '--agent', 'claude-code', '--scope', 'user', '--yes'])).status).toBe(0)
    expect((await loadout(sb, ['uninstall', 'kit', '--scope', 'user', '--yes'])).status).toBe(0)
    const cleaned = await loadout(sb, ['cache', 'clean', '--json'])
    expect(cleaned.status, cleaned.stdout + cleaned.stderr).toBe(0)
    const left = [...snapshot(sb.home).keys()].filter((p) => p.includes('.local/share/loadout') || p.includes('.cache/loadout'))
    expect(left).toEqual([])
  })

  it("no state file and no approval of an uninstalled plugin are left in loadout's config", async () => {
    const sb = sandbox()
    const plugin = join(sb.dir, 'hooked')
    mkdirSync(join(plugin, 'hooks'), {recursive: true})
    writeFileSync(join(plugin, 'hooks', 'hooks.json'), JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: 'echo done'}]}]}}))
    const config = join(sb.home, '.config', 'loadout')
    expect((await loadout(sb, ['install', '--loose', plugin, '--agent', 'claude-code', '--scope', 'user', '--yes'])).status).toBe(0)
    expect(existsSync(join(config, 'approvals.json'))).toBe(true)
    expect(existsSync(join(config, 'state.json'))).toBe(true)
    expect((await loadout(sb, ['uninstall', 'hooked', '--scope', 'user', '--yes'])).status).toBe(0)
    expect(existsSync(join(config, 'approvals.json')), 'approvals.json').toBe(false)
    expect(existsSync(join(config, 'state.json')), 'state.json').toBe(false)
    const list = await loadout(sb, ['list', '--json'])
    expect(list.status).toBe(0)
    expect(list.json().installs).toEqual([])
    // installed again, it asks again: nothing approves it off a terminal without --yes
    expect((await loadout(sb, ['install', '--loose', plugin, '--agent', 'claude-code', '--scope', 'user'])).status).toBe(8)
  })
})

describe('HOME after the last uninstall and cache clean (issue 21)', () => {
  it('is byte-identical to before, canaries in every agent folder: no ~/.config, ~/.cache or ~/.local/share loadout made is left', async () => {
    const sb = sandbox()
    for (const folder of ['.claude', '.codex', '.deepagents', '.gemini', '.agents']) {
      mkdirSync(join(sb.home, folder), {recursive: true})
      writeFileSync(join(sb.home, folder, '.canary'), `canary of ${folder}\n`)
    }
    const before = snapshot(sb.home)
    const kit = writeKit(sb.dir, 'kit')
    const installed = await loadout(sb, ['install', '--loose', kit, '--agent', `${AGENTS3},gemini-cli`, '--scope', 'user', '--yes'])
    expect(installed.status, installed.stderr).toBe(0)
    // loadout's own folders exist while something is installed
    for (const own of ['.config/loadout', '.local/share/loadout']) expect(existsSync(join(sb.home, own)), own).toBe(true)
    expect((await loadout(sb, ['outdated', '--json'])).status).toBe(0)
    const removed = await loadout(sb, ['uninstall', 'kit', '--scope', 'user', '--yes'])
    expect(removed.status, removed.stderr).toBe(0)
    const cleaned = await loadout(sb, ['cache', 'clean', '--json'])
    expect(cleaned.status, cleaned.stderr).toBe(0)
    expect(changes(before, snapshot(sb.home))).toEqual([])
  })

  it('keeps a folder that was there before, and one that holds something else', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    mkdirSync(join(sb.home, '.config'))
    const before = snapshot(sb.home)
    const kit = writeKit(sb.dir, 'kit')
    expect((await loadout(sb, ['install', '--loose', kit, '--agent', 'claude-code', '--scope', 'user', '--yes'])).status).toBe(0)
    // another program puts its files beside loadout's meanwhile
    mkdirSync(join(sb.home, '.local', 'share', 'other'), {recursive: true})
    expect((await loadout(sb, ['uninstall', 'kit', '--scope', 'user', '--yes'])).status).toBe(0)
    expect((await loadout(sb, ['cache', 'clean'])).status).toBe(0)
    expect(changes(before, snapshot(sb.home))).toEqual(['.local', '.local/share', '.local/share/other'])
  })
})
