/** What oclif users expect of a CLI: `help <command>`, "did you mean" for a typo, shell completion. */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

describe('loadout help', () => {
  it('`help install` shows the install command’s help, as `install --help` does', async () => {
    const sb = sandbox()
    const help = await loadout(sb, ['help', 'install'])
    expect(help.status, help.stderr).toBe(0)
    expect(help.stdout).toMatch(/^Install a plugin/)
    expect(help.stdout).toContain('$ loadout install [PLUGIN...]')
    expect(help.stdout).toBe((await loadout(sb, ['install', '--help'])).stdout)
  })

  it('`help skills` shows the topic', async () => {
    const sb = sandbox()
    const help = await loadout(sb, ['help', 'skills'])
    expect(help.status, help.stderr).toBe(0)
    expect(help.stdout).toContain('skills list')
  })
})

describe('an unknown command', () => {
  it('is a usage error (status 2) that suggests the closest command', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['instal', 'acme/review'])
    expect(result.status).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('error: "instal" is not a loadout command')
    expect(result.stderr).toContain('did you mean "install"')
  })

  it('suggests within a topic', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['skills', 'lst'])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('did you mean "skills list"?')
  })

  it('answers {"error": ...} in loadout’s shape under --json', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['instal', '--json'])
    expect(result.status).toBe(2)
    const error = jsonError(result)
    expect(error).toMatchObject({code: 'unknown-command', exitStatus: 2, message: '"instal" is not a loadout command'})
    expect((error as {details: {didYouMean: string[]}}).details.didYouMean[0]).toBe('install')
  })

  it('says where to look when nothing is close', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['zzzzzzzzzz', '--json'])
    expect(result.status).toBe(2)
    expect(jsonError(result).suggestions).toEqual(['see: loadout help'])
  })
})

describe('loadout autocomplete', () => {
  it('`autocomplete bash` explains the setup and builds the completion cache in the cache folder', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['autocomplete', 'bash'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain('loadout autocomplete script bash')
    const setup = join(sb.home, '.cache', 'loadout', 'autocomplete', 'bash_setup')
    expect(existsSync(setup)).toBe(true)
    const script = await loadout(sb, ['autocomplete', 'script', 'bash'])
    expect(script.status, script.stderr).toBe(0)
    expect(script.stdout).toContain(setup)
    const functions = readFileSync(join(sb.home, '.cache', 'loadout', 'autocomplete', 'functions', 'bash', 'loadout.bash'), 'utf8')
    expect(functions).toContain('install')
    expect(functions).toContain('skills')
  })
})

describe('failures of oclif’s own commands', () => {
  it('are said in loadout’s words, with status 2 and no stack trace', async () => {
    const sb = sandbox()
    const help = await loadout(sb, ['help', 'instal'])
    expect(help.status).toBe(2)
    expect(help.stderr).toBe('error: Command instal not found.\n  see: loadout --help, or loadout <command> --help\n')
    const shell = await loadout(sb, ['autocomplete', 'fish', '--json'])
    expect(shell.status).toBe(2)
    expect(jsonError(shell)).toMatchObject({
      code: 'usage',
      exitStatus: 2,
      message: expect.stringContaining('Expected fish to be one of: zsh, bash, powershell'),
    })
    expect(shell.stderr).not.toMatch(/\bat .*\.js:\d+/)
  })
})
