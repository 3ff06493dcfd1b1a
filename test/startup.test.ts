import {Config} from '@oclif/core'
import {describe, expect, it} from 'vitest'
import {makeSandbox, ROOT, runCli} from './support/cli.js'

describe('start-up', () => {
  it('the --version fast path prints exactly what oclif would', async () => {
    const sb = makeSandbox()
    try {
      const config = await Config.load(ROOT)
      for (const flag of ['--version', '-v']) {
        const result = await runCli([flag], {cwd: sb.project, env: sb.env})
        expect(result.status).toBe(0)
        expect(result.stdout).toBe(`${config.userAgent}\n`)
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
})
