/**
 * Git smart HTTP on the test HTTPS server: `git http-backend` run as a CGI program for every
 * request under a path prefix, serving the bare repositories under a root folder (see serveRepo in
 * git-repos.ts).
 *
 *   /git/plugins.git/info/refs?service=git-upload-pack   -> <root>/plugins.git
 *   /git/owner/repo/info/refs?...                        -> <root>/owner/repo.git (".git" optional, as on GitHub)
 *
 * Repositories can require basic auth, to test "a server that asks for a password fails fast".
 *
 * Example (GitHub shorthand pointed at the test server):
 *
 *   makeServedRepo(work, root, 'acme/plugins', files)        // -> <root>/acme/plugins.git
 *   const server = await startGitHttpsServer({root, prefix: '/github'})
 *   env.LOADOUT_GITHUB_URL = `${server.origin}/github`       // clones .../github/acme/plugins(.git)
 *   Object.assign(env, server.trustEnv())                   // GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS
 *   ...
 *   await server.stop()
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, statSync} from 'node:fs'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {join, resolve} from 'node:path'
import {gitEnv} from './git-repos.js'
import {onProcessEnd} from './test-ca.js'
import {
  checkBasicAuth,
  startHttpsServer,
  unauthorized,
  type Credentials,
  type HttpsServerOptions,
  type RouteContext,
  type TestHttpsServer,
} from './https-server.js'

export interface GitHttpOptions {
  /** the folder holding the bare repositories (GIT_PROJECT_ROOT) */
  root: string
  /** the URL path prefix; default '/git'; '' serves repositories at the server's root */
  prefix?: string
  /** repositories needing basic auth: repository path under root ('private.git' or 'owner/repo') -> credentials */
  auth?: Record<string, Credentials>
  /** a CGI process running longer than this is killed; default 60 s */
  timeoutMs?: number
}

export interface GitHttpMount {
  /** the URL path prefix, '' or starting with '/' */
  prefix: string
  root: string
  /** the clone URL of a repository: url('plugins') === origin + prefix + '/plugins.git' */
  url(repo: string): string
  /** requires basic auth for a repository from now on */
  protect(repo: string, credentials: Credentials): void
  unprotect(repo: string): void
  /** what git http-backend wrote to stderr, capped */
  log(): string
}

export type GitHttpsServer = TestHttpsServer & {git: GitHttpMount}

const LOG_CAP = 64 * 1024
// request headers not passed to the CGI program as HTTP_* variables (as web servers do)
const HIDDEN_HEADERS = new Set(['authorization', 'proxy-authorization', 'content-type', 'content-length', 'connection'])

const withGit = (repo: string): string => (repo.endsWith('.git') ? repo : `${repo}.git`)
const trimSlashes = (path: string): string => path.replace(/^\/+|\/+$/g, '')

const isBareRepo = (dir: string): boolean => {
  try {
    return statSync(dir).isDirectory() && existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'))
  } catch {
    return false
  }
}

/** Finds the repository a request path names; ".git" may be left out of the URL. */
const resolveRepo = (root: string, rest: string): {repo: string; tail: string} | undefined => {
  let segments: string[]
  try {
    segments = rest
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s))
  } catch {
    return undefined
  }
  if (segments.some((s) => s === '.' || s === '..' || s.includes('/') || s.includes('\\') || s.includes('\0'))) return undefined
  for (let i = 1; i <= segments.length; i++) {
    const candidate = segments.slice(0, i).join('/')
    const tail = segments.slice(i).join('/')
    if (isBareRepo(join(root, candidate))) return {repo: candidate, tail}
    if (!candidate.endsWith('.git') && isBareRepo(join(root, `${candidate}.git`))) return {repo: `${candidate}.git`, tail}
  }
  return undefined
}

interface CgiHead {
  status: number
  message?: string
  headers: Array<[string, string]>
}

/** Parses a CGI response head ("Status: 404 Not Found", "Content-Type: ..."). */
const parseCgiHead = (text: string): CgiHead => {
  const head: CgiHead = {status: 200, headers: []}
  let hasLocation = false
  let hasStatus = false
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (name.toLowerCase() === 'status') {
      const match = /^(\d{3})\s*(.*)$/.exec(value)
      if (match) {
        head.status = Number(match[1])
        if (match[2]) head.message = match[2]
        hasStatus = true
      }
    } else {
      if (name.toLowerCase() === 'location') hasLocation = true
      head.headers.push([name, value])
    }
  }
  if (hasLocation && !hasStatus) head.status = 302
  return head
}

/** Index and length of the blank line ending a CGI head, if there is one yet. */
const headEnd = (buffer: Buffer): {index: number; length: number} | undefined => {
  const crlf = buffer.indexOf('\r\n\r\n')
  const lf = buffer.indexOf('\n\n')
  if (crlf === -1 && lf === -1) return undefined
  if (lf !== -1 && (crlf === -1 || lf < crlf)) return {index: lf, length: 2}
  return {index: crlf, length: 4}
}

const runBackend = (
  req: IncomingMessage,
  res: ServerResponse,
  env: NodeJS.ProcessEnv,
  children: Set<ChildProcess>,
  appendLog: (text: string) => void,
  timeoutMs: number,
): Promise<void> =>
  new Promise((done) => {
    const child = spawn('git', ['http-backend'], {env, stdio: ['pipe', 'pipe', 'pipe']})
    children.add(child)
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    let head: Buffer = Buffer.alloc(0)
    let headDone = false
    let stderr = ''

    const finish = (): void => {
      clearTimeout(timer)
      children.delete(child)
      done()
    }

    // the request body (possibly gzip-encoded: HTTP_CONTENT_ENCODING tells git) goes to stdin
    child.stdin.on('error', () => {})
    req.pipe(child.stdin)
    req.on('error', () => child.kill('SIGKILL'))
    // a client that goes away ends the CGI process
    res.on('close', () => {
      if (!res.writableFinished && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    })

    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
      appendLog(d.toString())
    })

    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk])
      const end = headEnd(head)
      if (!end) {
        if (head.length > 64 * 1024) child.kill('SIGKILL')
        return
      }
      headDone = true
      child.stdout.off('data', onData)
      child.stdout.pause()
      const parsed = parseCgiHead(head.subarray(0, end.index).toString('latin1'))
      const rest = head.subarray(end.index + end.length)
      for (const [name, value] of parsed.headers) {
        const existing = res.getHeader(name)
        if (existing === undefined) res.setHeader(name, value)
        else res.setHeader(name, [...(Array.isArray(existing) ? existing : [String(existing)]), value])
      }
      res.statusCode = parsed.status
      if (parsed.message) res.statusMessage = parsed.message
      if (rest.length > 0) res.write(rest)
      child.stdout.pipe(res)
    }
    child.stdout.on('data', onData)

    child.on('error', (error) => {
      if (!res.headersSent) {
        res.writeHead(502, {'content-type': 'text/plain'})
        res.end(`git http-backend could not start: ${error.message}\n`)
      }
      finish()
    })
    child.on('close', (code, signal) => {
      if (!headDone && !res.headersSent) {
        res.writeHead(502, {'content-type': 'text/plain'})
        res.end(`git http-backend ended (${code ?? signal}) without a response\n${stderr}`)
      } else if (!res.writableEnded) {
        res.end()
      }
      finish()
    })
  })

/** Mounts git smart HTTP (git http-backend) on a test HTTPS server under `prefix` (default '/git'). */
export const mountGitHttp = (server: TestHttpsServer, options: GitHttpOptions): GitHttpMount => {
  const root = resolve(options.root)
  const prefix = options.prefix === undefined ? '/git' : options.prefix === '' || options.prefix === '/' ? '' : `/${trimSlashes(options.prefix)}`
  const auth = new Map<string, Credentials>()
  for (const [repo, credentials] of Object.entries(options.auth ?? {})) auth.set(withGit(trimSlashes(repo)), credentials)
  const children = new Set<ChildProcess>()
  let log = ''
  const appendLog = (text: string): void => {
    log = (log + text).slice(-LOG_CAP)
  }
  const timeoutMs = options.timeoutMs ?? 60_000

  const removeEndHook = onProcessEnd(() => {
    for (const child of children) child.kill('SIGKILL')
  })
  server.onStop(async () => {
    removeEndHook()
    const waiting = [...children].map(
      (child) =>
        new Promise<void>((resolveExit) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolveExit()
          const timer = setTimeout(resolveExit, 5_000)
          child.once('close', () => {
            clearTimeout(timer)
            resolveExit()
          })
          child.kill('SIGKILL')
        }),
    )
    await Promise.all(waiting)
  })

  const handler = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    const found = resolveRepo(root, ctx.rest)
    if (!found) {
      req.resume()
      res.writeHead(404, {'content-type': 'text/plain'})
      res.end('Repository not found\n')
      return
    }
    const credentials = auth.get(found.repo)
    if (credentials && !checkBasicAuth(req.headers.authorization, credentials)) {
      req.resume()
      unauthorized(credentials.realm)(req, res, ctx)
      return
    }
    const env: NodeJS.ProcessEnv = {
      ...gitEnv(),
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_SOFTWARE: 'loadout-test-https',
      SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
      SERVER_NAME: '127.0.0.1',
      SERVER_PORT: String(server.port),
      HTTPS: 'on',
      REQUEST_METHOD: req.method ?? 'GET',
      REQUEST_URI: req.url ?? '/',
      SCRIPT_NAME: prefix,
      PATH_INFO: `/${found.repo}${found.tail ? `/${found.tail}` : ''}`,
      QUERY_STRING: ctx.url.search.replace(/^\?/, ''),
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      REMOTE_PORT: String(req.socket.remotePort ?? 0),
    }
    if (req.headers['content-type']) env.CONTENT_TYPE = req.headers['content-type']
    // with Transfer-Encoding: chunked there is no length: git reads stdin to its end
    if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length']
    if (credentials) {
      env.AUTH_TYPE = 'Basic'
      env.REMOTE_USER = credentials.username
    }
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HIDDEN_HEADERS.has(name)) continue
      env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(', ') : value
    }
    // protocol v2: git http-backend reads HTTP_GIT_PROTOCOL (set above); GIT_PROTOCOL too for older gits
    const protocol = req.headers['git-protocol']
    if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol
    await runBackend(req, res, env, children, appendLog, timeoutMs)
  }

  server.route(prefix === '' ? '/*' : `${prefix}/*`, handler)

  return {
    prefix,
    root,
    url: (repo) => server.url(`${prefix}/${withGit(trimSlashes(repo))}`),
    protect(repo, credentials) {
      auth.set(withGit(trimSlashes(repo)), credentials)
    },
    unprotect(repo) {
      auth.delete(withGit(trimSlashes(repo)))
    },
    log: () => log,
  }
}

/** startHttpsServer + mountGitHttp: an HTTPS server with git smart HTTP at `prefix` (default '/git'). */
export const startGitHttpsServer = async (options: GitHttpOptions & HttpsServerOptions): Promise<GitHttpsServer> => {
  const server = await startHttpsServer(options.ca ? {ca: options.ca} : {})
  const git = mountGitHttp(server, options)
  return Object.assign(server, {git})
}
