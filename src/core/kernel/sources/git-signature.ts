import {createHash} from '../crypto/node-crypto.js'
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

/** The key an SSH signature (an `SSHSIG` blob, armored) was made with, as `SHA256:<base64>`; undefined when unreadable. */
const sshSigner = (armored: string): string | undefined => {
  const blob = Buffer.from(armored.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64')
  if (blob.subarray(0, 6).toString('latin1') !== 'SSHSIG' || blob.length < 14) return undefined
  const length = blob.readUInt32BE(10)
  const key = blob.subarray(14, 14 + length)
  return key.length === length ? `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}` : undefined
}

/** The key an OpenPGP signature names (its issuer fingerprint, else its key id), read by gpg without checking it. */
const pgpSigner = async (armored: string, gnupgHome: string, path: string | undefined): Promise<string | undefined> => {
  const listed = await runGpg(gnupgHome, ['--list-packets'], armored, path).catch(() => '')
  return /issuer fpr v\d ([0-9A-F]{40,64})/.exec(listed)?.[1] ?? /keyid ([0-9A-F]{16})/.exec(listed)?.[1]
}

/**
 * Whether `tag` (pinned by a source: `ref` naming a tag, or a version range resolved to one) is
 * signed by a trusted key and names `commit`: git's own `verify-tag` judges the signature against
 * the allowed-signers file or the private keyring, and the key is read from the signature itself,
 * because git accepts an SSH signature by a key outside the allowed signers as "good, unknown key".
 * A lightweight tag, or an annotated one without a signature, is unsigned: refused (exit 7).
 */
export const verifyTagSignature = async (
  context: GitContext,
  gitDir: string,
  tag: string,
  commit: string,
  keys: readonly TrustedKey[],
  label: string,
): Promise<SignerSeen> => {
  const ref = `refs/tags/${tag}`
  const inMirror = {GIT_DIR: gitDir}
  const unsigned = (why: string) =>
    refused('unsigned-tag', `tag ${tag} of ${label} ${why}; loadout trusts only tags signed by ${shortKeys(keys)}`, keys, {tag, commit, signer: null})
  const type = (await runGit(context, gitDir, ['cat-file', '-t', ref], inMirror)).trim()
  if (type !== 'tag') throw unsigned('is a lightweight tag, which carries no signature')
  const peeled = (await runGit(context, gitDir, ['rev-parse', '--verify', `${ref}^{commit}`], inMirror)).trim()
  if (peeled !== commit)
    throw refused('tag-moved', `tag ${tag} of ${label} names commit ${peeled.slice(0, 12)}, not the ${commit.slice(0, 12)} being installed`, keys, {
      tag,
      commit,
    })
  const body = await runGit(context, gitDir, ['cat-file', 'tag', ref], inMirror)
  const block = /-----BEGIN (SSH|PGP) SIGNATURE-----[\s\S]*?-----END \1 SIGNATURE-----/.exec(body)
  if (!block) throw unsigned('is not signed')
  const folder = mkdtempSync(join(tmpdir(), 'loadout-trust-'))
  try {
    const allowedSignersFile = join(folder, 'allowed_signers')
    writeAllowedSigners(allowedSignersFile, keys)
    const gnupgHome = join(folder, 'gnupg')
    mkdirSync(gnupgHome, {mode: 0o700})
    for (const key of keys.filter((k) => k.format === 'pgp')) await runGpg(gnupgHome, ['--quiet', '--import'], key.key, context.env.vars.PATH)
    const seen = block[1] === 'SSH' ? sshSigner(block[0]) : await pgpSigner(block[0], gnupgHome, context.env.vars.PATH)
    const trusted = seen ? keys.find((k) => k.fingerprint === seen || (k.format === 'pgp' && seen.length === 16 && k.fingerprint.endsWith(seen))) : undefined
    const good = await runGit({...context, signatures: {allowedSignersFile, gnupgHome}}, gitDir, ['verify-tag', ref], inMirror).then(
      () => true,
      () => false,
    )
    // a good OpenPGP signature can only be by a key of the private keyring: a trusted one (perhaps by a subkey)
    const pgpOnly = keys.filter((k) => k.format === 'pgp')
    const signer = trusted ?? (good && block[1] === 'PGP' && pgpOnly.length === 1 ? pgpOnly[0] : undefined)
    if (good && signer) return {format: signer.format, fingerprint: signer.fingerprint}
    if (!signer || (!good && !trusted))
      throw refused(
        'untrusted-signer',
        `tag ${tag} of ${label} is signed by ${seen ?? 'an unreadable key'}, a key loadout does not trust for this source`,
        keys,
        {
          tag,
          commit,
          signer: seen ?? null,
        },
      )
    throw refused('bad-signature', `tag ${tag} of ${label} carries a bad signature (key ${seen})`, keys, {tag, commit, signer: seen})
  } finally {
    rmSync(folder, {recursive: true, force: true})
  }
}

/** The tag `ref` names in loadout's mirror of `url`, when it names one (a branch or a commit does not). */
export const mirrorTag = async (env: Environment, url: string, ref: string): Promise<string | undefined> => {
  const cache = loadoutPaths(env).cache
  const gitDir = join(gitCacheDir(cache, url), 'mirror')
  const tag = ref.replace(/^refs\/tags\//, '')
  return runGit(gitContext(env, cache, false, url), gitDir, ['rev-parse', '--verify', `refs/tags/${tag}`], {GIT_DIR: gitDir}).then(
    () => tag,
    () => undefined,
  )
}

/** The tag check on loadout's mirror of `url` (fetched already). */
export const verifyMirrorTag = (
  env: Environment,
  url: string,
  tag: string,
  commit: string,
  keys: readonly TrustedKey[],
  label: string,
): Promise<SignerSeen> => {
  const cache = loadoutPaths(env).cache
  return verifyTagSignature(gitContext(env, cache, false, url), join(gitCacheDir(cache, url), 'mirror'), tag, commit, keys, label)
}

/**
 * The check for what a source pins in loadout's mirror of `url`: the tag's signature when `ref` names a
 * tag (or `tag` is the version tag a range resolved to), else the commit's.
 */
export const verifyMirrorPin = async (
  env: Environment,
  at: {url: string; commit: string; ref?: string | undefined; tag?: string | undefined},
  keys: readonly TrustedKey[],
  label: string,
): Promise<SignerSeen> => {
  const tag = at.tag ?? (at.ref ? await mirrorTag(env, at.url, at.ref) : undefined)
  return tag ? verifyMirrorTag(env, at.url, tag, at.commit, keys, label) : verifyMirrorCommit(env, at.url, at.commit, keys, label)
}
