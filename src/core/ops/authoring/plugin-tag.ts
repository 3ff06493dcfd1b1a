/**
 * `loadout plugin tag`: the `{name}--v{version}` tag a marketplace repository carries for each
 * released version of a plugin, so that `plugin@marketplace@<range>` and dependency ranges can find
 * it. Made from the manifest's name and version, on a clean tree only, never moved once made.
 */
import {existsSync, statSync} from 'node:fs'
import {relative} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, notFound, validationFailed} from '../../model/errors.js'
import {localGitContext, runGit} from '../../kernel/sources/git-process.js'
import {readPlugin} from '../../kernel/plugin/read.js'
import {tagName} from '../../kernel/resolve/tags.js'

export interface TagResult {
  plugin: string
  version: string
  tag: string
  commit: string
  repository: string
  dryRun: boolean
}

export const tagPlugin = async (path: string, options: {env: Environment; dryRun: boolean}): Promise<TagResult> => {
  if (!existsSync(path) || !statSync(path).isDirectory()) throw notFound('plugin-folder-missing', `${path} is not a folder`)
  const model = readPlugin(path, {home: options.env.home})
  if (!model.version)
    throw validationFailed('plugin-no-version', `plugin "${model.name}" has no version in its manifest; set "version" in .claude-plugin/plugin.json`)
  const semver = (await import('semver')).default
  const version = semver.valid(model.version)
  if (!version) throw validationFailed('plugin-bad-version', `plugin "${model.name}" has version "${model.version}", which is not a semver version (1.2.3)`)
  const context = localGitContext(options.env)
  let top: string
  try {
    top = (await runGit(context, path, ['rev-parse', '--show-toplevel'])).trim()
  } catch {
    throw notFound('not-a-repository', `${path} is not inside a git repository; tags live in the marketplace repository`)
  }
  // --branch: a first line that is always there (a clean tree would print nothing, which simple-git waits 50 ms on)
  const dirty = (await runGit(context, top, ['status', '--porcelain', '--branch', '--untracked-files=normal']))
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('## '))
    .join('\n')
  if (dirty) {
    throw conflict('tree-dirty', `${top} has uncommitted changes; a tag must name exactly what was released`, {
      suggestions: ['commit or stash them, then tag again'],
      details: {changes: dirty.split('\n').slice(0, 20)},
    })
  }
  const tag = tagName(model.name, version)
  const exists = await runGit(context, top, ['rev-parse', '--verify', `refs/tags/${tag}`]).then(
    (out) => out.trim() !== '',
    () => false,
  )
  if (exists)
    throw conflict('tag-exists', `tag ${tag} already exists: a released version is never moved`, {
      suggestions: [`bump "version" in ${model.name}'s manifest, commit, and tag again`],
    })
  const commit = (await runGit(context, top, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim()
  if (!options.dryRun) await runGit(context, top, ['tag', '--', tag, commit])
  return {plugin: model.name, version, tag, commit, repository: relative(options.env.cwd, top) || '.', dryRun: options.dryRun}
}
