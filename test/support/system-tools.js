// The system programs the signing tests drive: gpg (and gpgconf) from GnuPG, ssh-keygen from
// OpenSSH, openssl for the test Sigstore's certificates. Debian packages them as gnupg,
// openssh-client and openssl; a missing one is installed with apt-get
// (through sudo when not root), so that `npm test` passes on a fresh machine by itself.
//
//   node test/support/system-tools.js     install the missing ones (npm test's pretest step, .ci/run)
//
// Plain ESM with no dependencies, so it runs before (and without) a build.
import {spawnSync} from 'node:child_process'
import {pathToFileURL} from 'node:url'

/** program -> the Debian package that provides it */
const SYSTEM_TOOLS = {gpg: 'gnupg', gpgconf: 'gnupg', 'ssh-keygen': 'openssh-client', openssl: 'openssl'}

const found = (program) => spawnSync('sh', ['-c', `command -v ${program}`], {stdio: 'ignore'}).status === 0

/** The Debian packages still missing (one per package). */
const missingPackages = () => [
  ...new Set(
    Object.entries(SYSTEM_TOOLS)
      .filter(([program]) => !found(program))
      .map(([, pkg]) => pkg),
  ),
]

const install = (packages) => {
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  for (const args of [
    ['update', '-q'],
    ['install', '-y', '-q', '--no-install-recommends', ...packages],
  ]) {
    const [command, argv] = root ? ['apt-get', args] : ['sudo', ['-n', 'apt-get', ...args]]
    const result = spawnSync(command, argv, {stdio: ['ignore', 'ignore', 'inherit'], env: {...process.env, DEBIAN_FRONTEND: 'noninteractive'}})
    if (result.status !== 0) throw new Error(`could not install ${packages.join(', ')} (apt-get ${args[0]} failed); install them by hand`)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const missing = missingPackages()
  if (missing.length > 0) {
    process.stderr.write(`installing ${missing.join(', ')} for the signing tests\n`)
    install(missing)
  }
}
