import type {PluginFetchSpec, Source} from '../../model/source.js'

/**
 * What each source kind offers a signature check: git sources have commits (checked against SSH or
 * OpenPGP keys), archives have bytes a Sigstore bundle can sign, npm packages have the registry's
 * own signatures. The operations ask here rather than deciding by kind themselves.
 */

/** A marketplace source whose commits can be checked against keys. */
export const hasCommits = (source: Source): boolean => source.kind === 'git' || source.kind === 'github'

/** The repository and commit a fetched plugin was read at, when it came from git. */
export const gitCommitOf = (spec: PluginFetchSpec, commit: string | undefined): {url: string; commit: string} | undefined => {
  if (!commit) return undefined
  if (spec.kind === 'git') return {url: spec.url, commit}
  if (spec.kind === 'folder' && spec.git) return {url: spec.git.url, commit}
  return undefined
}

/** Whether a plugin's source is read from git (a repository, or a folder of a git marketplace). */
export const isGitSpec = (spec: PluginFetchSpec): boolean => spec.kind === 'git' || spec.kind === 'folder'

export const isArchiveSpec = (spec: PluginFetchSpec): spec is Extract<PluginFetchSpec, {kind: 'archive'}> => spec.kind === 'archive'

export const isNpmSpec = (spec: PluginFetchSpec): boolean => spec.kind === 'npm'

/** An OCI artifact: a Sigstore bundle attached to its manifest as a referrer can sign it. */
export const isOciSpec = (spec: PluginFetchSpec): spec is Extract<PluginFetchSpec, {kind: 'oci'}> => spec.kind === 'oci'
