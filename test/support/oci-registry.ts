/**
 * A real OCI registry for tests: the CNCF distribution registry (Debian's `docker-registry`, installed
 * by test/support/system-packages.js), started on 127.0.0.1 and a free port with the test CA's server
 * certificate, its storage in a temporary folder, behind either htpasswd basic auth (bcrypt, written
 * with `htpasswd -B`) or token auth, where the token server is ours: an HTTPS route on 127.0.0.1 that
 * checks the same user and password and issues an ES256 JWT signed with the test CA's server key,
 * its certificate in the `x5c` header, so the registry trusts it through the CA (`rootcertbundle`).
 *
 * Clients trust the registry through NODE_EXTRA_CA_CERTS=<caFile>.
 */
import {execFileSync, spawn, type ChildProcess} from 'node:child_process'
import {createPrivateKey, randomBytes, sign, X509Certificate} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {request} from 'node:https'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {checkBasicAuth, startHttpsServer, type TestHttpsServer} from './https-server.js'
import {makeTestCa, onProcessEnd, type TestCa} from './test-ca.js'

export interface OciRegistryOptions {
  /** 'basic' (htpasswd, the default) or 'token' (a token server of ours) */
  auth?: 'basic' | 'token'
  username?: string
  password?: string
}

export interface OciRegistry {
  /** `127.0.0.1:PORT`, as an `oci://` reference names it */
  host: string
  origin: string
  port: number
  caFile: string
  ca: TestCa
  username: string
  password: string
  /** the registry's storage folder */
  storage: string
  /** the token server, when auth is 'token' */
  tokenServer?: TestHttpsServer
  /** the file the registry stores a blob in */
  blobFile(digest: string): string
  /** flips the bytes of a stored blob, keeping its length: the registry then serves a tampered blob */
  tamperBlob(digest: string): void
  stop(): Promise<void>
}

const freePort = async (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen({port: 0, host: '127.0.0.1'}, () => {
      const address = server.address()
      server.close(() => (address && typeof address === 'object' ? resolvePort(address.port) : reject(new Error('no port'))))
    })
  })

const getStatus = async (url: string, ca: string): Promise<number> =>
  new Promise((resolveStatus) => {
    const req = request(url, {ca, timeout: 2_000}, (res) => {
      res.resume()
      resolveStatus(res.statusCode ?? 0)
    })
    req.on('error', () => resolveStatus(0))
    req.on('timeout', () => req.destroy())
    req.end()
  })

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url')

/** A registry token: an ES256 JWT over the claims distribution checks (issuer, audience, times, access). */
const registryToken = (ca: TestCa, scope: string, service: string, subject: string): string => {
  const der = new X509Certificate(ca.cert).raw.toString('base64')
  const header = {typ: 'JWT', alg: 'ES256', x5c: [der]}
  const now = Math.floor(Date.now() / 1000)
  const access = scope
    .split(' ')
    .filter(Boolean)
    .map((item) => {
      const [type, name, actions] = item.split(':')
      return {type, name, actions: (actions ?? '').split(',').filter((a) => a === 'pull' || a === 'push')}
    })
  const claims = {
    iss: 'loadout-test-token-server',
    sub: subject,
    aud: service,
    exp: now + 300,
    nbf: now - 10,
    iat: now,
    jti: randomBytes(8).toString('hex'),
    access,
  }
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`
  const signature = sign('sha256', Buffer.from(input), {key: createPrivateKey(ca.key), dsaEncoding: 'ieee-p1363'})
  return `${input}.${base64url(signature)}`
}

const startTokenServer = async (ca: TestCa, username: string, password: string): Promise<TestHttpsServer> => {
  const server = await startHttpsServer({ca})
  server.route('/token', (req, res, ctx) => {
    req.resume()
    if (!checkBasicAuth(req.headers.authorization, {username, password})) {
      res.writeHead(401, {'content-type': 'application/json'})
      res.end('{"errors":[{"code":"UNAUTHORIZED"}]}')
      return
    }
    const token = registryToken(ca, ctx.url.searchParams.getAll('scope').join(' '), ctx.url.searchParams.get('service') ?? '', username)
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({token, expires_in: 300}))
  })
  return server
}

const configYaml = (port: number, ca: TestCa, storage: string, auth: string): string => `version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: ${storage}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:${port}
  secret: ${randomBytes(16).toString('hex')}
  tls:
    certificate: ${ca.certFile}
    key: ${ca.keyFile}
${auth}`

/** Starts a registry and waits until it answers `/v2/` (401 without credentials). */
export const startOciRegistry = async (options: OciRegistryOptions = {}): Promise<OciRegistry> => {
  const ca = makeTestCa()
  const username = options.username ?? 'acme-ci'
  const password = options.password ?? `pw-${randomBytes(12).toString('hex')}`
  const dir = mkdtempSync(join(tmpdir(), 'loadout-oci-registry-'))
  const storage = join(dir, 'storage')
  const port = await freePort()
  let auth: string
  let tokenServer: TestHttpsServer | undefined
  if (options.auth === 'token') {
    tokenServer = await startTokenServer(ca, username, password)
    auth = `auth:
  token:
    realm: ${tokenServer.url('/token')}
    service: loadout-test-registry
    issuer: loadout-test-token-server
    rootcertbundle: ${ca.caFile}
`
  } else {
    const htpasswd = join(dir, 'htpasswd')
    writeFileSync(htpasswd, execFileSync('htpasswd', ['-Bbn', username, password], {encoding: 'utf8'}))
    auth = `auth:
  htpasswd:
    realm: loadout-test-registry
    path: ${htpasswd}
`
  }
  const config = join(dir, 'config.yml')
  writeFileSync(config, configYaml(port, ca, storage, auth))
  const child: ChildProcess = spawn('docker-registry', ['serve', config], {stdio: ['ignore', 'ignore', 'pipe'], env: {PATH: process.env.PATH, HOME: dir}})
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)))
  const removeHook = onProcessEnd(() => {
    child.kill('SIGKILL')
    rmSync(dir, {recursive: true, force: true})
  })
  const origin = `https://127.0.0.1:${port}`
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited (${child.exitCode}): ${stderr}`)
    if ((await getStatus(`${origin}/v2/`, ca.caCert)) === 401) break
    if (Date.now() > deadline) throw new Error(`docker-registry did not answer on ${origin}: ${stderr}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const blobFile = (digest: string): string => {
    const hex = digest.replace(/^sha256:/, '')
    return join(storage, 'docker', 'registry', 'v2', 'blobs', 'sha256', hex.slice(0, 2), hex, 'data')
  }
  return {
    host: `127.0.0.1:${port}`,
    origin,
    port,
    caFile: ca.caFile,
    ca,
    username,
    password,
    storage,
    ...(tokenServer ? {tokenServer} : {}),
    blobFile,
    tamperBlob(digest) {
      const file = blobFile(digest)
      const bytes = readFileSync(file)
      for (let i = Math.floor(bytes.length / 2); i < bytes.length; i++) bytes[i] = bytes[i]! ^ 0xff
      writeFileSync(file, bytes)
    },
    async stop() {
      removeHook()
      await tokenServer?.stop()
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
