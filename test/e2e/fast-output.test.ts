/**
 * The fast path writes its output to the descriptors itself (src/ui/output.ts): making
 * process.stdout on a pipe loads node:net and node:stream. These hold what that must not change: the
 * output is all there and in order when the reader is slow and the pipe is non-blocking (the rest
 * goes through the stream, and the run waits for it), a reader that goes away (`| head`) is not a
 * failure, and a run on pipes makes no stream at all.
 */
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {BIN, NODE} from '../support/cli.js'
import {loadout, sandboxes, writeSkill} from './helpers.js'

const sandbox = sandboxes()
let sb: ReturnType<typeof sandbox>
let expected: string

// Runs loadout with stdout on a pipe whose write end is non-blocking, read only after `delay`
// seconds (so the pipe fills, and a write would block), with stderr on its own pipe.
const SLOW_READER = `
import fcntl, os, subprocess, sys, time
node, bin, delay, *args = sys.argv[1:]
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
child = subprocess.Popen([node, bin, *args], stdout=w, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
os.close(w)
time.sleep(float(delay))
out = b''
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    out += chunk
err = child.stderr.read()
sys.stdout.buffer.write(out)
sys.stderr.buffer.write(err)
sys.exit(child.wait())
`

describe('the fast path writes its own output', () => {
  beforeAll(async () => {
    sb = sandbox()
    // enough skills that `skills list --json` is several times a pipe's 64 KiB
    for (let i = 0; i < 300; i++) {
      const name = `skill-${String(i).padStart(3, '0')}`
      writeSkill(join(sb.home, '.claude', 'skills'), name)
      writeFileSync(
        join(sb.home, '.claude', 'skills', name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: ${`The ${name} skill, described at length. `.repeat(12)}\n---\nBody.\n`,
      )
    }
    const plain = await loadout(sb, ['skills', 'list', '--json'], {env: {LOADOUT_NO_FAST: '1'}})
    expect(plain.status, plain.stderr).toBe(0)
    expected = plain.stdout
    expect(expected.length).toBeGreaterThan(3 * 65536)
  })

  it('writes all of it, in order, to a full non-blocking pipe read late', {timeout: 60_000}, () => {
    const run = spawnSync('python3', ['-c', SLOW_READER, NODE, BIN, '1', 'skills', 'list', '--json'], {
      cwd: sb.project,
      env: sb.env,
      maxBuffer: 64 * 1024 * 1024,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toBe(expected)
  })

  it('stops quietly when the reader goes away', () => {
    const both = spawnSync('bash', ['-c', `"$0" "$1" skills list --json | head -c 100 >/dev/null; echo "status \${PIPESTATUS[0]}"`, NODE, BIN], {
      cwd: sb.project,
      env: sb.env,
      encoding: 'utf8',
    })
    expect(both.stderr).toBe('')
    expect(both.stdout).toBe('status 0\n')
  })

  it('makes neither stdout nor stderr, nor loads node:net, on pipes', async () => {
    const probe = join(sb.dir, 'streams-probe.cjs')
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(sb.dir, 'modules.txt'))}, process.moduleLoadList.join('\\n')))\n`,
    )
    const listed = await loadout(sb, ['skills', 'list'], {env: {NODE_OPTIONS: `--require ${probe}`}})
    expect(listed.status, listed.stderr).toBe(0)
    expect(listed.stdout).toContain('skill-299')
    const modules = readFileSync(join(sb.dir, 'modules.txt'), 'utf8').split('\n')
    expect(modules).not.toContain('NativeModule net')
    // a failure, on stderr, too
    const failed = await loadout(sb, ['skills', 'list', '--agent', 'nope'], {env: {NODE_OPTIONS: `--require ${probe}`}})
    expect(failed.status).not.toBe(0)
    expect(failed.stderr).toMatch(/^error: /)
    expect(readFileSync(join(sb.dir, 'modules.txt'), 'utf8').split('\n')).not.toContain('NativeModule net')
  })
})
