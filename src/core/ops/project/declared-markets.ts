import {environmentWith, type Environment} from '../../kernel/env/environment.js'
import {addMarketplace} from '../marketplace/add.js'
import {readMarketplaces, readProjectManifest, visibleMarketplaces} from '../../kernel/state/marketplaces.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {parseSource} from '../../kernel/sources/parse.js'
import {kindOf} from '../../kernel/sources/kinds/index.js'
import {safeRealpath} from '../../kernel/fs/contain.js'
import {validationFailed} from '../../model/errors.js'
import {isAbsolute, relative, resolve} from 'node:path'

/**
 * A folder loadout.json declares must lie inside the project: a cloned repository cannot make this
 * machine read a folder of its owner's elsewhere (`~/work/private-market`, `../../other`).
 */
const refuseOutsideFolder = (name: string, input: string, ref: string | undefined, env: Environment, projectRoot: string): void => {
  const source = parseSource(input, {cwd: projectRoot, home: env.home})
  const folder = kindOf(source).localPath(source)
  if (folder === undefined) return
  const root = safeRealpath(projectRoot) ?? resolve(projectRoot)
  const path = safeRealpath(folder) ?? resolve(folder)
  const rel = relative(root, path)
  if (rel === '..' || rel.startsWith(`..${'/'}`) || isAbsolute(rel))
    throw validationFailed(
      'declared-marketplace-outside',
      `loadout.json declares marketplace "${name}" at ${input}, a folder outside the project (${root}); a project may declare only folders inside it`,
      {suggestions: [`if you trust it, add it yourself: loadout marketplace add ${input}${ref === undefined ? '' : ` --ref ${ref}`} --scope project`]},
    )
}

export interface RegisteredMarketplace {
  name: string
  source: string
  commit?: string
}

/**
 * The teammate's first step: every marketplace loadout.json declares that this machine does not know
 * yet in this project is registered in project scope, under the declared name. A folder is declared
 * relative to the project root and resolved against it, wherever the clone lives. loadout.json
 * itself is not rewritten.
 */
export const registerDeclaredMarketplaces = async (
  env: Environment,
  context: ScopeContext,
  options: {offline: boolean; onProgress?: (message: string) => void},
): Promise<RegisteredMarketplace[]> => {
  const declared = readProjectManifest(context.projectRoot).marketplaces ?? {}
  const known = visibleMarketplaces(readMarketplaces(env), context.projectRoot).filter((m) => m.scope === 'project')
  const added: RegisteredMarketplace[] = []
  for (const [name, entry] of Object.entries(declared).sort(([a], [b]) => a.localeCompare(b))) {
    if (known.some((m) => m.name === name) || !entry || typeof entry.source !== 'string') continue
    refuseOutsideFolder(name, entry.source, typeof entry.ref === 'string' ? entry.ref : undefined, env, context.projectRoot)
    const result = await addMarketplace({
      input: entry.source,
      name,
      ...(typeof entry.ref === 'string' ? {ref: entry.ref} : {}),
      ...(Array.isArray(entry.sparse) ? {sparse: entry.sparse} : {}),
      ...(entry.signedBy === undefined ? {} : {declaredSignedBy: entry.signedBy}),
      ...(entry.signedByIdentity === undefined ? {} : {signedByIdentity: entry.signedByIdentity}),
      ...(typeof entry.autoUpdate === 'string' ? {autoUpdate: entry.autoUpdate} : {}),
      env: environmentWith(env, {cwd: context.projectRoot}),
      context: {scope: 'project', projectRoot: context.projectRoot},
      offline: options.offline,
      declare: false,
      ...(options.onProgress ? {onProgress: options.onProgress} : {}),
    })
    added.push({name: result.name, source: result.source, ...(result.commit ? {commit: result.commit} : {})})
  }
  return added
}
