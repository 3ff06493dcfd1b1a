/**
 * Self-test of the real-server test infrastructure in test/support/: a test CA made with openssl,
 * deterministic repositories, `git daemon`, and `git http-backend` behind a Node HTTPS server.
 */
import {lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {request} from 'node:https'
import {connect} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {startGitDaemon, type GitDaemon} from './support/git-daemon.js'
import {startGitHttpsServer, type GitHttpsServer} from './support/git-http.js'
import {commitFiles, git, gitEnv, headSha, makeRepo, makeServedRepo, run, runGit, syncServedRepo, tag, type FileMap} from './support/git-repos.js'
import {basicAuthHeader, hang, startHttpsServer, unauthorized} from './support/https-server.js'
import {makeTestCa} from './support/test-ca.js'

const FILES: FileMap = {
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', plugins: [{name: 'review', source: './plugins/review'}]}, null, 2),
  'plugins/review/skills/review/SKILL.md': '---\nname: review\ndescription: Reviews code\n---\n\nReview the diff.\n',
  'plugins/review/hooks/check.sh': {content: '#!/bin/sh\necho ok\n', mode: 0o755},
  'README.md': '# acme\n',
  'readme-link': {symlink: 'README.md'},
}

const CREDENTIALS = {username: 'alice', password: 's3cret-test-password'}

let dir: string
let root: string
let work: string
let daemon: GitDaemon | undefined
let server: GitHttpsServer | undefined
let repo: string
let bare: string
let firstSha: string
let secondSha: string

/** environment for git clients: hermetic, HOME in the temp folder, prompts off */
const clientEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({HOME: join(dir, 'home'), ...extra})
const trusted = (): NodeJS.ProcessEnv => clientEnv({GIT_SSL_CAINFO: server!.caFile})
const dest = (name: string): string => join(dir, 'clones', name)

interface FetchResult {
  status?: number
  url?: string
  headers?: Record<string, string>
  body?: string
  error?: string
}

/**
 * Runs `fetch` for each request, in order, in one child node process (which reads
 * NODE_EXTRA_CA_CERTS at start). `timeoutMs` aborts a request; `etagFrom: i` sends If-None-Match
 * with the ETag of result i.
 */
const childFetch = async (requests: Array<[string, Record<string, any>?]>, env: NodeJS.ProcessEnv): Promise<FetchResult[]> => {
  const script = `
    const requests = JSON.parse(process.argv[1]);
    (async () => {
      const results = [];
      for (const [url, init = {}] of requests) {
        if (init.timeoutMs) { init.signal = AbortSignal.timeout(init.timeoutMs); delete init.timeoutMs }
        if (init.etagFrom !== undefined) { init.headers = {...init.headers, 'if-none-match': results[init.etagFrom].headers.etag}; delete init.etagFrom }
        try {
          const r = await fetch(url, init);
          results.push({status: r.status, url: r.url, headers: Object.fromEntries(r.headers), body: await r.text()});
        } catch (e) {
          results.push({error: String(e.cause?.code ?? e.name ?? e)});
        }
      }
      console.log(JSON.stringify(results));
    })()`
  const result = await run(process.execPath, ['-e', script, JSON.stringify(requests)], {env: {PATH: process.env.PATH, ...env}, timeoutMs: 30_000})
  expect(result.status, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as FetchResult[]
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const refuses = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({port, host: '127.0.0.1'})
    socket.on('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.on('error', () => resolve(true))
  })

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-servers-')))
  root = join(dir, 'served')
  work = join(dir, 'work')
  mkdirSync(join(dir, 'home'))
  mkdirSync(join(dir, 'clones'))
  const made = makeServedRepo(work, root, 'acme/plugins', FILES)
  repo = made.repo
  bare = made.bare
  firstSha = made.sha
  tag(repo, 'v1.0.0')
  secondSha = commitFiles(repo, {'plugins/lint/skills/lint/SKILL.md': '---\nname: lint\ndescription: Lints\n---\n', 'README.md': '# acme v2\n'}, 'add lint')
  tag(repo, 'v1.1.0', {message: 'release 1.1.0'})
  syncServedRepo(bare)
  makeServedRepo(work, root, 'private', {'README.md': 'secret\n'})

  daemon = await startGitDaemon(root)
  server = await startGitHttpsServer({root, auth: {private: CREDENTIALS}})
  server.json('/catalog.json', {name: 'remote', plugins: []})
  server.redirect('/moved.json', '/catalog.json')
  server.route('/secret.json', unauthorized())
  server.route('/hang', hang())
  mkdirSync(join(dir, 'public'))
  writeFileSync(join(dir, 'public', 'plugin.txt'), 'archive body\n')
  server.directory('/archives', join(dir, 'public'))
})

afterAll(async () => {
  await daemon?.stop()
  await server?.stop()
  if (daemon) expect(alive(daemon.pid)).toBe(false)
  if (dir) rmSync(dir, {recursive: true, force: true})
})

describe('test CA', () => {
  test('is cached per process and signs a certificate for 127.0.0.1 and localhost', async () => {
    const ca = makeTestCa()
    expect(makeTestCa()).toBe(ca)
    expect(server!.ca).toBe(ca)
    expect(ca.caCert).toMatch(/BEGIN CERTIFICATE/)
    expect(ca.key).toMatch(/PRIVATE KEY/)
    const text = await run('openssl', ['x509', '-in', ca.certFile, '-noout', '-ext', 'subjectAltName'], {env: {PATH: process.env.PATH}})
    expect(text.stdout).toMatch(/IP Address:127\.0\.0\.1/)
    expect(text.stdout).toMatch(/DNS:localhost/)
    const verify = await run('openssl', ['verify', '-CAfile', ca.caFile, ca.certFile], {env: {PATH: process.env.PATH}})
    expect(verify.stdout).toMatch(/OK/)
  })
})

describe('repositories', () => {
  test('commits are deterministic', () => {
    const again = makeRepo(join(dir, 'again'), FILES)
    expect(headSha(again)).toBe(firstSha)
    expect(git(repo, ['log', '-1', '--format=%an <%ae> %aI %cI'])).toBe(
      'Loadout Test <test@loadout.invalid> 2024-01-01T00:01:00+00:00 2024-01-01T00:01:00+00:00',
    )
    expect(headSha(repo)).toBe(secondSha)
    expect(headSha(bare)).toBe(secondSha)
    expect(git(bare, ['config', 'uploadpack.allowFilter'])).toBe('true')
    expect(git(bare, ['config', 'http.receivepack'])).toBe('false')
  })

  test('deletions are committed', () => {
    const scratch = makeRepo(join(dir, 'scratch'), {'a.txt': 'a', 'b/c.txt': 'c'})
    commitFiles(scratch, {'a.txt': null}, 'remove a')
    expect(git(scratch, ['ls-files'])).toBe('b/c.txt')
  })
})

describe('git daemon', () => {
  test('clones over git:// with modes and symbolic links intact', async () => {
    const target = dest('daemon')
    const result = await runGit(['clone', '-q', '--', `${daemon!.url}acme/plugins.git`, target], {env: clientEnv()})
    expect(result.status, result.stderr).toBe(0)
    expect(headSha(target)).toBe(secondSha)
    expect(readFileSync(join(target, 'README.md'), 'utf8')).toBe('# acme v2\n')
    expect(lstatSync(join(target, 'readme-link')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(target, 'readme-link'))).toBe('README.md')
    expect(statSync(join(target, 'plugins/review/hooks/check.sh')).mode & 0o111).not.toBe(0)
    expect(daemon!.url).toMatch(/^git:\/\/127\.0\.0\.1:\d+\/$/)
  })

  test('ls-remote lists branches and tags', async () => {
    const result = await runGit(['ls-remote', '--', `${daemon!.url}acme/plugins.git`], {env: clientEnv()})
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(`${secondSha}\trefs/heads/main`)
    expect(result.stdout).toContain(`${firstSha}\trefs/tags/v1.0.0`)
    expect(result.stdout).toContain(`${secondSha}\trefs/tags/v1.1.0^{}`)
  })

  test('a missing repository fails', async () => {
    const result = await runGit(['ls-remote', '--', `${daemon!.url}nope.git`], {env: clientEnv()})
    expect(result.status).not.toBe(0)
  })
})

describe('git over https (http-backend)', () => {
  test('clones with GIT_SSL_CAINFO, over protocol v2, without sending credentials', async () => {
    server!.clearRequests()
    const target = dest('https')
    const result = await runGit(['clone', '-q', '--', server!.git.url('acme/plugins'), target], {env: trusted()})
    expect(result.status, result.stderr).toBe(0)
    expect(headSha(target)).toBe(secondSha)
    const refs = server!.requests.find((r) => r.path === '/git/acme/plugins.git/info/refs')
    expect(refs?.query).toBe('service=git-upload-pack')
    expect(refs?.headers['git-protocol']).toBe('version=2')
    expect(refs?.status).toBe(200)
    expect(server!.requests.some((r) => r.method === 'POST' && r.path === '/git/acme/plugins.git/git-upload-pack')).toBe(true)
    expect(server!.requests.every((r) => r.headers.authorization === undefined)).toBe(true)
  })

  test('fails without the CA', async () => {
    const result = await runGit(['clone', '-q', '--', server!.git.url('acme/plugins'), dest('untrusted')], {env: clientEnv(), timeoutMs: 20_000})
    expect(result.status).not.toBe(0)
    expect(result.stderr).toMatch(/certificate|SSL|TLS/i)
  })

  test('serves a repository without ".git" in the URL, as GitHub does', async () => {
    const target = dest('github-style')
    const result = await runGit(['clone', '-q', '--', `${server!.origin}/git/acme/plugins`, target], {env: trusted()})
    expect(result.status, result.stderr).toBe(0)
    expect(headSha(target)).toBe(secondSha)
  })

  test('ls-remote matches the daemon', async () => {
    const https = await runGit(['ls-remote', '--', server!.git.url('acme/plugins')], {env: trusted()})
    const daemonRefs = await runGit(['ls-remote', '--', `${daemon!.url}acme/plugins.git`], {env: clientEnv()})
    expect(https.status, https.stderr).toBe(0)
    expect(https.stdout).toBe(daemonRefs.stdout)
    expect(https.stdout).toContain(`${firstSha}\trefs/tags/v1.0.0`)
  })

  test('a shallow clone has one commit', async () => {
    const target = dest('shallow')
    const result = await runGit(['clone', '-q', '--depth', '1', '--', server!.git.url('acme/plugins'), target], {env: trusted()})
    expect(result.status, result.stderr).toBe(0)
    expect(git(target, ['rev-list', '--count', 'HEAD'])).toBe('1')
    expect(git(target, ['rev-parse', '--is-shallow-repository'])).toBe('true')
  })

  test('a partial, sparse clone fetches blobs only when needed', async () => {
    const target = dest('partial')
    const result = await runGit(['clone', '-q', '--filter=blob:none', '--sparse', '--', server!.git.url('acme/plugins'), target], {env: trusted()})
    expect(result.status, result.stderr).toBe(0)
    expect(git(target, ['config', 'remote.origin.promisor'])).toBe('true')
    expect(git(target, ['config', 'remote.origin.partialclonefilter'])).toBe('blob:none')
    // only the top level is checked out, and the blobs below are not here
    expect(() => statSync(join(target, 'plugins'))).toThrow()
    expect(readFileSync(join(target, 'README.md'), 'utf8')).toBe('# acme v2\n')
    const missing = git(target, ['rev-list', '--objects', '--missing=print', 'HEAD'])
    expect(missing.split('\n').filter((line) => line.startsWith('?')).length).toBeGreaterThan(0)
    // widening the checkout fetches the missing blobs from the server (asynchronously: the server is in this process)
    const add = await runGit(['sparse-checkout', 'add', 'plugins/review'], {cwd: target, env: trusted()})
    expect(add.status, add.stderr).toBe(0)
    expect(readFileSync(join(target, 'plugins/review/skills/review/SKILL.md'), 'utf8')).toContain('name: review')
  })

  test('a pinned commit can be fetched by sha', async () => {
    const target = dest('pinned')
    mkdirSync(target)
    git(target, ['init', '-q'])
    const fetched = await runGit(['fetch', '-q', '--depth', '1', '--', server!.git.url('acme/plugins'), firstSha], {cwd: target, env: trusted()})
    expect(fetched.status, fetched.stderr).toBe(0)
    expect(git(target, ['rev-parse', 'FETCH_HEAD'])).toBe(firstSha)
  })

  test('passes gzip-encoded, chunked request bodies to git (HTTP_CONTENT_ENCODING)', async () => {
    // a protocol v2 ls-refs request, as git sends it when a body is large: gzip, no Content-Length
    const pkt = (line: string): string => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`
    const body = gzipSync(Buffer.from(`${pkt('command=ls-refs\n')}0001${pkt('peel\n')}${pkt('ref-prefix refs/tags/\n')}0000`))
    const response = await new Promise<{status: number; type: string; body: string}>((resolve, reject) => {
      const req = request(
        server!.git.url('acme/plugins') + '/git-upload-pack',
        {
          method: 'POST',
          ca: server!.ca.caCert,
          headers: {
            'content-type': 'application/x-git-upload-pack-request',
            'content-encoding': 'gzip',
            'git-protocol': 'version=2',
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          let text = ''
          res.on('data', (d: Buffer) => (text += d.toString()))
          res.on('end', () => resolve({status: res.statusCode!, type: String(res.headers['content-type']), body: text}))
        },
      )
      req.on('error', reject)
      req.write(body.subarray(0, 10))
      req.end(body.subarray(10))
    })
    expect(response.status, response.body).toBe(200)
    expect(response.type).toBe('application/x-git-upload-pack-result')
    expect(response.body).toContain(`${firstSha} refs/tags/v1.0.0`)
    expect(response.body).not.toContain('refs/heads/main')
    const recorded = server!.requests.at(-1)!
    expect(recorded.headers['content-encoding']).toBe('gzip')
    expect(recorded.headers['content-length']).toBeUndefined()
  })

  test('a server that asks for a password fails fast, without a prompt', async () => {
    server!.clearRequests()
    const result = await runGit(['clone', '-q', '--', server!.git.url('private'), dest('private')], {
      env: trusted(),
      timeoutMs: 30_000,
    })
    expect(result.status).not.toBe(0)
    expect(result.timedOut).toBe(false)
    expect(result.durationMs).toBeLessThan(10_000)
    expect(result.stderr).toMatch(/terminal prompts disabled|could not read Username|Authentication failed/)
    const first = server!.requests[0]
    expect(first?.status).toBe(401)
    expect(first?.headers.authorization).toBeUndefined()
  })

  test('the same repository clones with the right credentials', async () => {
    server!.clearRequests()
    const result = await runGit(
      [
        '-c',
        `http.extraHeader=Authorization: ${basicAuthHeader(CREDENTIALS.username, CREDENTIALS.password)}`,
        'clone',
        '-q',
        '--',
        server!.git.url('private'),
        dest('private-ok'),
      ],
      {env: trusted()},
    )
    expect(result.status, result.stderr).toBe(0)
    expect(readFileSync(join(dest('private-ok'), 'README.md'), 'utf8')).toBe('secret\n')
    expect(server!.requests.every((r) => r.headers.authorization?.startsWith('Basic '))).toBe(true)
  })
})

describe('static https routes', () => {
  test('a child node process fetches JSON with NODE_EXTRA_CA_CERTS; without it, it fails', async () => {
    const [response, again] = await childFetch([[server!.url('/catalog.json')], [server!.url('/catalog.json'), {etagFrom: 0}]], {
      NODE_EXTRA_CA_CERTS: server!.caFile,
    })
    expect(response!.status).toBe(200)
    expect(response!.headers?.['content-type']).toBe('application/json')
    expect(JSON.parse(response!.body!)).toEqual({name: 'remote', plugins: []})
    // a conditional request
    expect(again!.status).toBe(304)
    const [untrusted] = await childFetch([[server!.url('/catalog.json')]], {})
    expect(untrusted!.error).toMatch(/CERT|SELF_SIGNED|UNABLE/)
  })

  test('redirects, 401s, directories, 404s and hanging routes', async () => {
    const [moved, secret, archive, escape, missing, hung] = await childFetch(
      [
        [server!.url('/moved.json')],
        [server!.url('/secret.json'), {headers: {authorization: 'Bearer tok'}}],
        [server!.url('/archives/plugin.txt')],
        [server!.url('/archives/..%2F..%2Fetc%2Fpasswd')],
        [server!.url('/nope.json')],
        [server!.url('/hang'), {timeoutMs: 300}],
      ],
      {NODE_EXTRA_CA_CERTS: server!.caFile},
    )
    expect(moved!.status).toBe(200)
    expect(moved!.url).toBe(server!.url('/catalog.json'))
    expect(server!.requestsTo('/moved.json').at(-1)?.status).toBe(302)
    expect(secret!.status).toBe(401)
    expect(secret!.headers?.['www-authenticate']).toMatch(/^Basic realm=/)
    expect(server!.requestsTo('/secret.json').at(-1)?.headers.authorization).toBe('Bearer tok')
    expect(archive!.status).toBe(200)
    expect(archive!.body).toBe('archive body\n')
    expect(escape!.status).toBe(404)
    expect(missing!.status).toBe(404)
    expect(hung!.error).toMatch(/TimeoutError|ABORT/i)
  })
})

describe('teardown', () => {
  test('stop() ends a daemon and closes a server; nothing is left listening', async () => {
    const extraDaemon = await startGitDaemon(root)
    const extraServer = await startHttpsServer()
    const cloned = await runGit(['ls-remote', '--', `${extraDaemon.url}acme/plugins.git`], {env: clientEnv()})
    expect(cloned.status, cloned.stderr).toBe(0)
    await Promise.all([extraDaemon.stop(), extraServer.stop()])
    await extraDaemon.stop() // twice is fine
    expect(alive(extraDaemon.pid)).toBe(false)
    expect(await refuses(extraDaemon.port)).toBe(true)
    expect(await refuses(extraServer.port)).toBe(true)
    // the daemon's process group is gone too
    expect(() => process.kill(-extraDaemon.pid, 0)).toThrow()
    expect(gitEnv().GIT_CONFIG_GLOBAL).toBe('/dev/null')
  })
})
