// A real HTTPS server for the benchmarks, on 127.0.0.1: git smart HTTP (`git http-backend` run as
// a CGI program) under /git, and static files under /files, behind a certificate signed by a
// throwaway CA made with the `openssl` CLI at bench time. Loadout and git trust it through
// GIT_SSL_CAINFO and NODE_EXTRA_CA_CERTS; LOADOUT_GITHUB_URL=<origin>/git makes `owner/repo` resolve here.
//
// The bench times children with spawnSync, which blocks this process's event loop, so the server
// cannot live in it: startServer() spawns this file as a separate Node process (`node servers.js
// serve <config>`), waits until it listens, and returns at once. The server process ends when
// stop() is called, and also by itself when the bench process goes away (its stdin pipe closes).
//
//   const server = startServer({dir: temp.path('server'), gitRoot, staticRoot})
//   Object.assign(temp.env, server.env)        // GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS, LOADOUT_GITHUB_URL
//   server.gitUrl('acme/market')                // https://127.0.0.1:PORT/git/acme/market.git
//   server.url('/files/catalog.json')
//   server.stop()
import {execFileSync, spawn} from 'node:child_process'
import {createHash, randomBytes} from 'node:crypto'
import {chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, renameSync} from 'node:fs'
import {join, normalize, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const SELF = fileURLToPath(import.meta.url)

// ---------------------------------------------------------------------------------------------
// The throwaway CA

const OPENSSL_CONFIG = `# made by bench/servers.js
[req]
distinguished_name = dn
prompt = no

[dn]
CN = unused

[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[v3_server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid, issuer
`

const openssl = (args, cwd) => {
  try {
    execFileSync('openssl', args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
      // our own config is passed with -config; keep the user's OPENSSL_CONF out of it
      env: {PATH: process.env.PATH, HOME: cwd, LANG: 'C', RANDFILE: join(cwd, '.rnd')},
    })
  } catch (error) {
    throw new Error(`openssl ${args[0]} failed: ${error.stderr?.toString().trim() || error.message}`)
  }
}

const serial = () => `0x${randomBytes(8).toString('hex').replace(/^./, '1')}`

/**
 * Makes a CA (valid 2 days) and a server certificate it signs for IP:127.0.0.1 and DNS:localhost,
 * in `dir`. Returns {caFile, certFile, keyFile}. Reuses them when they are already there.
 */
export const makeCa = (dir) => {
  mkdirSync(dir, {recursive: true})
  const files = {caFile: join(dir, 'ca.crt'), certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key')}
  if (Object.values(files).every((f) => existsSync(f))) return files
  const config = join(dir, 'openssl.cnf')
  writeFileSync(config, OPENSSL_CONFIG)
  const caKey = join(dir, 'ca.key')
  const csr = join(dir, 'server.csr')
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  openssl(
    [
      'req',
      '-config',
      config,
      '-x509',
      ...ec,
      '-keyout',
      caKey,
      '-out',
      files.caFile,
      '-days',
      '2',
      '-subj',
      '/O=loadout bench/CN=loadout bench CA',
      '-extensions',
      'v3_ca',
      '-set_serial',
      serial(),
    ],
    dir,
  )
  openssl(['req', '-config', config, '-new', ...ec, '-keyout', files.keyFile, '-out', csr, '-subj', '/O=loadout bench/CN=127.0.0.1'], dir)
  openssl(
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      files.caFile,
      '-CAkey',
      caKey,
      '-set_serial',
      serial(),
      '-days',
      '2',
      '-sha256',
      '-extfile',
      config,
      '-extensions',
      'v3_server',
      '-out',
      files.certFile,
    ],
    dir,
  )
  chmodSync(caKey, 0o600)
  chmodSync(files.keyFile, 0o600)
  return files
}

// ---------------------------------------------------------------------------------------------
// The parent side: start the server process and wait for it, synchronously

const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Starts the server process. `dir` holds the CA, the config, the ready file and the log;
 * `gitRoot` the bare repositories (`<gitRoot>/<owner>/<name>.git`); `staticRoot` the files served
 * under /files. `allowFilter` (default true, as on GitHub) lets clients make partial clones
 * (`--filter=blob:none`) and fetch missing blobs later; false makes every clone a full one.
 * Returns {origin, port, caFile, env, url(path), gitUrl('owner/name'), log(), stop()}.
 */
export const startServer = ({dir, gitRoot, staticRoot, allowFilter = true, timeoutMs = 15_000}) => {
  mkdirSync(dir, {recursive: true})
  const ca = makeCa(join(dir, 'ca'))
  const readyFile = join(dir, 'ready.json')
  const logFile = join(dir, 'server.log')
  const configFile = join(dir, 'server.json')
  writeFileSync(
    configFile,
    JSON.stringify({...ca, gitRoot: gitRoot && resolve(gitRoot), staticRoot: staticRoot && resolve(staticRoot), readyFile, allowFilter}),
  )
  const logFd = openSync(logFile, 'a')
  // stdin stays a pipe from us: when this process ends, the server sees it close and exits
  const child = spawn(process.execPath, [SELF, 'serve', configFile], {stdio: ['pipe', 'ignore', logFd], env: {PATH: process.env.PATH, LANG: 'C'}})
  closeSync(logFd)
  child.unref()
  child.stdin.unref?.()
  child.stdin.on('error', () => {})
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8')
    } catch {
      return ''
    }
  }
  const deadline = Date.now() + timeoutMs
  let port
  while (port === undefined) {
    if (existsSync(readyFile)) port = JSON.parse(readFileSync(readyFile, 'utf8')).port
    else if (child.exitCode !== null || Date.now() > deadline) {
      try {
        child.kill('SIGKILL')
      } catch {}
      throw new Error(`bench server did not start: ${log().trim().split('\n').slice(-3).join(' | ') || 'no output'}`)
    } else sleepSync(20)
  }
  const origin = `https://127.0.0.1:${port}`
  let stopped = false
  return {
    origin,
    port,
    pid: child.pid,
    caFile: ca.caFile,
    env: {GIT_SSL_CAINFO: ca.caFile, NODE_EXTRA_CA_CERTS: ca.caFile, LOADOUT_GITHUB_URL: `${origin}/git`},
    url: (path) => `${origin}${path.startsWith('/') ? path : `/${path}`}`,
    gitUrl: (repo) => `${origin}/git/${repo.endsWith('.git') ? repo : `${repo}.git`}`,
    log,
    stop() {
      if (stopped) return
      stopped = true
      try {
        child.kill('SIGTERM')
      } catch {}
      try {
        child.stdin.destroy()
      } catch {}
    },
  }
}

// ---------------------------------------------------------------------------------------------
// The server process

const SEGMENT = /^[A-Za-z0-9._-]+$/
const HIDDEN_HEADERS = new Set(['authorization', 'proxy-authorization', 'content-type', 'content-length', 'connection'])
const TYPES = {'.json': 'application/json', '.gz': 'application/gzip', '.tgz': 'application/gzip', '.txt': 'text/plain; charset=utf-8'}

const plain = (res, code, text) => {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.writeHead(code, {'content-type': 'text/plain'})
  res.end(`${text}\n`)
}

/** /git/<owner>/<name>[.git]/<rest> -> the PATH_INFO git http-backend expects, or undefined. */
const gitPathInfo = (gitRoot, rest) => {
  const m = /^\/([^/]+)\/([^/]+?)(?:\.git)?(\/.*)$/.exec(rest)
  if (!m) return undefined
  const [, owner, name, tail] = m
  if (![owner, name].every((s) => SEGMENT.test(s) && s !== '.' && s !== '..')) return undefined
  if (!existsSync(join(gitRoot, owner, `${name}.git`, 'HEAD'))) return undefined
  return `/${owner}/${name}.git${tail}`
}

const serveGit = (req, res, url, gitRoot, allowFilter, children) => {
  const pathInfo = gitPathInfo(gitRoot, url.pathname.slice('/git'.length))
  if (!pathInfo) {
    req.resume()
    plain(res, 404, 'no such repository')
    return
  }
  const env = {
    PATH: process.env.PATH,
    LANG: 'C',
    HOME: gitRoot,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_PROJECT_ROOT: gitRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    // as GitHub does: partial clones (--filter=blob:none) are served, and the blobs they lack can be
    // fetched later by id; without this, git falls back to a full clone without saying so
    ...(allowFilter
      ? {
          GIT_CONFIG_COUNT: '2',
          GIT_CONFIG_KEY_0: 'uploadpack.allowFilter',
          GIT_CONFIG_VALUE_0: 'true',
          GIT_CONFIG_KEY_1: 'uploadpack.allowAnySHA1InWant',
          GIT_CONFIG_VALUE_1: 'true',
        }
      : {}),
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    SERVER_SOFTWARE: 'loadout-bench',
    REQUEST_METHOD: req.method,
    PATH_INFO: pathInfo,
    QUERY_STRING: url.search.replace(/^\?/, ''),
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
  }
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length']
  // every other header as HTTP_*: Git-Protocol (protocol v2), Content-Encoding (gzip bodies), …
  for (const [name, value] of Object.entries(req.headers)) {
    if (!HIDDEN_HEADERS.has(name)) env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(', ') : value
  }
  const child = spawn('git', ['http-backend'], {env, stdio: ['pipe', 'pipe', 'pipe']})
  children.add(child)
  let head = Buffer.alloc(0)
  let stderr = ''
  let headDone = false
  child.stdin.on('error', () => {})
  req.pipe(child.stdin)
  res.on('close', () => {
    if (!res.writableFinished && child.exitCode === null) child.kill('SIGKILL')
  })
  child.stderr.on('data', (d) => {
    stderr += d
    process.stderr.write(d)
  })
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk])
    let index = head.indexOf('\r\n\r\n')
    let length = 4
    const lf = head.indexOf('\n\n')
    if (lf !== -1 && (index === -1 || lf < index)) {
      index = lf
      length = 2
    }
    if (index === -1) return
    headDone = true
    child.stdout.off('data', onData)
    let status = 200
    let message
    for (const line of head.subarray(0, index).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':')
      if (colon <= 0) continue
      const name = line.slice(0, colon).trim()
      const value = line.slice(colon + 1).trim()
      if (name.toLowerCase() === 'status') {
        const m = /^(\d{3})\s*(.*)$/.exec(value)
        if (m) {
          status = Number(m[1])
          message = m[2] || undefined
        }
      } else res.setHeader(name, value)
    }
    res.statusCode = status
    if (message) res.statusMessage = message
    const rest = head.subarray(index + length)
    if (rest.length) res.write(rest)
    child.stdout.pipe(res)
  }
  child.stdout.on('data', onData)
  child.on('error', (error) => {
    children.delete(child)
    plain(res, 502, `git http-backend could not start: ${error.message}`)
  })
  child.on('close', (code, signal) => {
    children.delete(child)
    if (!headDone) plain(res, 502, `git http-backend ended (${code ?? signal}) without a response: ${stderr}`)
    else if (!res.writableEnded) res.end()
  })
}

const serveStatic = (req, res, url, staticRoot) => {
  req.resume()
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, {allow: 'GET, HEAD'})
    res.end()
    return
  }
  let rel
  try {
    rel = normalize(decodeURIComponent(url.pathname.slice('/files'.length))).replace(/^[/\\]+/, '')
  } catch {
    rel = '..'
  }
  const full = join(staticRoot, rel)
  if (rel === '' || rel.split(sep).includes('..') || !full.startsWith(staticRoot + sep)) {
    plain(res, 404, 'not found')
    return
  }
  let stat
  try {
    stat = statSync(full)
    if (!stat.isFile()) throw new Error('not a file')
  } catch {
    plain(res, 404, 'not found')
    return
  }
  // an ETag from size and mtime (as nginx does), and Last-Modified: conditional GETs get 304
  const etag = `"${createHash('sha256').update(`${stat.size}:${stat.mtimeMs}:${full}`).digest('hex').slice(0, 24)}"`
  const lastModified = new Date(Math.floor(stat.mtimeMs / 1000) * 1000).toUTCString()
  const ims = req.headers['if-modified-since']
  const inm = req.headers['if-none-match']
  if (
    inm !== undefined ? inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag) : ims !== undefined && Date.parse(ims) >= Date.parse(lastModified)
  ) {
    res.writeHead(304, {etag, 'last-modified': lastModified})
    res.end()
    return
  }
  const ext = /\.[a-z0-9]+$/i.exec(full)?.[0].toLowerCase()
  res.writeHead(200, {'content-type': TYPES[ext] ?? 'application/octet-stream', 'content-length': stat.size, etag, 'last-modified': lastModified})
  res.end(req.method === 'HEAD' ? undefined : readFileSync(full))
}

const serve = async (configFile) => {
  const {createServer} = await import('node:https')
  const config = JSON.parse(readFileSync(configFile, 'utf8'))
  const children = new Set()
  const sockets = new Set()
  const server = createServer({key: readFileSync(config.keyFile), cert: readFileSync(config.certFile)}, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1')
    try {
      if (config.gitRoot && (url.pathname === '/git' || url.pathname.startsWith('/git/'))) serveGit(req, res, url, config.gitRoot, config.allowFilter, children)
      else if (config.staticRoot && url.pathname.startsWith('/files/')) serveStatic(req, res, url, config.staticRoot)
      else {
        req.resume()
        plain(res, 404, `not found: ${url.pathname}`)
      }
    } catch (error) {
      plain(res, 500, `handler failed: ${error.message}`)
    }
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('tlsClientError', () => {})
  server.keepAliveTimeout = 5_000
  const shutdown = () => {
    for (const child of children) child.kill('SIGKILL')
    server.close()
    for (const socket of sockets) socket.destroy()
    setTimeout(() => process.exit(0), 200).unref()
  }
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, shutdown)
  // the bench holds our stdin open; when it ends (normally or not), so do we
  process.stdin.on('end', shutdown)
  process.stdin.on('close', shutdown)
  process.stdin.on('error', shutdown)
  process.stdin.resume()
  server.listen({port: 0, host: '127.0.0.1'}, () => {
    const temp = `${config.readyFile}.${process.pid}`
    writeFileSync(temp, JSON.stringify({port: server.address().port, pid: process.pid}))
    renameSync(temp, config.readyFile)
  })
}

if (process.argv[1] && resolve(process.argv[1]) === SELF && process.argv[2] === 'serve') {
  serve(process.argv[3]).catch((error) => {
    process.stderr.write(`bench server: ${error.stack ?? error.message}\n`)
    process.exit(1)
  })
}
