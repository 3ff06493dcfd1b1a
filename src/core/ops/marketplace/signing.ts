import {isAbsolute, relative, resolve, sep} from 'node:path'
import {usageError} from '../../model/errors.js'
import type {SigstoreIdentity, TrustedKey} from '../../model/signing.js'
import {parseIdentity} from '../../kernel/sources/sigstore.js'
import type {Source} from '../../model/source.js'
import {isInside, resolvesInside} from '../../kernel/fs/contain.js'
import {isKeyText, parseTrustedKey, readKeyFile} from '../../kernel/sources/signing-keys.js'
import {hasCommits} from '../../kernel/sources/signable.js'

export interface DeclaredKeys {
  keys: TrustedKey[]
  /** how loadout.json declares them: a project-relative path for a key file inside the project, else the key's text */
  portable: string[]
}

/**
 * The keys `--signed-by` names: files, read relative to `cwd`. In a project, a file inside it is
 * declared by its project-relative path (`./keys/alice.pub`), any other by its text, so loadout.json
 * never names a path of one machine.
 */
export const keysFromFiles = async (files: readonly string[], cwd: string, project: string | undefined, path: string | undefined): Promise<DeclaredKeys> => {
  const keys: TrustedKey[] = []
  const portable: string[] = []
  for (const file of files) {
    const absolute = resolve(cwd, file)
    const key = await parseTrustedKey(readKeyFile(absolute, file), file, path)
    if (keys.some((k) => k.fingerprint === key.fingerprint)) continue
    keys.push(key)
    portable.push(project && isInside(project, absolute) ? `./${relative(project, absolute).split(sep).join('/')}` : key.key)
  }
  return {keys, portable}
}

/**
 * The keys loadout.json declares for a marketplace (untrusted: it came with the clone): each a key's
 * text, or a relative path to a key file inside the project.
 */
export const keysFromDeclaration = async (values: unknown, project: string, path: string | undefined): Promise<DeclaredKeys> => {
  if (values === undefined) return {keys: [], portable: []}
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string'))
    throw usageError('bad-signed-by', 'loadout.json: signedBy must be a list of key texts or project-relative key files')
  const keys: TrustedKey[] = []
  for (const value of values as string[]) {
    if (isKeyText(value)) {
      keys.push(await parseTrustedKey(value, 'a key in loadout.json', path))
      continue
    }
    const file = resolve(project, value)
    if (isAbsolute(value) || !resolvesInside(project, file))
      throw usageError('signing-key-outside', `loadout.json: the key file ${value} is not a relative path inside the project`)
    keys.push(await parseTrustedKey(readKeyFile(file, value), value, path))
  }
  return {keys, portable: values as string[]}
}

/** `--signed-by-identity <issuer>=<subject>` values (or loadout.json's signedByIdentity, untrusted). */
export const identitiesFrom = (values: unknown): SigstoreIdentity[] => {
  if (values === undefined) return []
  if (!Array.isArray(values)) throw usageError('bad-signed-by-identity', 'signedByIdentity must be a list of <issuer>=<subject>')
  return values.map((value) => {
    const identity = typeof value === 'string' ? parseIdentity(value) : undefined
    if (!identity)
      throw usageError('bad-signed-by-identity', `${JSON.stringify(value)} is not <issuer>=<subject>`, {
        suggestions: ['for example: https://token.actions.githubusercontent.com=https://github.com/acme/tools/.github/workflows/release.yml@refs/tags/v1'],
      })
    return identity
  })
}

/** Only a git source has commits to check; the others are refused up front rather than taken unchecked. */
export const refuseUnsignable = (source: Source, keys: readonly TrustedKey[]): void => {
  if (keys.length === 0 || hasCommits(source)) return
  throw usageError('not-signable', `--signed-by checks git commits, and this marketplace is a ${source.kind} source`, {
    suggestions: ['add the marketplace from its git repository to check who signed it'],
  })
}
