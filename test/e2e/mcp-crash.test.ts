/**
 * `loadout mcp add` and `mcp remove` killed with SIGKILL at moments spread over a whole run, into
 * claude-code, codex and cursor with a big ~/.claude.json and a commented config.toml: the next
 * command finds the server in all three agents or in none, and with none the user's files are byte
 * for byte as they were. A standalone server rides the same transaction as a plugin.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'
import {configHashes, journalPending, prepareHome, recordedTargets, runAndSignal, sha, tempNames} from './tx-support.js'

const sandbox = sandboxes()
const KILLS = 12
const AGENTS = 'claude-code,codex,cursor'
const ID = 'mcp:files@local'

describe('SIGKILL during mcp add and mcp remove', () => {
  it('leaves the server in every agent or in none', {timeout: 300_000}, async () => {
    const sb = sandbox()
    prepareHome(sb)
    mkdirSync(join(sb.home, '.cursor'))
    writeFileSync(join(sb.home, '.cursor', 'mcp.json'), '{\n  // mine\n  "mcpServers": {}\n}\n')
    const original = {...configHashes(sb.home), cursor: sha(join(sb.home, '.cursor', 'mcp.json'))}
    const hashes = () => ({...configHashes(sb.home), cursor: sha(join(sb.home, '.cursor', 'mcp.json'))})
    const add = ['mcp', 'add', 'files', '--agent', AGENTS, '--scope', 'user', '--yes', '--env', 'FILES_TOKEN', '--', 'files-server', '--stdio']
    const remove = ['mcp', 'remove', 'files', '--scope', 'user', '--yes']

    const check = async (label: string): Promise<'none' | 'all'> => {
      const verify = await loadout(sb, ['verify', '--json'])
      expect(verify.status, `${label}: ${verify.stdout}${verify.stderr}`).toBe(0)
      expect(journalPending(sb.home), label).toBe(false)
      expect(tempNames(sb.home), label).toEqual([])
      const targets = recordedTargets(sb.home, ID)
      if (targets.length === 0) {
        expect(hashes(), label).toEqual(original)
        return 'none'
      }
      expect(targets, label).toEqual(AGENTS.split(',').sort())
      expect(JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers.files.command, label).toBe('files-server')
      expect(readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8'), label).toContain('[mcp_servers.files]')
      expect(existsSync(join(sb.home, '.cursor', 'mcp.json')), label).toBe(true)
      return 'all'
    }

    const timed = async (args: string[]) => {
      const start = Date.now()
      const result = await loadout(sb, args)
      expect(result.status, result.stderr).toBe(0)
      return Date.now() - start
    }
    const span = {add: await timed(add), remove: 0}
    expect(await check('after an unkilled add')).toBe('all')
    span.remove = await timed(remove)
    expect(await check('after an unkilled remove')).toBe('none')

    for (let i = 0; i < KILLS; i++) {
      for (const [command, args] of [
        ['add', add],
        ['remove', remove],
      ] as const) {
        if (command === 'remove' && recordedTargets(sb.home, ID).length === 0) expect((await loadout(sb, add)).status).toBe(0)
        const delay = Math.floor(((i + Math.random()) / KILLS) * span[command] * 1.1)
        await runAndSignal(sb, args, delay)
        await check(`${command} killed after ${delay} ms`)
      }
    }
    // the state after a kill is always whole; running again finishes the job
    if (recordedTargets(sb.home, ID).length > 0) expect((await loadout(sb, remove)).status).toBe(0)
    expect(await check('at the end')).toBe('none')
  })
})
