/**
 * A throwaway certificate authority made at test time with the `openssl` CLI, and a server
 * certificate it signs for 127.0.0.1 and localhost. Clients trust it through
 * GIT_SSL_CAINFO=<caFile> (git) and NODE_EXTRA_CA_CERTS=<caFile> (a child node process).
 *
 * The CA is cached per process (per folder), so several servers in one test file reuse it.
 */
import {execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

export interface TestCa {
  /** the folder holding every file below */
  dir: string
  /** the CA certificate (PEM file): what clients must trust */
  caFile: string
  caKeyFile: string
  /** the server certificate (PEM file), signed by the CA, for IP:127.0.0.1 and DNS:localhost */
  certFile: string
  keyFile: string
  /** PEM text of the files above */
  caCert: string
  caKey: string
  cert: string
  key: string
}

const endHooks = new Set<() => void>()
let endHandlersInstalled = false
const END_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const

/**
 * Runs `fn` (synchronously) when this process ends: on exit, and on SIGTERM, SIGINT or SIGHUP,
 * which is how vitest ends its fork workers (no 'exit' event then). After the hooks ran, a signal
 * is raised again so the process still ends as it would have. Returns a function removing the hook.
 * The servers here use it so that no git daemon, CGI process or temporary CA folder outlives a test run.
 */
export const onProcessEnd = (fn: () => void): (() => void) => {
  endHooks.add(fn)
  if (!endHandlersInstalled) {
    endHandlersInstalled = true
    const runAll = (): void => {
      const hooks = [...endHooks]
      endHooks.clear()
      for (const hook of hooks) {
        try {
          hook()
        } catch {
          // keep going
        }
      }
    }
    process.once('exit', runAll)
    const handlers = new Map<NodeJS.Signals, () => void>()
    for (const signal of END_SIGNALS) {
      const handler = (): void => {
        runAll()
        for (const [s, h] of handlers) process.off(s, h)
        // nobody else handles it: end the way the signal would have
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
      }
      handlers.set(signal, handler)
      process.on(signal, handler)
    }
  }
  return () => {
    endHooks.delete(fn)
  }
}

const cache = new Map<string, TestCa>()
let defaultDir: string | undefined

const openssl = (args: string[], cwd: string): void => {
  try {
    execFileSync('openssl', args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
      // a config file of our own is passed with -config; keep the user's OPENSSL_CONF out of it
      env: {PATH: process.env.PATH, HOME: cwd, LANG: 'C', RANDFILE: join(cwd, '.rnd')},
    })
  } catch (error) {
    const e = error as {stderr?: Buffer; message: string}
    throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString() || e.message}`)
  }
}

const CONFIG = `# made by test/support/test-ca.ts
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

const serial = (): string => `0x${randomBytes(8).toString('hex').replace(/^./, '1')}`

const generate = (dir: string): TestCa => {
  // readable by everyone (keys excepted), so a CLI run under another uid can read the CA certificate
  mkdirSync(dir, {recursive: true, mode: 0o755})
  const config = join(dir, 'openssl.cnf')
  writeFileSync(config, CONFIG)
  const caKeyFile = join(dir, 'ca.key')
  const caFile = join(dir, 'ca.crt')
  const keyFile = join(dir, 'server.key')
  const csrFile = join(dir, 'server.csr')
  const certFile = join(dir, 'server.crt')
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  // the CA: self-signed, valid for 30 days
  openssl(
    [
      'req',
      '-config',
      config,
      '-x509',
      ...ec,
      '-keyout',
      caKeyFile,
      '-out',
      caFile,
      '-days',
      '30',
      '-subj',
      '/O=loadout tests/CN=loadout test CA',
      '-extensions',
      'v3_ca',
      '-set_serial',
      serial(),
    ],
    dir,
  )
  // the server key and its signing request
  openssl(['req', '-config', config, '-new', ...ec, '-keyout', keyFile, '-out', csrFile, '-subj', '/O=loadout tests/CN=127.0.0.1'], dir)
  // signed by the CA, with subjectAltName IP:127.0.0.1, DNS:localhost
  openssl(
    [
      'x509',
      '-req',
      '-in',
      csrFile,
      '-CA',
      caFile,
      '-CAkey',
      caKeyFile,
      '-set_serial',
      serial(),
      '-days',
      '30',
      '-sha256',
      '-extfile',
      config,
      '-extensions',
      'v3_server',
      '-out',
      certFile,
    ],
    dir,
  )
  for (const file of [caFile, certFile]) chmodSync(file, 0o644)
  for (const file of [caKeyFile, keyFile]) chmodSync(file, 0o600)
  rmSync(csrFile, {force: true})
  return {
    dir,
    caFile,
    caKeyFile,
    certFile,
    keyFile,
    caCert: readFileSync(caFile, 'utf8'),
    caKey: readFileSync(caKeyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
  }
}

const PREFIX = 'loadout-test-ca-'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** A process killed outright (SIGKILL) runs no hook: remove CA folders of processes that are gone. */
const collectStale = (): void => {
  try {
    for (const name of readdirSync(tmpdir())) {
      const match = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)
      if (match && Number(match[1]) !== process.pid && !alive(Number(match[1]))) {
        rmSync(join(tmpdir(), name), {recursive: true, force: true})
      }
    }
  } catch {
    // best effort
  }
}

/**
 * Makes (or reuses) a test CA and server certificate in `dir`. Without `dir`, one temporary folder per
 * process is used (readable by all, keys excepted) and removed when the process ends.
 */
export const makeTestCa = (dir?: string): TestCa => {
  if (dir === undefined) {
    if (defaultDir === undefined || !existsSync(defaultDir)) {
      collectStale()
      const made = realpathSync(mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`)))
      chmodSync(made, 0o755)
      defaultDir = made
      onProcessEnd(() => rmSync(made, {recursive: true, force: true}))
    }
    dir = defaultDir
  }
  const key = resolve(dir)
  const cached = cache.get(key)
  if (cached && existsSync(cached.caFile) && existsSync(cached.certFile) && existsSync(cached.keyFile)) return cached
  const ca = generate(key)
  cache.set(key, ca)
  return ca
}
