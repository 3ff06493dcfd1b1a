import {Config} from '@oclif/core'
import {describe, expect, it} from 'vitest'
import {execFileSync} from 'node:child_process'
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {makeSandbox, NODE, ROOT, runCli} from './support/cli.js'
import {startGitHttpsServer} from './support/git-http.js'
import {makeServedRepo} from './support/git-repos.js'
import {loadedPackage, moduleTrace} from './support/module-trace.js'

describe('start-up', () => {
  it('the --version fast path prints exactly what oclif would', async () => {
    const sb = makeSandbox()
    try {
      const config = await Config.load(ROOT)
      // oclif names the Node it runs on: the one running loadout (LOADOUT_TEST_NODE may differ from ours)
      const node = execFileSync(NODE, ['-p', 'process.version'], {encoding: 'utf8'}).trim()
      const userAgent = config.userAgent.replace(`node-${process.version}`, `node-${node}`)
      for (const flag of ['--version', '-v']) {
        const result = await runCli([flag], {cwd: sb.project, env: sb.env})
        expect(result.status).toBe(0)
        expect(result.stdout).toBe(`${userAgent}\n`)
      }
    } finally {
      sb.cleanup()
    }
  })

  it('everything else still goes through oclif', async () => {
    const sb = makeSandbox()
    try {
      const help = await runCli(['--help'], {cwd: sb.project, env: sb.env})
      expect(help.status).toBe(0)
      expect(help.stdout).toMatch(/skills/)
      const both = await runCli(['--version', '--help'], {cwd: sb.project, env: sb.env})
      expect(both.status).toBe(0)
    } finally {
      sb.cleanup()
    }
  })

  it('the fast path of the read-only commands loads no oclif, git, prompt or YAML code', async () => {
    const sb = makeSandbox({git: true})
    const trace = moduleTrace()
    try {
      const commands = [
        ['list', '--json'],
        ['verify'],
        ['skills', 'list', '--agent', 'claude-code,codex'],
        ['search', 'x', '--json'],
        ['agents', 'list'],
        ['targets', '--json'],
      ]
      for (const args of commands) {
        trace.reset()
        const fast = await runCli(args, {cwd: sb.project, env: {...sb.env, ...trace.env}})
        expect(fast.status, `${args.join(' ')}: ${fast.stderr}`).toBe(0)
        const modules = trace.loaded()
        // the trace works: the fast path's bundle is in it, and the modules tsc wrote are not (bin/run.js
        // loads the bundle's loader from dist/start/)
        expect(
          modules.some((m) => m.includes('/dist/fast/')),
          args.join(' '),
        ).toBe(true)
        expect(
          modules.filter((m) => /\/dist\/(core|ui|commands)\//.test(m)),
          args.join(' '),
        ).toEqual([])
        // subagents are YAML-fronted Markdown and TOML: only `agents list` may read those
        const parsers = args[0] === 'agents' ? [] : ['yaml', 'smol-toml']
        for (const pkg of ['@oclif/core', 'simple-git', '@inquirer/prompts', 'pacote', 'tar', ...parsers])
          expect(loadedPackage(modules, pkg), `${args.join(' ')} loaded ${pkg}`).toBe(false)
        // and LOADOUT_NO_FAST=1 takes the oclif path, which the same check sees
        trace.reset()
        const slow = await runCli(args, {cwd: sb.project, env: {...sb.env, ...trace.env, LOADOUT_NO_FAST: '1'}})
        expect(slow.status).toBe(0)
        expect(loadedPackage(trace.loaded(), '@oclif/core'), `${args.join(' ')} with LOADOUT_NO_FAST=1`).toBe(true)
      }
    } finally {
      trace.cleanup()
      sb.cleanup()
    }
  })

  it('no read-only command loads simple-git or ora, on either path; an install from git loads simple-git', {timeout: 120_000}, async () => {
    const sb = makeSandbox({git: true})
    const trace = moduleTrace()
    mkdirSync(join(sb.dir, 'served'))
    const server = await startGitHttpsServer({root: join(sb.dir, 'served')})
    try {
      const skill = '---\nname: traced\ndescription: A skill to install.\n---\n\nBody.\n'
      makeServedRepo(join(sb.dir, 'work'), join(sb.dir, 'served'), 'acme/traced', {'skills/traced/SKILL.md': skill})
      const env = {...sb.env, ...trace.env, ...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}
      const readOnly = [
        ['list', '--json'],
        ['verify'],
        ['search', 'x', '--json'],
        ['targets', '--json'],
        ['skills', 'list'],
        ['agents', 'list'],
        ['--help'],
        ['--version'],
        ['outdated', '--help'],
      ]
      for (const args of readOnly) {
        for (const path of [{}, {LOADOUT_NO_FAST: '1'}]) {
          trace.reset()
          const result = await runCli(args, {cwd: sb.project, env: {...env, ...path}})
          const label = `${args.join(' ')}${path.LOADOUT_NO_FAST ? ' with LOADOUT_NO_FAST=1' : ''}`
          expect(result.status, `${label}: ${result.stderr}`).toBe(0)
          const modules = trace.loaded()
          expect(
            modules.some((m) => m.endsWith('/bin/run.js')),
            `${label}: the trace saw the CLI start`,
          ).toBe(true)
          for (const pkg of ['simple-git', 'ora']) expect(loadedPackage(modules, pkg), `${label} loaded ${pkg}`).toBe(false)
        }
      }
      // the same check sees simple-git when git runs (and no ora: no terminal, so no spinner)
      trace.reset()
      const install = await runCli(['install', 'acme/traced', '--agent', 'codex', '--scope', 'user', '--yes'], {cwd: sb.project, env})
      expect(install.status, install.stderr).toBe(0)
      expect(loadedPackage(trace.loaded(), 'simple-git'), 'an install from git loaded simple-git').toBe(true)
      expect(loadedPackage(trace.loaded(), 'ora'), 'an install off a terminal loaded ora').toBe(false)
    } finally {
      await server.stop()
      trace.cleanup()
      sb.cleanup()
    }
  })
})
