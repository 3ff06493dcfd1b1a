/**
 * Catalog URLs end to end against a real HTTPS server with a test CA: conditional requests, the
 * token (sent where it belongs, never stored or printed), hostile catalogs, refused source forms.
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {loadout, sandboxes} from './helpers.js'

const TOKEN = 'ldt_token_SHOULD_NEVER_LEAK_4242'
const GH_TOKEN = 'ghp_ALSO_NEVER_LEAK_0000'
const catalog = (plugins: unknown[], name = 'remote') => ({name, description: 'a remote catalog', plugins})
const plugin = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  source: {source: 'github', repo: `acme/${name}`},
  description: `${name} does things`,
  ...extra,
})

let server: TestHttpsServer
const sandbox = sandboxes()
const envFor = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({...server.trustEnv(), LOADOUT_TOKEN: TOKEN, GITHUB_TOKEN: GH_TOKEN, ...extra})
const run = (sb: Sandbox, args: string[], extra: NodeJS.ProcessEnv = {}) => loadout(sb, args, {env: envFor(extra)})

/** Every file under a folder, read as text (no token may be in any of them). */
const allText = (dir: string): string => {
  let text = ''
  for (const entry of readdirSync(dir, {withFileTypes: true, recursive: true})) {
    const path = join(entry.parentPath ?? (entry as unknown as {path: string}).path, entry.name)
    if (entry.isFile() && statSync(path).size < 50 * 1024 * 1024) text += readFileSync(path, 'latin1')
  }
  return text
}

const deep = (levels: number): unknown => {
  let value: unknown = []
  for (let i = 0; i < levels; i++) value = [value]
  return {name: 'deep', plugins: [{name: 'x', source: './x', extra: value}]}
}

beforeAll(async () => {
  server = await startHttpsServer()
  server.json(
    '/catalog.json',
    catalog([
      plugin('alpha', {version: '1.0.0', keywords: ['pdf']}),
      plugin('beta', {category: 'docs'}),
      {name: 'relative', source: './plugins/relative'},
      {name: 'pip-one', source: {source: 'pip', package: 'x'}},
    ]),
  )
  server.file('/not-json.json', 'this is not json {')
  server.json('/array.json', [1, 2, 3])
  server.file('/deep.json', JSON.stringify(deep(70)))
  server.json('/no-name.json', {plugins: []})
  server.json(
    '/big.json',
    catalog(
      Array.from({length: 10_000}, (_, i) => plugin(`plugin-${i}`, {keywords: [`kw${i % 100}`]})),
      'big',
    ),
  )
  server.json(
    '/dupes.json',
    catalog(
      [
        plugin('same'),
        plugin('same'),
        {name: 'bad', source: '../escape'},
        {name: 'abs', source: '/etc'},
        {name: 'typed', source: {source: 'github', repo: 'acme/typed'}, version: 7, tags: 'x'},
      ],
      'dupes',
    ),
  )
  server.redirect('/to-http.json', 'http://127.0.0.1:9/catalog.json')
  server.route('/flaky.json', (_req, res) => {
    res.statusCode = 500
    res.end('oops')
  })
})

afterAll(async () => {
  await server?.stop()
})

describe('catalog URLs', () => {
  let sb: Sandbox
  beforeAll(() => {
    sb = sandbox()
  })

  it('--dry-run fetches and checks the catalog but registers nothing', async () => {
    const dry = await run(sb, ['marketplace', 'add', server.url('/catalog.json'), '--dry-run', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    expect(dry.json()).toMatchObject({status: 'would-add', name: 'remote', pluginCount: 3})
    const list = (await run(sb, ['marketplace', 'list', '--json'])).json()
    expect(list.marketplaces.map((m: {name: string}) => m.name)).toEqual(['loadout'])
  })

  it('adds a catalog URL, keeps entries it cannot use as problems, sends the token', async () => {
    server.clearRequests()
    const added = await run(sb, ['marketplace', 'add', server.url('/catalog.json'), '--json'])
    expect(added.status, added.stderr).toBe(0)
    const body = added.json()
    expect(body).toMatchObject({status: 'added', name: 'remote', kind: 'catalog-url', pluginCount: 3})
    const paths = body.warnings.map((w: {path: string}) => w.path)
    expect(paths).toContain('plugins[2].source')
    expect(paths).toContain('plugins[3].source')
    expect(server.requestsTo('/catalog.json')[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`)
  })

  it('update sends If-None-Match and reports unchanged on a 304', async () => {
    server.clearRequests()
    const updated = await run(sb, ['marketplace', 'update', 'remote', '--json'])
    expect(updated.status, updated.stderr).toBe(0)
    expect(updated.json().results[0].status).toBe('unchanged')
    const request = server.requestsTo('/catalog.json')[0]!
    expect(request.headers['if-none-match']).toBeTruthy()
    expect(request.status).toBe(304)
  })

  it('info shows unsupported entries on that entry only', async () => {
    const info = (await run(sb, ['marketplace', 'info', 'remote', '--json'])).json()
    const pip = info.plugins.find((p: {name: string}) => p.name === 'pip-one')
    expect(pip).toMatchObject({supported: false})
    expect(info.plugins.find((p: {name: string}) => p.name === 'alpha')).toMatchObject({supported: true, version: '1.0.0'})
  })

  it('a 10,000-plugin catalog is added and searched', async () => {
    const added = await run(sb, ['marketplace', 'add', server.url('/big.json'), '--json'])
    expect(added.status, added.stderr).toBe(0)
    expect(added.json().pluginCount).toBe(10_000)
    const hits = (await run(sb, ['search', 'kw42', '--marketplace', 'big', '--json'])).json().hits
    expect(hits).toHaveLength(100)
    const exact = (await run(sb, ['search', 'plugin-9999', '--json'])).json().hits
    expect(exact[0].id).toBe('plugin-9999@big')
  })

  it('a catalog with duplicates, escaping paths and wrong types keeps the good entries', async () => {
    const added = await run(sb, ['marketplace', 'add', server.url('/dupes.json'), '--json'])
    expect(added.status, added.stderr).toBe(0)
    const body = added.json()
    expect(body.pluginCount).toBe(2)
    const messages = body.warnings.map((w: {path: string; message: string}) => `${w.path} ${w.message}`).join('\n')
    expect(messages).toMatch(/plugins\[1\]/)
    expect(messages).toMatch(/plugins\[2\]\.source/)
    expect(messages).toMatch(/plugins\[3\]\.source/)
    expect(messages).toMatch(/plugins\[4\]\.version/)
  })

  it('refuses catalogs that are not JSON, an array, too deep, or without a name, naming the file', async () => {
    for (const [path, pattern] of [
      ['/not-json.json', /not valid JSON/],
      ['/array.json', /JSON object/],
      ['/deep.json', /deep/],
      ['/no-name.json', /name/],
    ] as const) {
      const result = await run(sb, ['marketplace', 'add', server.url(path), '--json'])
      expect(result.status, path).toBe(4)
      expect(result.json().error.message).toMatch(pattern)
      expect(result.json().error.message).toContain(server.url(path))
    }
  })

  it('refuses a redirect to http, and a failed refresh keeps the last good copy', async () => {
    const redirected = await run(sb, ['marketplace', 'add', server.url('/to-http.json'), '--json'])
    expect(redirected.status).toBe(6)
    expect(redirected.json().error.message).toMatch(/must use https/)

    server.json('/flaky.json', catalog([plugin('one')], 'flaky'))
    expect((await run(sb, ['marketplace', 'add', server.url('/flaky.json')])).status).toBe(0)
    server.route('/flaky.json', (_req, res) => {
      res.statusCode = 503
      res.end('down')
    })
    const failed = await run(sb, ['marketplace', 'update', 'flaky', '--json'])
    expect(failed.status).toBe(6)
    expect(failed.json().error.message).toMatch(/last good/)
    const info = await run(sb, ['marketplace', 'info', 'flaky', '--json'])
    expect(info.json().plugins.map((p: {name: string}) => p.name)).toEqual(['one'])
  })

  it('the token is in no file under HOME and in no output', async () => {
    const outputs: string[] = []
    for (const args of [
      ['marketplace', 'list'],
      ['marketplace', 'list', '--json'],
      ['marketplace', 'info', 'remote', '--json'],
      ['marketplace', 'update'],
      ['marketplace', 'add', server.url('/missing.json')],
      ['marketplace', 'add', server.url('/missing.json'), '--json'],
      ['search', 'alpha', '--json'],
    ]) {
      const result = await run(sb, args, {DEBUG: 'loadout*'})
      outputs.push(result.stdout, result.stderr)
    }
    const everything = outputs.join('\n') + allText(sb.home) + allText(sb.project)
    expect(everything).not.toContain(TOKEN)
    expect(everything).not.toContain(GH_TOKEN)
    expect(everything).toContain('remote')
  })
})

describe('refused source forms', () => {
  it.each([
    ['http://127.0.0.1/catalog.json', /must use https/],
    ['ext::sh -c touch% /tmp/pwned', /transport|not allowed/i],
    ['file:///etc', /does not allow/i],
    ['file::/etc', /transport|not allowed/i],
    ['--upload-pack=touch /tmp/pwned', /option|-/],
    ['-oProxyCommand=x', /option|-/],
    ['not a source at all!', /a source is one of/],
  ])('%s', async (input, pattern) => {
    const sb = sandbox()
    const result = await run(sb, ['marketplace', 'add', '--json', '--', input])
    expect(result.status).toBe(2)
    expect(result.json().error.message + '\n' + result.json().error.suggestions.join('\n')).toMatch(pattern)
  })

  it('a URL with credentials is refused before anything is sent, and never echoed', async () => {
    const sb = sandbox()
    server.clearRequests()
    const url = server.url('/catalog.json').replace('https://', 'https://alice:hunter2secret@')
    const result = await run(sb, ['marketplace', 'add', url, '--json'])
    expect(result.status).toBe(2)
    expect(result.stdout + result.stderr).not.toContain('hunter2secret')
    expect(server.requests).toHaveLength(0)
  })
})
