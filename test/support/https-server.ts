/**
 * A real HTTPS server on 127.0.0.1 and a random port, using the test CA's certificate, that serves
 * static files, JSON, redirects, 401s and custom route handlers, and records every request.
 * git-http.ts mounts `git http-backend` on it.
 *
 * The server runs inside the test process: its clients must run asynchronously (a spawned
 * process, `fetch`), never through execFileSync/spawnSync, which would block the event loop and
 * with it the server.
 *
 * Clients trust it through `server.trustEnv()`: GIT_SSL_CAINFO (git) and NODE_EXTRA_CA_CERTS
 * (a child node process).
 */
import {createHash, timingSafeEqual} from 'node:crypto'
import {readFileSync, statSync} from 'node:fs'
import type {IncomingHttpHeaders, IncomingMessage, ServerResponse} from 'node:http'
import {createServer, type Server} from 'node:https'
import type {Socket} from 'node:net'
import {join, normalize, resolve, sep} from 'node:path'
import {makeTestCa, type TestCa} from './test-ca.js'

export interface RecordedRequest {
  method: string
  /** the request target as sent: path and query */
  url: string
  /** the path alone, still percent-encoded */
  path: string
  /** the query string without '?', '' when none */
  query: string
  /** a copy of the request headers (lower-case names) */
  headers: IncomingHttpHeaders
  /** the response status, set when the response is finished */
  status?: number
  /** Date.now() when the request arrived */
  time: number
}

export interface RouteContext {
  url: URL
  /** the matched path */
  path: string
  /** for a prefix route, what follows the prefix ('' or starting with '/') */
  rest: string
  record: RecordedRequest
  server: TestHttpsServer
}

export type Handler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => void | Promise<void>

export interface Credentials {
  username: string
  password: string
  /** the realm in WWW-Authenticate; default 'loadout tests' */
  realm?: string
}

export interface StaticFile {
  body: string | Buffer
  /** default 200 */
  status?: number
  /** default from the path's extension */
  contentType?: string
  headers?: Record<string, string | string[]>
  /** send ETag and Last-Modified and answer conditional requests with 304; default true */
  conditional?: boolean
}

export interface TestHttpsServer {
  /** 'https://127.0.0.1:PORT' */
  origin: string
  port: number
  /** the CA certificate file clients must trust */
  caFile: string
  ca: TestCa
  /** every request received, oldest first */
  requests: RecordedRequest[]
  /** origin + path */
  url(path: string): string
  /**
   * Adds a handler for an exact path ('/catalog.json') or, ending in '/*', for a path and
   * everything under it ('/files/*'). Exact routes win, then the longest prefix. Replaces an
   * earlier handler for the same path.
   */
  route(path: string, handler: Handler): void
  /** serves a static body at an exact path (GET and HEAD) */
  file(path: string, body: string | Buffer | StaticFile): void
  /** serves several static bodies: path -> body */
  files(map: Record<string, string | Buffer | StaticFile>): void
  /** serves JSON.stringify(value) as application/json */
  json(path: string, value: unknown, options?: Omit<StaticFile, 'body'>): void
  /** serves every file under `dir` below the path prefix `prefix` (e.g. '/archives') */
  directory(prefix: string, dir: string): void
  /** answers `path` with a redirect to `location` (absolute, or a path on this server) */
  redirect(path: string, location: string, status?: number): void
  /**
   * Requires basic auth for a path and everything below it (segment-wise: '/private' covers
   * '/private' and '/private/x', not '/private-x'): a missing or wrong Authorization header gets
   * 401 with `WWW-Authenticate: Basic realm="..."`.
   */
  protect(prefix: string, credentials: Credentials): void
  unprotect(prefix: string): void
  /** the requests whose path starts with `prefix` */
  requestsTo(prefix: string): RecordedRequest[]
  clearRequests(): void
  /** environment for clients: {GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS} */
  trustEnv(): {GIT_SSL_CAINFO: string; NODE_EXTRA_CA_CERTS: string}
  /** runs `fn` during stop(), before the server closes (git-http uses it to end CGI processes) */
  onStop(fn: () => void | Promise<void>): void
  /** closes the server and every connection; safe to call twice */
  stop(): Promise<void>
}

export interface HttpsServerOptions {
  /** a CA from makeTestCa; default makeTestCa() (shared by the process) */
  ca?: TestCa
}

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.gz': 'application/gzip',
  '.tgz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
}

const contentTypeFor = (path: string): string => {
  const match = /\.[a-z0-9]+$/i.exec(path.split('?')[0] ?? '')
  return (match && TYPES[match[0].toLowerCase()]) || 'application/octet-stream'
}

/** A fixed Last-Modified for static files, so conditional requests are deterministic. */
export const LAST_MODIFIED = new Date(Date.UTC(2024, 0, 1)).toUTCString()

/** Checks a request's basic-auth header against credentials, in constant time. */
export const checkBasicAuth = (header: string | undefined, credentials: Credentials): boolean => {
  if (!header) return false
  const match = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (!match) return false
  const given = Buffer.from(Buffer.from(match[1]!, 'base64').toString('utf8'))
  const expected = Buffer.from(`${credentials.username}:${credentials.password}`)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The value of an Authorization header for basic auth. */
export const basicAuthHeader = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`

/** A handler that answers 401 with `WWW-Authenticate: Basic realm="..."`. */
export const unauthorized =
  (realm = 'loadout tests'): Handler =>
  (_req, res) => {
    res.writeHead(401, {'www-authenticate': `Basic realm="${realm}"`, 'content-type': 'text/plain'})
    res.end('Authentication required\n')
  }

/** A handler answering with a fixed status (and optional body and headers). */
export const status =
  (code: number, body = '', headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, {'content-type': 'text/plain', ...headers})
    res.end(body)
  }

/** A handler that never answers (the connection stays open until the client gives up or the server stops). */
export const hang = (): Handler => (req) => {
  req.resume()
}

const sendStatic = (req: IncomingMessage, res: ServerResponse, path: string, file: StaticFile): void => {
  const body = typeof file.body === 'string' ? Buffer.from(file.body) : file.body
  const headers: Record<string, string | string[] | number> = {
    'content-type': file.contentType ?? contentTypeFor(path),
    ...file.headers,
  }
  const code = file.status ?? 200
  if (file.conditional !== false && code === 200) {
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`
    headers.etag = etag
    headers['last-modified'] = LAST_MODIFIED
    const noneMatch = req.headers['if-none-match']
    const modifiedSince = req.headers['if-modified-since']
    const fresh =
      noneMatch !== undefined
        ? noneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')
        : modifiedSince !== undefined && Date.parse(modifiedSince) >= Date.parse(LAST_MODIFIED)
    if (fresh) {
      res.writeHead(304, {etag, 'last-modified': LAST_MODIFIED})
      res.end()
      return
    }
  }
  headers['content-length'] = body.length
  res.writeHead(code, headers)
  res.end(req.method === 'HEAD' ? undefined : body)
}

const underPrefix = (path: string, prefix: string): boolean => {
  const p = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  return p === '' || path === p || path.startsWith(`${p}/`)
}

/** Starts the server on 127.0.0.1 and a port the system picks. */
export const startHttpsServer = async (options: HttpsServerOptions = {}): Promise<TestHttpsServer> => {
  const ca = options.ca ?? makeTestCa()
  const exact = new Map<string, Handler>()
  const prefixes = new Map<string, Handler>()
  const protectedPrefixes = new Map<string, Credentials>()
  const stopHooks: Array<() => void | Promise<void>> = []
  const sockets = new Set<Socket>()
  const requests: RecordedRequest[] = []

  const findRoute = (path: string): {handler: Handler; rest: string} | undefined => {
    const handler = exact.get(path)
    if (handler) return {handler, rest: ''}
    let best: {handler: Handler; rest: string; length: number} | undefined
    for (const [prefix, h] of prefixes) {
      if (underPrefix(path, prefix) && (!best || prefix.length > best.length)) {
        best = {handler: h, rest: path.slice(prefix.length), length: prefix.length}
      }
    }
    return best
  }

  const findProtection = (path: string): Credentials | undefined => {
    let best: [string, Credentials] | undefined
    for (const entry of protectedPrefixes) {
      if (underPrefix(path, entry[0]) && (!best || entry[0].length > best[0].length)) best = entry
    }
    return best?.[1]
  }

  // assigned once the server listens; the request handler below reads it only after that
  // eslint-disable-next-line prefer-const
  let server!: TestHttpsServer
  const httpsServer: Server = createServer({key: ca.key, cert: ca.cert}, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1')
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: url.pathname,
      query: url.search.replace(/^\?/, ''),
      headers: {...req.headers},
      time: Date.now(),
    }
    requests.push(record)
    res.on('finish', () => (record.status = res.statusCode))
    const credentials = findProtection(url.pathname)
    if (credentials && !checkBasicAuth(req.headers.authorization, credentials)) {
      req.resume()
      unauthorized(credentials.realm)(req, res, {url, path: url.pathname, rest: '', record, server})
      return
    }
    const route = findRoute(url.pathname)
    if (!route) {
      req.resume()
      res.writeHead(404, {'content-type': 'text/plain'})
      res.end(`Not found: ${url.pathname}\n`)
      return
    }
    const fail = (error: unknown): void => {
      if (!res.headersSent) {
        res.writeHead(500, {'content-type': 'text/plain'})
        res.end(`Handler failed: ${(error as Error)?.message ?? String(error)}\n`)
      } else {
        res.destroy()
      }
    }
    try {
      const result = route.handler(req, res, {url, path: url.pathname, rest: route.rest, record, server})
      if (result && typeof result.then === 'function') result.then(undefined, fail)
    } catch (error) {
      fail(error)
    }
  })
  httpsServer.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  // a client that fails the TLS handshake (it does not trust the CA) is not an error of the server
  httpsServer.on('tlsClientError', () => {})
  httpsServer.keepAliveTimeout = 5_000

  await new Promise<void>((resolveListen, reject) => {
    httpsServer.once('error', reject)
    httpsServer.listen({port: 0, host: '127.0.0.1'}, () => {
      httpsServer.off('error', reject)
      resolveListen()
    })
  })
  const address = httpsServer.address()
  if (!address || typeof address !== 'object') throw new Error('https server has no address')
  const port = address.port
  const origin = `https://127.0.0.1:${port}`

  let stopping: Promise<void> | undefined
  const stop = async (): Promise<void> => {
    for (const hook of stopHooks) {
      try {
        await hook()
      } catch {
        // keep stopping
      }
    }
    await new Promise<void>((resolveClose) => {
      const timer = setTimeout(resolveClose, 5_000)
      httpsServer.close(() => {
        clearTimeout(timer)
        resolveClose()
      })
      httpsServer.closeAllConnections()
      for (const socket of sockets) socket.destroy()
    })
  }

  const normalizeRoute = (path: string): string => {
    if (!path.startsWith('/')) throw new Error(`route paths start with '/': ${path}`)
    return path
  }

  server = {
    origin,
    port,
    caFile: ca.caFile,
    ca,
    requests,
    url: (path) => `${origin}${path.startsWith('/') ? path : `/${path}`}`,
    route(path, handler) {
      normalizeRoute(path)
      if (path.endsWith('/*')) prefixes.set(path.slice(0, -2), handler)
      else exact.set(path, handler)
    },
    file(path, body) {
      const file: StaticFile = typeof body === 'string' || Buffer.isBuffer(body) ? {body} : body
      server.route(path, (req, res) => {
        req.resume()
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          res.writeHead(405, {allow: 'GET, HEAD'})
          res.end()
          return
        }
        sendStatic(req, res, path, file)
      })
    },
    files(map) {
      for (const [path, body] of Object.entries(map)) server.file(path, body)
    },
    json(path, value, opts = {}) {
      server.file(path, {contentType: 'application/json', ...opts, body: JSON.stringify(value)})
    },
    directory(prefix, dir) {
      const base = prefix.replace(/\/+$/, '')
      const root = resolve(dir)
      server.route(`${base}/*`, (req, res, ctx) => {
        req.resume()
        let relative: string
        try {
          relative = normalize(decodeURIComponent(ctx.rest)).replace(/^[/\\]+/, '')
        } catch {
          relative = '..'
        }
        const full = join(root, relative)
        if (relative === '' || relative.split(sep).includes('..') || !full.startsWith(root + sep)) {
          status(404, 'Not found\n')(req, res, ctx)
          return
        }
        try {
          if (!statSync(full).isFile()) throw new Error('not a file')
          sendStatic(req, res, full, {body: readFileSync(full)})
        } catch {
          status(404, 'Not found\n')(req, res, ctx)
        }
      })
    },
    redirect(path, location, code = 302) {
      server.route(path, (req, res) => {
        req.resume()
        res.writeHead(code, {location: location.startsWith('/') ? `${origin}${location}` : location})
        res.end()
      })
    },
    protect(prefix, credentials) {
      protectedPrefixes.set(normalizeRoute(prefix), credentials)
    },
    unprotect(prefix) {
      protectedPrefixes.delete(prefix)
    },
    requestsTo: (prefix) => requests.filter((r) => underPrefix(r.path, prefix)),
    clearRequests() {
      requests.length = 0
    },
    trustEnv: () => ({GIT_SSL_CAINFO: ca.caFile, NODE_EXTRA_CA_CERTS: ca.caFile}),
    onStop(fn) {
      stopHooks.push(fn)
    },
    stop: () => (stopping ??= stop()),
  }
  return server
}
