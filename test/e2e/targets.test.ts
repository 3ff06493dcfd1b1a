/** `loadout targets` through the built CLI: detection by stat, resolved paths per scope, confidence. */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

interface Described {
  id: string
  detected: boolean
  detectedAt?: string
  confidence: string
  paths: Array<{section: string; scope: string; path: string; confidence: string; key?: string}>
}

describe('loadout targets', () => {
  it('lists every agent of the registry, detecting the ones whose home folder exists', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const result = await loadout(sb, ['targets', '--scope', 'user', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const targets = result.json<{scope: string; targets: Described[]}>().targets
    expect(targets.map((t) => t.id).sort()).toEqual([
      'characteroid',
      'claude-code',
      'codex',
      'cst-agent',
      'cursor',
      'deepagents',
      'gemini-cli',
      'github-copilot',
      'lexora',
      'opencode',
      'universal',
    ])
    const claude = targets.find((t) => t.id === 'claude-code')!
    expect(claude).toMatchObject({detected: true, detectedAt: join(sb.home, '.claude')})
    expect(targets.find((t) => t.id === 'codex')!.detected).toBe(false)
    expect(claude.paths).toContainEqual(expect.objectContaining({section: 'skills', scope: 'user', path: join(sb.home, '.claude', 'skills')}))
    expect(claude.paths).toContainEqual(expect.objectContaining({section: 'mcp', scope: 'user', path: join(sb.home, '.claude.json'), key: 'mcpServers'}))
    expect(targets.find((t) => t.id === 'characteroid')!.confidence).toBe('unconfirmed')
    const codexAgents = targets.find((t) => t.id === 'codex')!.paths.filter((p) => p.section === 'subagents')
    // outside a project, the user scope's folder only
    expect(codexAgents.map((p) => [p.scope, p.path, p.confidence])).toEqual([['user', join(sb.home, '.codex', 'agents'), 'confirmed']])
  })

  it('follows CLAUDE_CONFIG_DIR and XDG_CONFIG_HOME, and shows project paths under the project root', async () => {
    const sb = sandbox({git: true})
    const config = join(sb.dir, 'claude-config')
    const xdg = join(sb.dir, 'xdg')
    const user = (
      await loadout(sb, ['targets', '--scope', 'user', '--agent', 'claude-code,cst-agent', '--json'], {env: {CLAUDE_CONFIG_DIR: config, XDG_CONFIG_HOME: xdg}})
    ).json<{targets: Described[]}>()
    const paths = user.targets.flatMap((t) => t.paths.filter((p) => p.section === 'skills').map((p) => p.path))
    expect(paths).toEqual([join(config, 'skills'), join(xdg, 'cst-agent', 'skills')])
    const project = (await loadout(sb, ['targets', '--agent', 'cst-agent', '--json'])).json<{scope: string; targets: Described[]}>()
    expect(project.scope).toBe('project')
    expect(project.targets[0]!.paths.filter((p) => p.section === 'skills').map((p) => p.path)).toEqual([
      join(sb.project, '.agent', 'skills'),
      join(sb.project, '.claude', 'skills'),
    ])
  })

  it('--detected keeps only detected agents; the text output marks unconfirmed rows', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.codex'))
    const detected = (await loadout(sb, ['targets', '--detected', '--json'])).json<{targets: Described[]}>()
    expect(detected.targets.map((t) => t.id)).toEqual(['codex'])
    const text = await loadout(sb, ['targets', '--agent', 'characteroid', '--scope', 'user'])
    expect(text.status).toBe(0)
    expect(text.stdout).toMatch(/unconfirmed/)
  })

  it('an unknown agent is a usage error listing the known ones', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['targets', '--agent', 'claude', '--json'])
    expect(result.status).toBe(2)
    const error = jsonError(result)
    expect(error.message).toMatch(/unknown agent "claude"/)
    expect(error.suggestions.join(' ')).toContain('claude-code')
  })
})
