import {statSync} from 'node:fs'
import {dirname, resolve} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {usageError} from '../../model/errors.js'
import {writeFileAtomic} from '../../kernel/fs/write.js'
import type {Scope} from '../../kernel/env/scope.js'
import {cycloneDxBom} from './cyclonedx.js'
import {installedInventory} from './inventory.js'
import {spdxDocument} from './spdx.js'

export type SbomFormat = 'cyclonedx' | 'spdx'
export const SBOM_FORMATS: readonly SbomFormat[] = ['cyclonedx', 'spdx']

export interface SbomResult {
  format: SbomFormat
  scopes: Scope[]
  plugins: number
  files: number
  /** the file written, when --out was given */
  out?: string
  document: unknown
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** An inventory of what is installed, as CycloneDX 1.6 or SPDX 2.3 JSON; written to `out` when given. */
export const buildSbom = (env: Environment, projectRoot: string, options: {format: SbomFormat; scope?: Scope; out?: string; now?: Date}): SbomResult => {
  const inventory = installedInventory(env, projectRoot, options.scope)
  const document = options.format === 'cyclonedx' ? cycloneDxBom(inventory, options.now) : spdxDocument(inventory, options.now)
  const out = options.out === undefined ? undefined : resolve(env.cwd, options.out)
  if (out && !isDirectory(dirname(out)))
    throw usageError('out-folder-missing', `cannot write ${out}: ${dirname(out)} is not a folder`, {
      suggestions: ['create the folder first, or leave out --out to print to stdout'],
    })
  if (out) writeFileAtomic(out, `${JSON.stringify(document, null, 2)}\n`)
  return {
    format: options.format,
    scopes: inventory.scopes,
    plugins: inventory.plugins.length,
    files: inventory.plugins.reduce((n, p) => n + p.files.length, 0),
    ...(out ? {out} : {}),
    document,
  }
}
