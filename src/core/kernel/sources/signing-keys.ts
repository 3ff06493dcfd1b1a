import {execFile} from 'node:child_process'
import {createHash} from '../crypto/node-crypto.js'
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {EXIT, LoadoutError, usageError} from '../../model/errors.js'
import type {TrustedKey} from '../../model/signing.js'

/**
 * The public keys a user trusts to sign a source: an SSH public key line (`ssh-ed25519 AAAA… comment`,
 * as in `~/.ssh/id_ed25519.pub`) or an armored OpenPGP public key. Each is read from untrusted text:
 * bounded, one key per file, and its fingerprint computed here (SSH) or by a private gpg keyring
 * (OpenPGP), never taken from the text.
 */

const MAX_KEY_BYTES = 64 * 1024
const SSH_TYPES = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)$/
const PGP_BLOCK = /-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]+?-----END PGP PUBLIC KEY BLOCK-----/

const badKey = (label: string, why: string) =>
  usageError('bad-signing-key', `${label} is not a public key loadout can check signatures with: ${why}`, {
    suggestions: ['give an SSH public key (the .pub file, one line) or an armored OpenPGP public key (gpg --armor --export <id>)'],
  })

/** The SHA256 fingerprint of an SSH public key line, as `ssh-keygen -l` prints it; undefined when it is no such line. */
const sshKey = (text: string, label: string): TrustedKey | undefined => {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
  if (lines.length === 0 || !SSH_TYPES.test(lines[0]!.trim().split(/\s+/)[0] ?? '')) return undefined
  if (lines.length > 1) throw badKey(label, 'it holds more than one line; give one key per file')
  const [type, blob] = lines[0]!.trim().split(/\s+/) as [string, string | undefined]
  if (!blob || !/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) throw badKey(label, 'the key is not base64')
  const bytes = Buffer.from(blob, 'base64')
  // the blob starts with its own type, length-prefixed: a key line whose two halves disagree is refused
  const length = bytes.length >= 4 ? bytes.readUInt32BE(0) : -1
  if (length < 0 || bytes.subarray(4, 4 + length).toString('latin1') !== type) throw badKey(label, `the key's data is not a ${type} key`)
  const fingerprint = `SHA256:${createHash('sha256').update(bytes).digest('base64').replace(/=+$/, '')}`
  return {format: 'ssh', fingerprint, key: `${type} ${blob}`}
}

/** What loadout runs gpg with: its own keyring folder, no agent, nothing from the user's environment but PATH. */
const gpgEnv = (home: string, path: string | undefined): NodeJS.ProcessEnv => ({PATH: path ?? '/usr/bin:/bin', GNUPGHOME: home, LC_ALL: 'C'})

/** Runs gpg in batch mode against `home`, feeding `input`; resolves its stdout. */
export const runGpg = (home: string, args: readonly string[], input: string, path: string | undefined): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = execFile(
      'gpg',
      ['--batch', '--no-tty', '--no-autostart', '--no-options', ...args],
      {env: gpgEnv(home, path), timeout: 60_000, maxBuffer: 4 * 1024 * 1024},
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout)
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          return reject(
            new LoadoutError('gpg-missing', EXIT.unexpected, 'checking OpenPGP signatures needs gpg, which is not on PATH', {
              suggestions: ['install GnuPG (Debian and Ubuntu: apt-get install gnupg)'],
            }),
          )
        reject(new Error(String(stderr).trim() || error.message))
      },
    )
    child.stdin?.end(input)
  })

/** A private, empty gpg home in a folder of loadout's own (0700), removed by `dispose`. */
export const privateGpgHome = (): {home: string; dispose: () => void} => {
  const home = mkdtempSync(join(tmpdir(), 'loadout-gpg-'))
  return {home, dispose: () => rmSync(home, {recursive: true, force: true})}
}

const pgpKey = async (text: string, label: string, path: string | undefined): Promise<TrustedKey | undefined> => {
  const block = PGP_BLOCK.exec(text)?.[0]
  if (!block) return undefined
  const {home, dispose} = privateGpgHome()
  try {
    let listing: string
    try {
      listing = await runGpg(home, ['--with-colons', '--import-options', 'show-only', '--import'], block, path)
    } catch (error) {
      if (error instanceof LoadoutError) throw error
      throw badKey(label, `gpg cannot read it (${(error as Error).message.split('\n')[0]})`)
    }
    const records = listing.split('\n').map((l) => l.split(':'))
    const primaries = records.filter((r) => r[0] === 'pub')
    if (primaries.length !== 1) throw badKey(label, primaries.length === 0 ? 'it holds no public key' : 'it holds more than one key; give one key per file')
    // the fpr record right after `pub` is the primary key's
    const at = records.findIndex((r) => r[0] === 'pub')
    const fingerprint = records[at + 1]?.[0] === 'fpr' ? records[at + 1]![9] : undefined
    if (!fingerprint || !/^[0-9A-F]{40,64}$/.test(fingerprint)) throw badKey(label, 'gpg gave no fingerprint for it')
    return {format: 'pgp', fingerprint, key: block}
  } finally {
    dispose()
  }
}

/** Reads one trusted key from its text (`label` names where it came from, for messages). */
export const parseTrustedKey = async (text: string, label: string, path?: string): Promise<TrustedKey> => {
  if (Buffer.byteLength(text) > MAX_KEY_BYTES) throw badKey(label, `it is larger than ${MAX_KEY_BYTES / 1024} KiB`)
  const key = sshKey(text, label) ?? (await pgpKey(text, label, path))
  if (!key) throw badKey(label, 'it is neither an SSH public key line nor an armored OpenPGP public key block')
  return key
}

/** Whether a declared value is a key's text rather than the path of a file holding one. */
export const isKeyText = (value: string): boolean => PGP_BLOCK.test(value) || SSH_TYPES.test(value.trim().split(/\s+/)[0] ?? '')

/** Reads a key file the user named: a regular file, bounded. */
export const readKeyFile = (file: string, label = file): string => {
  let size: number
  try {
    const stat = statSync(file)
    if (!stat.isFile()) throw badKey(label, 'it is not a file')
    size = stat.size
  } catch (error) {
    if (error instanceof LoadoutError) throw error
    throw new LoadoutError('signing-key-not-found', EXIT.notFound, `the key file ${label} does not exist`)
  }
  if (size > MAX_KEY_BYTES) throw badKey(label, `it is larger than ${MAX_KEY_BYTES / 1024} KiB`)
  return readFileSync(file, 'utf8')
}

/** Writes git's allowed-signers file for the SSH keys among `keys`; returns whether it wrote any. */
export const writeAllowedSigners = (file: string, keys: readonly TrustedKey[]): boolean => {
  const lines = keys.filter((k) => k.format === 'ssh').map((k) => `loadout-trusted ${k.key}\n`)
  writeFileSync(file, lines.join(''), {mode: 0o600})
  return lines.length > 0
}
