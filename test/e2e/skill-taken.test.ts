/**
 * A skill name another plugin already installed: written as `<plugin>-<name>`; refused (exit 5) when
 * that name is taken too, or when the name is the user's own file (unless --prefix asks for it).
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, text)
}

const plugin = (sb: Sandbox, name: string, skills: string[]): string => {
  const root = join(sb.dir, name)
  write(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0'}))
  for (const skill of skills) write(join(root, 'skills', skill, 'SKILL.md'), `---\nname: ${skill}\ndescription: ${skill} of ${name}.\n---\n\nBody.\n`)
  return root
}

const install = (sb: Sandbox, root: string, extra: string[] = []) =>
  loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json', ...extra])

describe('a skill name taken by another plugin', () => {
  it('is written under the plugin-qualified name, said in --json, with no flag', async () => {
    const sb = sandbox()
    expect((await install(sb, plugin(sb, 'alpha', ['review']))).status).toBe(0)
    const beta = await install(sb, plugin(sb, 'beta', ['review']))
    expect(beta.status, beta.stdout).toBe(0)
    expect(beta.json().plans[0].renamed).toEqual([{component: 'beta@direct/skill/review', name: 'review', as: 'beta-review', because: 'alpha@direct'}])
    const skills = join(sb.home, '.claude', 'skills')
    expect(readFileSync(join(skills, 'review', 'SKILL.md'), 'utf8')).toContain('review of alpha')
    expect(readFileSync(join(skills, 'beta-review', 'SKILL.md'), 'utf8')).toMatch(/name: beta-review/)
  })

  it('does not offer --prefix when the prefixed name is taken too', async () => {
    const sb = sandbox()
    expect((await install(sb, plugin(sb, 'alpha', ['review', 'beta-review']))).status).toBe(0)
    const refused = await install(sb, plugin(sb, 'beta', ['review']))
    expect(refused.status).toBe(5)
    const error = jsonError(refused)
    expect(error.message).not.toMatch(/--prefix/)
    expect(error.suggestions.join('\n')).not.toMatch(/--prefix/)
    expect(error.suggestions[0]).toMatch(/^remove or rename the skill at .*review first \(as a plugin, Claude Code would show it as "beta:review"\)$/)
    expect(existsSync(join(sb.home, '.claude', 'skills', 'beta-review', 'SKILL.md'))).toBe(true)
  })
})

describe("a slash command name taken by the user's own file", () => {
  const withCommand = (sb: Sandbox): string => {
    const root = plugin(sb, 'gamma', [])
    write(join(root, 'commands', 'x.md'), '---\ndescription: the x of gamma\n---\nDo x.\n')
    return root
  }

  it('is refused (exit 5) naming the file and --prefix, and the file is left as it was; --prefix installs it beside', async () => {
    const sb = sandbox()
    const mine = join(sb.home, '.claude', 'commands', 'x.md')
    write(mine, 'my own x\n')
    const root = withCommand(sb)
    const refused = await install(sb, root)
    expect(refused.status, refused.stdout).toBe(5)
    const error = jsonError(refused)
    expect(error.code).toBe('command-taken')
    expect(error.message).toContain(mine)
    expect(error.message).toContain('belongs to the user')
    expect(error.message).toMatch(/install it as "gamma-x" with --prefix$/)
    expect(readFileSync(mine, 'utf8')).toBe('my own x\n')
    expect((await loadout(sb, ['list', '--json'])).stdout).not.toContain('gamma')

    const prefixed = await install(sb, root, ['--prefix'])
    expect(prefixed.status, prefixed.stdout).toBe(0)
    expect(readFileSync(mine, 'utf8')).toBe('my own x\n')
    expect(readFileSync(join(sb.home, '.claude', 'commands', 'gamma-x.md'), 'utf8')).toContain('Do x.')
    expect((await loadout(sb, ['uninstall', 'gamma', '--yes'])).status).toBe(0)
    expect(existsSync(join(sb.home, '.claude', 'commands', 'gamma-x.md'))).toBe(false)
    expect(readFileSync(mine, 'utf8')).toBe('my own x\n')
  })
})
