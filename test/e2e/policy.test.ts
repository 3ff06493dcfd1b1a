/**
 * The policy chain end to end, against two real HTTPS git servers on 127.0.0.1 (two ports, so two
 * `host:port` sources): a system policy that allows one of them refuses the other before anything is
 * fetched from it, a project policy cannot loosen that, a policy without hooks refuses a plugin with
 * hooks before anything is written, and `policy show` names the file of every rule.
 */
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {makeServedRepo} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nBody of ${name}.\n`
const HOOKS = JSON.stringify({hooks: {SessionStart: [{hooks: [{type: 'command', command: 'echo hi'}]}]}})

let work: string
let allowed: GitHttpsServer
let other: GitHttpsServer
let farSha: string
const sandbox = sandboxes()

const port = (server: GitHttpsServer) => new URL(server.origin).port
const systemPolicy = (sb: Sandbox, policy: unknown): string => {
  const file = join(sb.dir, 'etc-policy.json')
  writeFileSync(file, JSON.stringify(policy))
  return file
}
const run = (sb: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}) =>
  loadout(sb, args, {env: {...allowed.trustEnv(), LOADOUT_POLICY: join(sb.dir, 'etc-policy.json'), ...env}})

/** Every file under HOME hashed, except the download cache (fetching is allowed; writing is not). */
const homeSnapshot = (home: string): Map<string, string> => {
  const out = new Map<string, string>()
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (r === '.cache/loadout') continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) {
        out.set(r, 'dir')
        walk(full, r)
      } else out.set(r, createHash('sha256').update(readFileSync(full)).digest('hex'))
    }
  }
  walk(home, '')
  return out
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-policy-')))
  allowed = await startGitHttpsServer({root: join(work, 'allowed')})
  other = await startGitHttpsServer({root: join(work, 'other'), ca: allowed.ca})
  const src = join(work, 'src')
  farSha = makeServedRepo(src, join(work, 'other'), 'far/plugin', {'skills/far-one/SKILL.md': skill('far-one')}).sha
  makeServedRepo(src, join(work, 'other'), 'far/market', {'.claude-plugin/marketplace.json': JSON.stringify({name: 'far', plugins: []})})
  makeServedRepo(src, join(work, 'allowed'), 'acme/market', {
    'plugins/plain/skills/plain-one/SKILL.md': skill('plain-one'),
    'plugins/hooky/.claude-plugin/plugin.json': JSON.stringify({name: 'hooky', version: '1.0.0'}),
    'plugins/hooky/skills/hooky-one/SKILL.md': skill('hooky-one'),
    'plugins/hooky/hooks/hooks.json': HOOKS,
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'acme',
      plugins: [
        {name: 'plain', source: './plugins/plain'},
        {name: 'hooky', source: './plugins/hooky'},
        {name: 'elsewhere', source: {source: 'url', url: other.git.url('far/plugin')}},
      ],
    }),
  })
})

afterAll(async () => {
  await allowed?.stop()
  await other?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('a system policy that allows one git host', () => {
  let sb: Sandbox
  let policyFile: string
  beforeAll(async () => {
    sb = sandbox({git: true})
    mkdirSync(join(sb.home, '.claude'))
    policyFile = systemPolicy(sb, {sources: {allow: [`127.0.0.1:${port(allowed)}`]}})
    const added = await run(sb, ['marketplace', 'add', allowed.git.url('acme/market'), '--scope', 'user', '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
  })

  it('refuses marketplace add of another host, before fetching from it, naming the file and the rule', async () => {
    other.clearRequests()
    const result = await run(sb, ['marketplace', 'add', other.git.url('far/market'), '--scope', 'user', '--json'])
    expect(result.status).toBe(11)
    const error = jsonError(result)
    expect(error.code).toBe('policy-refused')
    expect(error.message).toContain(`127.0.0.1:${port(other)}`)
    expect(error.message).toContain(`sources.allow in ${policyFile}`)
    expect(error.details).toMatchObject({rule: 'sources.allow', file: policyFile, subject: `127.0.0.1:${port(other)}`})
    expect(other.requestsTo('/git').length).toBe(0)
    const listed = await run(sb, ['marketplace', 'list', '--json'])
    expect(JSON.stringify(listed.json())).not.toContain('far')
  })

  it('says it on stderr without --json, one line and what to do', async () => {
    const result = await run(sb, ['marketplace', 'add', other.git.url('far/market'), '--scope', 'user'])
    expect(result.status).toBe(11)
    expect(result.stderr).toMatch(/^error: refused by policy: .*sources\.allow/m)
    expect(result.stderr).toContain('loadout policy show')
  })

  it('refuses to install a plugin a catalog lists on another host, before fetching it, writing nothing', async () => {
    other.clearRequests()
    const before = homeSnapshot(sb.home)
    const result = await run(sb, ['install', '--loose', 'elsewhere@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(11)
    expect(jsonError(result).details).toMatchObject({rule: 'sources.allow', file: policyFile})
    expect(other.requestsTo('/git').length).toBe(0)
    expect(homeSnapshot(sb.home)).toEqual(before)
  })

  it('refuses a direct install from another host', async () => {
    const result = await run(sb, ['install', '--loose', other.git.url('far/plugin'), '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status).toBe(11)
    expect(jsonError(result).message).toContain(policyFile)
  })

  it('installs from the allowed host', async () => {
    const result = await run(sb, ['install', '--loose', 'plain@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.claude/skills/plain-one/SKILL.md'))).toBe(true)
  })

  it('a project policy cannot loosen it: its wider list is ignored with a warning, and the system file still refuses', async () => {
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({sources: {allow: ['*']}}))
    try {
      const result = await run(sb, ['install', '--loose', 'elsewhere@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
      expect(result.status).toBe(11)
      expect(jsonError(result).details).toMatchObject({rule: 'sources.allow', file: policyFile})
      const plain = await run(sb, ['install', '--loose', 'plain@acme', '--agent', 'claude-code', '--scope', 'user', '--force', '--json'])
      expect(plain.status, plain.stdout).toBe(0)
      expect(plain.json().problems).toContainEqual(expect.objectContaining({code: 'policy-loosening-ignored', file: join(sb.project, 'loadout-policy.json')}))
      const shown = await run(sb, ['policy', 'show', '--json'])
      expect(shown.status).toBe(0)
      const view = shown.json()
      expect(view.warnings).toEqual([expect.objectContaining({file: join(sb.project, 'loadout-policy.json'), rule: 'sources.allow'})])
      expect(view.effective.sources.allow).toEqual([`127.0.0.1:${port(allowed)}`])
      const text = await run(sb, ['policy', 'show'])
      expect(text.stdout).toContain('warning:')
      expect(text.stdout).toContain('loadout-policy.json')
    } finally {
      rmSync(join(sb.project, 'loadout-policy.json'))
    }
  })

  it('a project policy can tighten it: blocking the marketplace refuses what was allowed', async () => {
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({marketplaces: {block: ['acme']}}))
    try {
      const result = await run(sb, ['install', '--loose', 'plain@acme', '--agent', 'claude-code', '--scope', 'user', '--force', '--json'])
      expect(result.status).toBe(11)
      expect(jsonError(result).details).toMatchObject({rule: 'marketplaces.block', file: join(sb.project, 'loadout-policy.json')})
    } finally {
      rmSync(join(sb.project, 'loadout-policy.json'))
    }
  })

  it('update of an installed plugin the policy now blocks is refused before fetching the plugin', async () => {
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({plugins: {block: ['plain@*']}}))
    try {
      const result = await run(sb, ['update', 'plain@acme', '--scope', 'user', '--json'])
      expect(result.status, result.stdout).toBe(11)
      expect(jsonError(result).details).toMatchObject({rule: 'plugins.block', subject: 'plain@acme'})
    } finally {
      rmSync(join(sb.project, 'loadout-policy.json'))
    }
  })

  it('install with no argument refuses a plugin loadout.json declares from another host, writing nothing', async () => {
    const project = sandbox({git: true})
    systemPolicy(project, {sources: {allow: [`127.0.0.1:${port(allowed)}`]}})
    writeFileSync(join(project.project, 'loadout.json'), JSON.stringify({plugins: {'plugin@direct': {source: other.git.url('far/plugin')}}}))
    other.clearRequests()
    const result = await run(project, ['install', '--loose', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(11)
    expect(jsonError(result).details).toMatchObject({rule: 'sources.allow', subject: `127.0.0.1:${port(other)}`})
    expect(other.requestsTo('/git').length).toBe(0)
    expect(existsSync(join(project.project, '.claude'))).toBe(false)
    expect(existsSync(join(project.project, 'loadout.lock'))).toBe(false)
  })

  it('outdated does not ask a remote the policy refuses', async () => {
    const result = await run(sb, ['install', '--loose', other.git.url('far/plugin'), '--agent', 'claude-code', '--scope', 'user', '--json'], {
      LOADOUT_POLICY: join(sb.dir, 'none.json'),
    })
    expect(result.status, result.stdout).toBe(0)
    other.clearRequests()
    const outdated = await run(sb, ['outdated', '--json'])
    expect(outdated.status, outdated.stdout).toBe(0)
    expect(other.requestsTo('/git').length).toBe(0)
    const open = await run(sb, ['outdated', '--json'], {LOADOUT_POLICY: join(sb.dir, 'none.json')})
    expect(open.status).toBe(0)
    expect(other.requestsTo('/git').length).toBeGreaterThan(0)
  })

  it('marketplace update is refused once the policy no longer allows the marketplace host', async () => {
    systemPolicy(sb, {sources: {allow: ['github.com']}})
    try {
      const result = await run(sb, ['marketplace', 'update', 'acme', '--json'])
      expect(result.status).toBe(11)
      expect(JSON.stringify(jsonError(result))).toContain('sources.allow')
    } finally {
      systemPolicy(sb, {sources: {allow: [`127.0.0.1:${port(allowed)}`]}})
    }
  })
})

describe('a policy without hooks', () => {
  it('refuses a plugin with hooks before anything is written (HOME hashed before and after)', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    systemPolicy(sb, {})
    const added = await run(sb, ['marketplace', 'add', allowed.git.url('acme/market'), '--json'])
    expect(added.status, added.stdout).toBe(0)
    mkdirSync(join(sb.home, '.config/loadout'), {recursive: true})
    const userPolicy = join(sb.home, '.config/loadout/policy.json')
    writeFileSync(userPolicy, JSON.stringify({hooks: false}))
    const before = homeSnapshot(sb.home)
    const result = await run(sb, ['install', '--loose', 'hooky@acme', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(11)
    const error = jsonError(result)
    expect(error.details).toMatchObject({rule: 'hooks', file: userPolicy})
    expect(error.message).toContain('SessionStart')
    expect(homeSnapshot(sb.home)).toEqual(before)
    // the plugin without hooks from the same marketplace is fine
    const plain = await run(sb, ['install', '--loose', 'plain@acme', '--agent', 'claude-code', '--json'])
    expect(plain.status, plain.stdout).toBe(0)
  })
})

describe('loadout policy show', () => {
  it('names the file of each rule, in order system, user, project', async () => {
    const sb = sandbox({git: true})
    const system = systemPolicy(sb, {sources: {allow: ['*.corp.example', '127.0.0.1:*']}, requirePinned: true})
    const user = join(sb.home, '.config/loadout/policy.json')
    mkdirSync(join(sb.home, '.config/loadout'), {recursive: true})
    writeFileSync(user, JSON.stringify({hooks: false, sources: {allow: ['git.corp.example']}, plugins: {block: ['evil@*']}}))
    const project = join(sb.project, 'loadout-policy.json')
    writeFileSync(project, JSON.stringify({mcp: {stdio: false}, marketplaces: {block: ['shady']}, requirePinned: false}))
    const result = await run(sb, ['policy', 'show', '--json'])
    expect(result.status, result.stdout).toBe(0)
    const view = result.json()
    expect(view.files.map((f: {level: string; path: string; present: boolean}) => [f.level, f.path, f.present])).toEqual([
      ['system', system, true],
      ['user', user, true],
      ['project', project, true],
    ])
    const fileOf = (rule: string) => view.rules.filter((r: {rule: string}) => r.rule === rule).map((r: {file: string}) => r.file)
    expect(fileOf('sources.allow')).toEqual([system, user])
    expect(fileOf('requirePinned')).toEqual([system])
    expect(fileOf('hooks')).toEqual([user])
    expect(fileOf('plugins.block')).toEqual([user])
    expect(fileOf('mcp.stdio')).toEqual([project])
    expect(fileOf('marketplaces.block')).toEqual([project])
    expect(view.effective).toEqual({
      sources: {allow: ['git.corp.example']},
      marketplaces: {block: ['shady']},
      plugins: {block: ['evil@*']},
      hooks: false,
      mcp: {stdio: false},
      requirePinned: true,
    })
    expect(view.warnings).toEqual([expect.objectContaining({file: project, rule: 'requirePinned'})])
    const text = await run(sb, ['policy', 'show'])
    expect(text.stdout).toMatch(new RegExp(`hooks\\s+false\\s+${user.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(user\\)`))
    expect(text.stdout).toContain(`${project} (project)`)
  })

  it('with no policy files says everything is allowed', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['policy', 'show'], {env: {LOADOUT_POLICY: join(sb.dir, 'none.json')}})
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('no rules')
  })

  it('a broken policy file fails closed: policy show and install exit 11 naming it', async () => {
    const sb = sandbox()
    const file = systemPolicy(sb, {hooks: 'no', surprise: 1})
    const shown = await run(sb, ['policy', 'show', '--json'])
    expect(shown.status).toBe(11)
    expect(jsonError(shown)).toMatchObject({code: 'policy-invalid'})
    expect(jsonError(shown).message).toContain(file)
    writeFileSync(file, '{not json')
    const install = await run(sb, ['install', '--loose', allowed.git.url('acme/market'), '--agent', 'claude-code', '--json'])
    expect(install.status).toBe(11)
    expect(jsonError(install).code).toBe('policy-invalid')
  })
})

describe('requirePinned', () => {
  it('refuses a git source without a commit and accepts one with it', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const file = systemPolicy(sb, {requirePinned: true})
    const unpinned = await run(sb, ['install', '--loose', other.git.url('far/plugin'), '--agent', 'claude-code', '--json'])
    expect(unpinned.status).toBe(11)
    expect(jsonError(unpinned).details).toMatchObject({rule: 'requirePinned', file})
    const pinned = await run(sb, ['install', '--loose', `${other.git.url('far/plugin')}#${farSha}`, '--agent', 'claude-code', '--json'])
    expect(pinned.status, pinned.stdout + pinned.stderr).toBe(0)
    expect(pinned.json()).toMatchObject({commit: farSha})
  })
})
