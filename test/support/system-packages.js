// Debian packages the tests run (npm test's pretest step, after vendor-clis.js, and .ci/run):
// the CNCF distribution registry (`docker-registry`, test/support/oci-registry.ts) and `htpasswd`
// (apache2-utils) to write its bcrypt password file; gpg and gpgconf (gnupg), ssh-keygen
// (openssh-client) and openssl for the signing tests (signed-sources, sigstore-archive). Installed with apt-get when a command is
// missing; a machine where that cannot be done fails here, loudly, instead of in the middle of a test.
//
//   node test/support/system-packages.js
//
// Plain ESM with no dependencies, so it runs before (and without) a build.
import {spawnSync} from 'node:child_process'
import {pathToFileURL} from 'node:url'

/** Each command a test runs, and the Debian package that brings it. */
export const SYSTEM_COMMANDS = {
  'docker-registry': 'docker-registry',
  htpasswd: 'apache2-utils',
  gpg: 'gnupg',
  gpgconf: 'gnupg',
  'ssh-keygen': 'openssh-client',
  openssl: 'openssl',
}

const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], {stdio: 'ignore'}).status === 0

const run = (argv) => {
  const asRoot = process.getuid?.() === 0 ? argv : ['sudo', '-n', ...argv]
  const out = spawnSync(asRoot[0], asRoot.slice(1), {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {...process.env, DEBIAN_FRONTEND: 'noninteractive'},
    timeout: 900_000,
  })
  if (out.status !== 0) throw new Error(`${asRoot.join(' ')} failed: ${out.stderr?.toString().trim() || out.error?.message || `exit ${out.status}`}`)
}

/** Installs the packages of the missing commands; throws when apt-get cannot. Returns what it installed. */
export const installSystemPackages = (log = () => {}) => {
  const missing = [
    ...new Set(
      Object.entries(SYSTEM_COMMANDS)
        .filter(([command]) => !onPath(command))
        .map(([, pkg]) => pkg),
    ),
  ]
  if (missing.length === 0) return []
  if (!onPath('apt-get')) throw new Error(`${missing.join(', ')} must be installed, and this machine has no apt-get: install them by hand`)
  log(`installing ${missing.join(' ')} with apt-get (once)`)
  run(['apt-get', 'update', '-qq'])
  run(['apt-get', 'install', '-y', '-qq', ...missing])
  const still = Object.keys(SYSTEM_COMMANDS).filter((command) => !onPath(command))
  if (still.length > 0) throw new Error(`after apt-get install, still missing: ${still.join(', ')}`)
  return missing
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    installSystemPackages((line) => process.stderr.write(`system-packages: ${line}\n`))
  } catch (error) {
    process.stderr.write(`system-packages: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
}
