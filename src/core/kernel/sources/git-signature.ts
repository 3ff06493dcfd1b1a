import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {SignerSeen, TrustedKey} from '../../model/signing.js'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {gitCacheDir} from './git.js'
import {gitContext, runGit, type GitContext} from './git-process.js'
import {runGpg, writeAllowedSigners} from './signing-keys.js'

/**
 * Whether a commit is signed by a key the user trusts, asked of git itself: git checks the signature
 * with ssh-keygen against an allowed-signers file loadout writes from the trusted SSH keys, or with
 * gpg against a private keyring holding only the trusted OpenPGP keys (in a folder of loadout's own,
 * removed after). Only the one commit is judged, as `git verify-commit` and `git pull
 * --verify-signatures` do: a signature on the tip vouches for the tree and the history it names.
 */

const shortKeys = (keys: readonly TrustedKey[]): string => keys.map((k) => k.fingerprint).join(', ')

const refused = (code: string, message: string, keys: readonly TrustedKey[], details: Record<string, unknown>) =>
  new LoadoutError(code, EXIT.integrity, message, {
    suggestions: [
      `loadout trusts ${keys.length === 1 ? 'the key' : 'the keys'} ${shortKeys(keys)} for this source`,
      'if the publisher signs with a new key, check it with them, then add it: loadout marketplace add <source> --signed-by <key file>',
    ],
    details: {...details, trusted: keys.map((k) => k.fingerprint)},
  })

/** What git's %G? says, for messages. */
const VERDICTS: Record<string, string> = {
  B: 'a bad signature (the commit or its signature was altered)',
  X: 'a good signature that has expired',
  Y: 'a good signature by a key that has expired',
  R: 'a good signature by a revoked key',
  E: 'a signature that cannot be checked',
}

/**
 * Checks `commit` in the git folder `gitDir` (a mirror) against `keys`; returns the signer, or
 * throws exit 7 naming the commit and the key seen: unsigned, badly signed, or signed by a key not
 * among `keys`. `label` names the source in messages.
 */
export const verifyCommitSignature = async (
  context: GitContext,
  gitDir: string,
  commit: string,
  keys: readonly TrustedKey[],
  label: string,
): Promise<SignerSeen> => {
  const folder = mkdtempSync(join(tmpdir(), 'loadout-trust-'))
  try {
    const allowedSignersFile = join(folder, 'allowed_signers')
    writeAllowedSigners(allowedSignersFile, keys)
    const gnupgHome = join(folder, 'gnupg')
    const pgp = keys.filter((k) => k.format === 'pgp')
    if (pgp.length > 0) {
      mkdirSync(gnupgHome, {mode: 0o700})
      for (const key of pgp) await runGpg(gnupgHome, ['--quiet', '--import'], key.key, context.env.vars.PATH)
    }
    const out = await runGit(
      {...context, signatures: {allowedSignersFile, gnupgHome}},
      gitDir,
      ['show', '-s', '--format=%G?%x00%GF%x00%GP%x00%GK', commit, '--'],
      {
        GIT_DIR: gitDir,
      },
    )
    const [verdict = 'N', signingKey = '', primaryKey = '', keyId = ''] = out.trim().split('\0')
    const short = commit.slice(0, 12)
    if (verdict === 'N')
      throw refused('unsigned-commit', `commit ${short} of ${label} is not signed; loadout trusts only commits signed by ${shortKeys(keys)}`, keys, {
        commit,
        signer: null,
      })
    const seen = primaryKey || signingKey || keyId
    const format: SignerSeen['format'] = seen.startsWith('SHA256:') ? 'ssh' : 'pgp'
    const trusted = keys.find((k) => k.fingerprint === seen || (k.format === 'pgp' && k.fingerprint === signingKey))
    const good = verdict === 'G' || verdict === 'U'
    if (good && trusted) return {format: trusted.format, fingerprint: trusted.fingerprint}
    if (good || (verdict === 'E' && seen))
      throw refused('untrusted-signer', `commit ${short} of ${label} is signed by ${seen}, a key loadout does not trust for this source`, keys, {
        commit,
        signer: seen,
        format,
      })
    throw refused(
      'bad-signature',
      `commit ${short} of ${label} carries ${VERDICTS[verdict] ?? `a signature git judged "${verdict}"`}${seen ? ` (key ${seen})` : ''}`,
      keys,
      {
        commit,
        signer: seen || null,
      },
    )
  } finally {
    rmSync(folder, {recursive: true, force: true})
  }
}

/** The same check on loadout's mirror of `url` (fetched already): a marketplace's or a plugin's commit. */
export const verifyMirrorCommit = (env: Environment, url: string, commit: string, keys: readonly TrustedKey[], label: string): Promise<SignerSeen> => {
  const cache = loadoutPaths(env).cache
  return verifyCommitSignature(gitContext(env, cache, false, url), join(gitCacheDir(cache, url), 'mirror'), commit, keys, label)
}
