/**
 * Authoring a marketplace with the built CLI: `marketplace create`, `marketplace add-plugin` and
 * `marketplace validate`, then the marketplace made this way added with `marketplace add` and a
 * plugin from it installed into Claude Code in a sandbox HOME.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes, snapshot} from './helpers.js'

const sandbox = sandboxes()
const OWNER = ['--owner', 'Acme Tools <tools@acme.dev>']
const CLAUDE = '.claude-plugin/marketplace.json'
const CODEX = '.agents/plugins/marketplace.json'

const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'))

/** A plugin made by hand: a Claude manifest and one skill. */
const handMadePlugin = (dir: string, name: string, manifest: Record<string, unknown> = {}): void => {
  mkdirSync(join(dir, '.claude-plugin'), {recursive: true})
  writeFileSync(
    join(dir, '.claude-plugin', 'plugin.json'),
    JSON.stringify({name, description: `The ${name} plugin`, version: '1.2.0', author: {name: 'Ann', email: 'ann@acme.dev'}, ...manifest}, null, 2),
  )
  mkdirSync(join(dir, 'skills', `${name}-checklist`), {recursive: true})
  writeFileSync(
    join(dir, 'skills', `${name}-checklist`, 'SKILL.md'),
    `---\nname: ${name}-checklist\ndescription: Use when reviewing a change with the ${name} plugin.\n---\n\n# Checklist\n\n1. Read the diff.\n`,
  )
}

const create = (sb: Sandbox, args: string[]) => loadout(sb, ['marketplace', 'create', ...args])

describe('marketplace create', () => {
  it('makes a Claude marketplace with a README, plugins/ and a git repository, which validates', async () => {
    const sb = sandbox()
    const result = await create(sb, ['team-tools', ...OWNER, '--json'])
    expect(result.status, result.stderr).toBe(0)
    const created = result.json()
    const root = join(sb.project, 'team-tools')
    expect(created).toMatchObject({
      name: 'team-tools',
      path: root,
      formats: ['claude'],
      owner: {name: 'Acme Tools', email: 'tools@acme.dev'},
      ownerFrom: 'flag',
      git: {status: 'initialized'},
      dryRun: false,
    })
    expect([...created.files].sort()).toEqual([CLAUDE, 'README.md', 'plugins/README.md'])
    expect(readJson(join(root, CLAUDE))).toEqual({
      name: 'team-tools',
      owner: {name: 'Acme Tools', email: 'tools@acme.dev'},
      metadata: {description: 'Plugins for AI agents, published as the team-tools marketplace.'},
      plugins: [],
    })
    expect(existsSync(join(root, '.git', 'HEAD'))).toBe(true)
    expect(existsSync(join(root, '.agents'))).toBe(false)
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    expect(readme).toMatch(/^# Team Tools\n/)
    expect(readme).toContain('loadout install <plugin>@team-tools')
    expect(readme).not.toMatch(/\{\{\w+\}\}/)

    const validated = await loadout(sb, ['marketplace', 'validate', 'team-tools', '--json'])
    expect(validated.status, validated.stdout).toBe(0)
    expect(validated.json()).toMatchObject({valid: true, errors: 0, warnings: 0, problems: []})
  })

  it('--format all adds the Codex catalog; --no-git leaves git out; --dir and --description are used', async () => {
    const sb = sandbox()
    const result = await create(sb, [
      'team-tools',
      '--format',
      'all',
      '--no-git',
      '--dir',
      'markets/team',
      '--description',
      'Tools for the team',
      ...OWNER,
      '--json',
    ])
    expect(result.status, result.stderr).toBe(0)
    const root = join(sb.project, 'markets', 'team')
    expect(result.json()).toMatchObject({path: root, formats: ['claude', 'codex'], git: {status: 'skipped'}})
    expect(readJson(join(root, CODEX))).toEqual({name: 'team-tools', interface: {displayName: 'Team Tools'}, plugins: []})
    expect(readJson(join(root, CLAUDE)).metadata).toEqual({description: 'Tools for the team'})
    expect(existsSync(join(root, '.git'))).toBe(false)
    const validated = await loadout(sb, ['marketplace', 'validate', root, '--strict', '--json'])
    expect(validated.status, validated.stdout).toBe(0)
    expect(validated.json().files.map((f: {file: string}) => f.file)).toEqual([CLAUDE, CODEX])
  })

  it('takes the owner from git config, and says so when it has to fall back to the name', async () => {
    const sb = sandbox()
    const bare = await create(sb, ['plain', '--no-git'])
    expect(bare.status, bare.stderr).toBe(0)
    expect(bare.stdout).toContain('the owner is "plain" for want of a better one: pass --owner "Name <email>", or set git config user.name')
    expect(readJson(join(sb.project, 'plain', CLAUDE)).owner).toEqual({name: 'plain'})

    writeFileSync(join(sb.home, '.gitconfig'), '[user]\n\tname = Git User\n\temail = git@acme.dev\n')
    const fromGit = await create(sb, ['from-git', '--no-git', '--json'])
    expect(fromGit.status, fromGit.stderr).toBe(0)
    expect(fromGit.json()).toMatchObject({owner: {name: 'Git User', email: 'git@acme.dev'}, ownerFrom: 'git'})
    expect(readJson(join(sb.project, 'from-git', CLAUDE)).owner).toEqual({name: 'Git User', email: 'git@acme.dev'})
  })

  it('--dry-run says what it would write and writes nothing', async () => {
    const sb = sandbox()
    const before = snapshot(sb.project)
    const result = await create(sb, ['team-tools', '--format', 'all', '--dry-run', ...OWNER, '--json'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.json()).toMatchObject({dryRun: true, git: {status: 'would-initialize'}})
    expect(result.json().files).toContain(CODEX)
    expect(snapshot(sb.project)).toEqual(before)
  })

  it.each([['team tools'], ['Team-Tools'], ['../evil'], ['a/b'], ['-lead'], ['x'.repeat(65)]])('refuses the name %j before writing anything', async (name) => {
    const sb = sandbox()
    const before = snapshot(sb.dir)
    const result = await create(sb, ['--json', ...OWNER, '--', name])
    expect(result.status).toBe(2)
    const error = jsonError(result)
    expect(error.code).toBe('invalid-name')
    expect(error.message).toMatch(/^invalid marketplace name ".*": it /)
    expect(error.suggestions.join(' ')).toMatch(/kebab-case/)
    expect(snapshot(sb.dir)).toEqual(before)
  })

  it('refuses a folder that exists with files in it; --force writes into it and keeps the other files', async () => {
    const sb = sandbox()
    const root = join(sb.project, 'team-tools')
    mkdirSync(root)
    writeFileSync(join(root, 'notes.txt'), 'mine\n')
    const before = snapshot(sb.project)
    const refused = await create(sb, ['team-tools', ...OWNER, '--json'])
    expect(refused.status).toBe(5)
    expect(jsonError(refused)).toMatchObject({code: 'dir-exists', message: './team-tools already exists and is not empty'})
    expect(jsonError(refused).suggestions[0]).toMatch(/--force/)
    expect(snapshot(sb.project)).toEqual(before)

    const forced = await create(sb, ['team-tools', '--force', '--no-git', ...OWNER, '--json'])
    expect(forced.status, forced.stderr).toBe(0)
    expect(forced.json().replaced).toEqual([])
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('mine\n')
    expect(readJson(join(root, CLAUDE)).name).toBe('team-tools')

    writeFileSync(join(root, CLAUDE), '{"edited": true}\n')
    const again = await create(sb, ['team-tools', '--force', '--no-git', ...OWNER, '--json'])
    expect(again.status, again.stderr).toBe(0)
    expect(again.json().replaced).toContain(CLAUDE)
    expect(readJson(join(root, CLAUDE)).name).toBe('team-tools')
    // no staging leftovers beside the files
    expect(readdirSync(join(root, '.claude-plugin'))).toEqual(['marketplace.json'])
  })

  it('accepts an empty folder that exists, such as the current one', async () => {
    const sb = sandbox()
    const dir = join(sb.project, 'empty')
    mkdirSync(dir)
    const result = await loadout(sb, ['marketplace', 'create', 'here', '--dir', '.', '--no-git', ...OWNER, '--json'], {cwd: dir})
    expect(result.status, result.stderr).toBe(0)
    expect(readJson(join(dir, CLAUDE)).name).toBe('here')
  })

  it('refuses a --dir that is a symbolic link, with or without --force, and writes nothing through it', async () => {
    const sb = sandbox()
    const target = join(sb.dir, 'elsewhere')
    mkdirSync(target)
    symlinkSync(target, join(sb.project, 'link'))
    for (const extra of [[], ['--force']]) {
      const result = await create(sb, ['team-tools', '--dir', 'link', ...extra, ...OWNER, '--json'])
      expect(result.status).toBe(4)
      const error = jsonError(result)
      expect(error.code).toBe('unsafe-path')
      expect(error.message).toBe(`refusing to create the marketplace through the symbolic link link (it points to ${target})`)
      expect(readdirSync(target)).toEqual([])
    }
  })

  it('--force never writes through a link inside the folder', async () => {
    const sb = sandbox()
    const root = join(sb.project, 'team-tools')
    const outside = join(sb.dir, 'outside')
    mkdirSync(root)
    mkdirSync(outside)
    writeFileSync(join(root, 'README.md'), 'old\n')
    symlinkSync(outside, join(root, '.claude-plugin'))
    const result = await create(sb, ['team-tools', '--force', '--no-git', ...OWNER, '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result).message).toMatch(/refusing to write through the symbolic link .*\.claude-plugin/)
    expect(readdirSync(outside)).toEqual([])
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('old\n')
  })
})

describe('marketplace add-plugin', () => {
  /** A fresh marketplace `acme` in the sandbox project, with its catalogs; returns its folder. */
  const market = async (sb: Sandbox, format = 'claude'): Promise<string> => {
    const result = await create(sb, ['acme', '--no-git', '--format', format, ...OWNER])
    expect(result.status, result.stderr).toBe(0)
    return join(sb.project, 'acme')
  }

  it("appends a ./ entry with the manifest's name, description, version and author to each catalog", async () => {
    const sb = sandbox()
    const root = await market(sb, 'all')
    handMadePlugin(join(root, 'plugins', 'review'), 'review')
    const result = await loadout(sb, ['marketplace', 'add-plugin', './plugins/review', '--json'], {cwd: root})
    expect(result.status, result.stderr).toBe(0)
    expect(result.json()).toMatchObject({
      marketplace: 'acme',
      plugin: 'review',
      source: './plugins/review',
      manifest: 'plugins/review/.claude-plugin/plugin.json',
    })
    expect(readJson(join(root, CLAUDE)).plugins).toEqual([
      {name: 'review', source: './plugins/review', description: 'The review plugin', version: '1.2.0', author: {name: 'Ann', email: 'ann@acme.dev'}},
    ])
    expect(readJson(join(root, CODEX)).plugins).toEqual([
      {
        name: 'review',
        source: {source: 'local', path: './plugins/review'},
        policy: {installation: 'AVAILABLE', authentication: 'ON_INSTALL'},
        category: 'Productivity',
      },
    ])
  })

  it('works from elsewhere with --marketplace-dir, and names a plugin without a manifest after its folder', async () => {
    const sb = sandbox()
    const root = await market(sb)
    mkdirSync(join(root, 'plugins', 'bare', 'skills', 'bare-skill'), {recursive: true})
    writeFileSync(join(root, 'plugins', 'bare', 'skills', 'bare-skill', 'SKILL.md'), '---\nname: bare-skill\ndescription: d\n---\n')
    const result = await loadout(sb, ['marketplace', 'add-plugin', 'acme/plugins/bare', '--marketplace-dir', 'acme', '--json'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.json().manifest).toBeUndefined()
    expect(readJson(join(root, CLAUDE)).plugins).toEqual([{name: 'bare', source: './plugins/bare'}])
  })

  it('keeps the bytes and the layout of a catalog written by hand', async () => {
    const sb = sandbox()
    const root = await market(sb)
    const text =
      '{\n    "name": "acme",\n    "owner": {"name": "Acme"},\n    "plugins": [\n        {"name": "old", "source": "./plugins/old"}\n    ],\n    "homepage": "https://acme.dev"\n}\n'
    writeFileSync(join(root, CLAUDE), text)
    handMadePlugin(join(root, 'plugins', 'old'), 'old')
    handMadePlugin(join(root, 'plugins', 'new'), 'new', {author: undefined})
    const result = await loadout(sb, ['marketplace', 'add-plugin', 'plugins/new'], {cwd: root})
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain('added plugin "new" (./plugins/new) to marketplace "acme"')
    expect(readFileSync(join(root, CLAUDE), 'utf8')).toBe(
      '{\n    "name": "acme",\n    "owner": {"name": "Acme"},\n    "plugins": [\n        {"name": "old", "source": "./plugins/old"},\n' +
        '        {\n            "name": "new",\n            "source": "./plugins/new",\n            "description": "The new plugin",\n            "version": "1.2.0"\n        }\n' +
        '    ],\n    "homepage": "https://acme.dev"\n}\n',
    )
  })

  describe('refuses, changing nothing', () => {
    let sb: Sandbox
    let root: string
    beforeAll(async () => {
      sb = sandbox()
      root = await market(sb)
      handMadePlugin(join(root, 'plugins', 'review'), 'review')
      const first = await loadout(sb, ['marketplace', 'add-plugin', './plugins/review'], {cwd: root})
      expect(first.status, first.stderr).toBe(0)
      handMadePlugin(join(sb.project, 'outside'), 'outside')
      symlinkSync(join(sb.project, 'outside'), join(root, 'plugins', 'linked'))
      handMadePlugin(join(root, 'plugins', 'again'), 'review')
      handMadePlugin(join(root, 'plugins', 'spaced'), 'Bad Name')
      handMadePlugin(join(root, 'plugins', 'climber'), '../climber')
    })

    it.each([
      [
        'a plugin outside the marketplace',
        ['../outside'],
        2,
        'plugin-outside-marketplace',
        /^\.\.\/outside is outside the marketplace folder \.; a marketplace lists its own plugins by "\.\/" path$/,
      ],
      [
        'a link out of the marketplace',
        ['./plugins/linked'],
        2,
        'plugin-outside-marketplace',
        /is outside the marketplace folder \. \(it leads through a symbolic link to .*outside\)/,
      ],
      [
        'another folder with a name already listed',
        ['./plugins/again'],
        5,
        'plugin-already-listed',
        /^\.claude-plugin\/marketplace\.json already lists a plugin named "review" \(plugins\[0\]\)$/,
      ],
      ['the same plugin twice', ['./plugins/review'], 5, 'plugin-already-listed', /already lists a plugin named "review"/],
      [
        'a name with spaces in the manifest',
        ['./plugins/spaced'],
        4,
        'invalid-name',
        /^plugins\/spaced\/\.claude-plugin\/plugin\.json names the plugin "Bad Name", which contains whitespace/,
      ],
      ['a name with ../ in the manifest', ['./plugins/climber'], 4, 'invalid-name', /names the plugin "\.\.\/climber", which contains a path separator/],
      ['a folder that does not exist', ['./plugins/missing'], 3, 'plugin-missing', /\.\/plugins\/missing does not exist/],
      ['a file', ['./README.md'], 2, 'plugin-not-folder', /is not a folder/],
      [
        'a --marketplace-dir that is no marketplace',
        ['./plugins/review', '--marketplace-dir', 'plugins'],
        3,
        'marketplace-missing',
        /plugins is not a marketplace/,
      ],
    ] as const)('%s', async (_what, args, status, code, message) => {
      const before = snapshot(sb.dir)
      const result = await loadout(sb, ['marketplace', 'add-plugin', ...args, '--json'], {cwd: root})
      expect(result.status, result.stdout).toBe(status)
      const error = jsonError(result)
      expect(error.code).toBe(code)
      expect(error.message).toMatch(message)
      expect(snapshot(sb.dir)).toEqual(before)
    })
  })
})

describe('marketplace validate', () => {
  it('exits 4 listing every problem with file, path and code; --fix repairs the mechanical ones and says what it changed', async () => {
    const sb = sandbox()
    const root = join(sb.project, 'broken')
    mkdirSync(join(root, '.claude-plugin'), {recursive: true})
    handMadePlugin(join(root, 'plugins', 'review'), 'review')
    writeFileSync(
      join(root, CLAUDE),
      JSON.stringify(
        {
          name: 'Broken',
          owner: {name: 'B'},
          plugins: [
            {name: 'review', source: 'plugins/review/'},
            {name: 'gh', source: {source: 'github', repo: 'a/b', sha: '123'}},
          ],
        },
        null,
        2,
      ),
    )
    const failed = await loadout(sb, ['marketplace', 'validate', 'broken', '--json'])
    expect(failed.status).toBe(4)
    const error = jsonError(failed)
    expect(error.code).toBe('validation-failed')
    expect(error.message).toBe('3 error(s) in the marketplace at broken')
    expect(error.suggestions).toEqual(['some can be repaired: run this again with --fix'])
    const problems = (error.details as {problems: Array<Record<string, unknown>>}).problems
    expect(problems.map((p) => [p.severity, p.code, p.file, p.path])).toEqual([
      ['error', 'name-invalid', CLAUDE, 'name'],
      ['error', 'source-not-relative', CLAUDE, 'plugins[0].source'],
      ['error', 'source-bad-sha', CLAUDE, 'plugins[1].source.sha'],
    ])

    const human = await loadout(sb, ['marketplace', 'validate', 'broken'])
    expect(human.status).toBe(4)
    expect(human.stderr).toContain(`FAIL ${CLAUDE}`)
    expect(human.stderr).toContain(`error source-bad-sha ${CLAUDE} plugins[1].source.sha: plugin "gh" is skipped: sha "123" is 3 characters long`)
    expect(human.stderr).toContain('[fixable with --fix]')

    const fixed = await loadout(sb, ['marketplace', 'validate', 'broken', '--fix'])
    expect(fixed.status).toBe(4)
    expect(fixed.stderr).toContain(`fixed ${CLAUDE} name: "Broken" -> "broken"`)
    expect(fixed.stderr).toContain(`fixed ${CLAUDE} plugins[0].source: "plugins/review/" -> "./plugins/review"`)
    expect(fixed.stderr).toContain('1 catalog(s), 1 error(s), 0 warning(s), 2 fixed')
    const catalog = readJson(join(root, CLAUDE))
    expect([catalog.name, catalog.plugins[0].source]).toEqual(['broken', './plugins/review'])
  })

  it('--strict fails on warnings alone', async () => {
    const sb = sandbox()
    expect((await create(sb, ['acme', '--no-git', ...OWNER])).status).toBe(0)
    const file = join(sb.project, 'acme', CLAUDE)
    writeFileSync(file, JSON.stringify({...readJson(file), colour: 'blue'}))
    const lenient = await loadout(sb, ['marketplace', 'validate', 'acme'])
    expect(lenient.status, lenient.stderr).toBe(0)
    expect(lenient.stdout).toContain('warning unknown-field .claude-plugin/marketplace.json colour')
    const strict = await loadout(sb, ['marketplace', 'validate', 'acme', '--strict', '--json'])
    expect(strict.status).toBe(4)
    expect(jsonError(strict).message).toBe('0 error(s), 1 warning(s) (strict) in the marketplace at acme')
  })
})

describe('the whole way: create, add a plugin, validate, add the marketplace, install', () => {
  it('installs the hand-made plugin into Claude Code from the new marketplace', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    expect((await create(sb, ['team-tools', ...OWNER])).status).toBe(0)
    const root = join(sb.project, 'team-tools')
    handMadePlugin(join(root, 'plugins', 'review'), 'review')

    const added = await loadout(sb, ['marketplace', 'add-plugin', './plugins/review'], {cwd: root})
    expect(added.status, added.stderr).toBe(0)
    const validated = await loadout(sb, ['marketplace', 'validate', '.'], {cwd: root})
    expect(validated.status, validated.stderr).toBe(0)
    expect(validated.stdout).toContain('1 catalog(s), 0 error(s), 0 warning(s)')

    const registered = await loadout(sb, ['marketplace', 'add', root, '--scope', 'user', '--json'])
    expect(registered.status, registered.stderr).toBe(0)
    expect(registered.json()).toMatchObject({name: 'team-tools', pluginCount: 1})

    const installed = await loadout(sb, ['install', '--loose', 'review@team-tools', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const skill = join(sb.home, '.claude', 'skills', 'review-checklist', 'SKILL.md')
    expect(readFileSync(skill, 'utf8')).toBe(readFileSync(join(root, 'plugins', 'review', 'skills', 'review-checklist', 'SKILL.md'), 'utf8'))
  })
})
