import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, NODE} from '../support/cli.js'
import {loadout, sandboxes, writeSkill, type Sandbox} from './helpers.js'

const sandbox = sandboxes()

/** Runs a command with a stdin that gets one line and is never closed; resolves when it exits, or with `hung` after `limitMs`. */
const withOpenStdin = (
  sb: Sandbox,
  args: readonly string[],
  limitMs: number,
  env: NodeJS.ProcessEnv = {},
): Promise<{status: number | 'hung'; stdout: string}> =>
  new Promise((resolve, reject) => {
    const child = spawn(NODE, [BIN, ...args], {cwd: sb.project, env: {...sb.env, ...env}, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.on('error', reject)
    child.stdin.write('other@elsewhere\n')
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve({status: 'hung', stdout})
    }, limitMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      child.stdin.destroy()
      resolve({status: code ?? -1, stdout})
    })
  })

const installed = async (): Promise<Sandbox> => {
  const sb = sandbox()
  writeSkill(join(sb.dir, 'hello', 'skills'), 'hello')
  const result = await loadout(sb, ['install', '--loose', join(sb.dir, 'hello'), '--agent', 'claude-code', '--yes'])
  expect(result.status, result.stderr).toBe(0)
  return sb
}

describe('read-only commands never read standard input', () => {
  for (const fast of [false, true]) {
    const env = fast ? {} : {LOADOUT_NO_FAST: '1'}
    for (const command of ['outdated', 'verify']) {
      it(`${command}${fast ? '' : ' (oclif)'}: a piped stdin that closed is not taken for a plugin name`, async () => {
        const sb = await installed()
        const result = await new Promise<{status: number; stdout: string}>((resolve, reject) => {
          const child = spawn(NODE, [BIN, command, '--json'], {cwd: sb.project, env: {...sb.env, ...env}, stdio: ['pipe', 'pipe', 'pipe']})
          let stdout = ''
          child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
          child.on('error', reject)
          child.stdin.end('other@elsewhere\n')
          child.on('close', (code) => resolve({status: code ?? -1, stdout}))
        })
        expect(result.status).toBe(0)
        expect(result.stdout).toContain('hello@direct')
        expect(result.stdout).not.toContain('other@elsewhere')
      })

      it(`${command}${fast ? '' : ' (oclif)'}: finishes with a stdin that never closes`, async () => {
        const sb = await installed()
        const result = await withOpenStdin(sb, [command, '--json'], 20_000, env)
        expect(result.status).toBe(0)
        expect(result.stdout).toContain('hello@direct')
      })
    }
  }
})
