/**
 * Faults a careful user's machine produces, under the real fault: a folder the user may not write, a
 * config file they made read-only, a full disk (a small tmpfs), a server that never answers, a
 * terminal with no size, and SIGTERM / SIGINT in the middle of a run. Each gives a clear message and a
 * documented status, and leaves nothing half-written.
 */
import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statfsSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, NODE, type Sandbox} from '../support/cli.js'
import {hang, startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {changes, changesOutside, jsonError, loadout, openUp, sandboxes, snapshot, unprivileged} from './helpers.js'
import {AGENTS3, configHashes, journalPending, prepareHome, recordedTargets, tempNames, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const LOADOUT_OWN = ['.config/loadout', '.local/share/loadout', '.cache/loadout']
const install = (plugin: string) => ['install', '--loose', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json']

const own = (path: string, uid: number, gid: number) => {
  chownSync(path, uid, gid)
  if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) own(join(path, entry), uid, gid)
}

describe('permissions', () => {
  it('a read-only agent folder: exit 10 naming it, and the agents written before it are rolled back', async (ctx) => {
    const as = unprivileged()
    if (!as) return ctx.skip()
    const sb = sandbox()
    prepareHome(sb, {big: false})
    const plugin = writeKit(sb.dir)
    // codex's skills folder comes second: claude-code's copies are made first, and must go again
    const locked = join(sb.home, '.agents', 'skills')
    mkdirSync(locked, {recursive: true})
    openUp(sb.dir)
    if (as.uid !== undefined) own(sb.dir, as.uid, as.gid!)
    chmodSync(locked, 0o555)
    const before = snapshot(sb.home)
    try {
      const result = await loadout(sb, install(plugin), as)
      expect(result.status, result.stdout + result.stderr).toBe(10)
      const error = jsonError(result)
      expect(error.code).toBe('permission-denied')
      expect(error.message).toContain(locked)
      expect(changesOutside(changes(before, snapshot(sb.home)), LOADOUT_OWN)).toEqual([])
      expect(recordedTargets(sb.home, 'kit@direct')).toEqual([])
      expect(tempNames(sb.home)).toEqual([])
      expect(journalPending(sb.home)).toBe(false)
    } finally {
      chmodSync(locked, 0o755)
    }
  })

  it('a ~/.claude.json without a write bit (0444) is refused with a message, never replaced', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const plugin = writeKit(sb.dir)
    const file = join(sb.home, '.claude.json')
    chmodSync(file, 0o444)
    const hashes = configHashes(sb.home)
    const inode = statSync(file).ino
    const before = snapshot(sb.home)
    const result = await loadout(sb, install(plugin))
    expect(result.status, result.stdout).toBe(10)
    const error = jsonError(result)
    expect(error.code).toBe('file-read-only')
    expect(error.message).toBe(`cannot change ${file}: it is read-only (mode 444); loadout will not replace it`)
    expect(configHashes(sb.home)).toEqual(hashes)
    expect(statSync(file).ino).toBe(inode)
    expect(statSync(file).mode & 0o777).toBe(0o444)
    expect(changesOutside(changes(before, snapshot(sb.home)), LOADOUT_OWN)).toEqual([])
    expect(tempNames(sb.home)).toEqual([])
  })
})

describe('a full disk', () => {
  let sb: Sandbox
  let mounted = false
  beforeAll(() => {
    sb = sandbox()
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', sb.home])
    mounted = mount.status === 0
    if (!mounted) console.warn(`full-disk test skipped: cannot mount a tmpfs here (${mount.stderr.toString().trim() || 'not root'})`)
  })
  afterAll(() => {
    if (mounted) spawnSync('umount', ['-l', sb.home])
  })

  it('ENOSPC: exit 10 naming the file, nothing half-written', async (ctx) => {
    if (!mounted) return ctx.skip()
    prepareHome(sb, {big: false})
    // a config of 600 KB that cannot be written again: the skills before it fit, the new .claude.json does not
    const projects = Object.fromEntries(Array.from({length: 2000}, (_, i) => [`/p/${i}`, {history: ['x'.repeat(280)]}]))
    writeFileSync(join(sb.home, '.claude.json'), JSON.stringify({theme: 'dark', projects}))
    const free = statfsSync(sb.home).bavail * statfsSync(sb.home).bsize
    writeFileSync(join(sb.home, 'filler'), Buffer.alloc(Math.max(0, free - 200 * 1024)))
    const plugin = writeKit(sb.dir)
    // loadout's own files live off the small disk, so the fault hits an agent's config
    const env = {LOADOUT_HOME: join(sb.dir, 'lh'), LOADOUT_DATA_DIR: join(sb.dir, 'ld'), LOADOUT_CACHE_DIR: join(sb.dir, 'lc')}
    const hashes = configHashes(sb.home)
    const before = snapshot(sb.home)
    const result = await loadout(sb, install(plugin), {env})
    expect(result.status, result.stdout + result.stderr).toBe(10)
    const error = jsonError(result)
    expect(error.code).toBe('disk-full')
    expect(error.message).toBe(`cannot change ${join(sb.home, '.claude.json')}: no space left on the device`)
    expect(configHashes(sb.home)).toEqual(hashes)
    expect(changes(before, snapshot(sb.home))).toEqual([])
    expect(existsSync(join(sb.dir, 'lh', 'journal.jsonl'))).toBe(false)
    const verify = await loadout(sb, ['verify', '--json'], {env})
    expect(verify.status).toBe(0)
    expect(verify.json().checked).toBe(0)
  })
})

describe('a server that never answers', () => {
  let server: TestHttpsServer
  beforeAll(async () => {
    server = await startHttpsServer()
    server.route('/hang/*', hang())
  })
  afterAll(async () => server?.stop())

  it('LOADOUT_HTTP_TIMEOUT bounds each try: exit 6 saying it timed out, nothing recorded', {timeout: 60_000}, async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['marketplace', 'add', server.url('/hang/catalog.json'), '--json'], {
      env: {...server.trustEnv(), LOADOUT_HTTP_TIMEOUT: '1'},
    })
    expect(result.status, result.stdout).toBe(6)
    const error = jsonError(result)
    expect(error.message).toMatch(/timed out after 1 s \(LOADOUT_HTTP_TIMEOUT\).*after 3 tries/)
    expect(server.requestsTo('/hang/')).toHaveLength(3)
    const list = await loadout(sb, ['marketplace', 'list', '--json'])
    expect(JSON.stringify(list.json())).not.toContain('/hang/')
  })
})

/**
 * Runs loadout under `script`, on a pseudo-terminal that has no size (0 rows, 0 columns), or the size
 * `stty` sets first (`cols 0 rows 0` says it whatever the caller's terminal is).
 */
const underScript = (sb: Sandbox, args: readonly string[], env: NodeJS.ProcessEnv, {typing = false, stty = ''} = {}) => {
  const loadout = [NODE, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const command = stty ? `stty ${stty} && ${loadout}` : loadout
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: sb.project,
    env: {...sb.env, ...env},
    stdio: [typing ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  // a looping spinner would never end: give up long before the test's own timeout, and say so
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000)
  const done = new Promise<{code: number | null; out: string}>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard)
      resolve({code, out})
    }),
  )
  return {child, done, output: () => out}
}

const hasScript = spawnSync('script', ['--version']).status === 0
/** What ora writes around each frame it draws (synchronized output), and how it erases a line. */
const SPINNER_FRAME = '\u001B[?2026h'
const SPINNER_ERASE = '\u001B[1G\u001B[0K'

describe('a terminal with no size, and signals', () => {
  it.skipIf(!hasScript)('completes under script -qec, the spinner shown without asking the terminal its size', {timeout: 120_000}, async () => {
    const sb = sandbox()
    prepareHome(sb, {big: false})
    const plugin = writeKit(sb.dir)
    const {done} = underScript(
      sb,
      install(plugin).filter((a) => a !== '--json'),
      {LOADOUT_TEST_STEP_DELAY_MS: '60'},
    )
    const {code, out} = await done
    expect(code, out).toBe(0)
    expect(out).toContain('installed kit@direct')
    expect(out).toContain(SPINNER_FRAME)
    expect(out).toContain(SPINNER_ERASE)
    expect(out).not.toContain('\u001B[1A')
    expect(recordedTargets(sb.home, 'kit@direct')).toEqual(AGENTS3.split(',').sort())
  })

  for (const [size, stty, wraps] of [
    ['0 columns and 0 rows, set with stty', 'cols 0 rows 0', false],
    ['20 columns, narrower than the spinner text', 'cols 20 rows 5', true],
  ] as const) {
    it.skipIf(!hasScript)(`completes on a terminal of ${size}, each frame erased before the next`, {timeout: 120_000}, async () => {
      const sb = sandbox()
      prepareHome(sb, {big: false})
      const plugin = writeKit(sb.dir)
      const {done} = underScript(
        sb,
        install(plugin).filter((a) => a !== '--json'),
        {LOADOUT_TEST_STEP_DELAY_MS: '60'},
        {stty},
      )
      const {code, out} = await done
      expect(code, out).toBe(0)
      expect(out).toContain('installed kit@direct')
      const frames = out.split(SPINNER_FRAME).length - 1
      expect(frames, out).toBeGreaterThan(1)
      // every frame is erased (the last one when the spinner stops); a known width that the text
      // wraps at takes a line up for each extra line, an unknown one is drawn as one line
      expect(out.split(SPINNER_ERASE).length - 1).toBeGreaterThanOrEqual(frames)
      expect(out.includes('\u001B[1A')).toBe(wraps)
      expect(recordedTargets(sb.home, 'kit@direct')).toEqual(AGENTS3.split(',').sort())
    })
  }

  it.skipIf(!hasScript)(
    'the spinner stops while the consent prompt waits, so the question is not drawn over; answering no installs nothing',
    {timeout: 120_000},
    async () => {
      const sb = sandbox()
      prepareHome(sb, {big: false})
      const plugin = writeKit(sb.dir)
      const args = install(plugin).filter((a) => a !== '--json' && a !== '--yes')
      const {child, done, output} = underScript(sb, args, {}, {typing: true})
      while (!/allow it to run (this|these)\?/.test(output())) await new Promise((r) => setTimeout(r, 20))
      const asked = output().length
      // the spinner draws every 120 ms once the work has taken 300 ms: a second of waiting would show it
      await new Promise((r) => setTimeout(r, 1000))
      const whileWaiting = output().slice(asked)
      child.stdin!.write('n\r')
      const {code, out} = await done
      expect(whileWaiting).not.toContain(SPINNER_FRAME)
      expect(code, out).toBe(8)
      expect(out).toContain('not installed: the executable parts of kit@direct were not approved')
      expect(recordedTargets(sb.home, 'kit@direct')).toEqual([])
    },
  )

  for (const [signal, status] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it.skipIf(!hasScript)(
      `${signal} in the middle of an install on that terminal: rolled back, lock released, exit ${status}`,
      {timeout: 120_000},
      async () => {
        const sb = sandbox()
        prepareHome(sb)
        const plugin = writeKit(sb.dir)
        const hashes = configHashes(sb.home)
        const before = snapshot(sb.home)
        const {done} = underScript(
          sb,
          install(plugin).filter((a) => a !== '--json'),
          {LOADOUT_TEST_STEP_DELAY_MS: '300'},
        )
        // the run is inside its transaction once the journal records a change; its pid is in the lock
        const journal = join(sb.home, '.config', 'loadout', 'journal.jsonl')
        const owner = join(sb.home, '.config', 'loadout', '.lock', 'owner.json')
        for (;;) {
          if (existsSync(journal) && readFileSync(journal, 'utf8').includes('"t":"create"') && existsSync(owner)) break
          await new Promise((r) => setTimeout(r, 20))
        }
        process.kill(JSON.parse(readFileSync(owner, 'utf8')).pid, signal)
        const {code, out} = await done
        expect(code, out).toBe(status)
        expect(out).toContain('the change was rolled back')
        expect(existsSync(join(sb.home, '.config', 'loadout', '.lock'))).toBe(false)
        expect(journalPending(sb.home)).toBe(false)
        expect(configHashes(sb.home)).toEqual(hashes)
        expect(changesOutside(changes(before, snapshot(sb.home)), LOADOUT_OWN)).toEqual([])
        expect(recordedTargets(sb.home, 'kit@direct')).toEqual([])
        expect(tempNames(sb.home)).toEqual([])
      },
    )
  }
})
