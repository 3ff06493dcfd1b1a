import type {Environment} from '../../kernel/env/environment.js'
import {addMarketplace} from '../marketplace/add.js'
import {readMarketplaces, readProjectManifest, visibleMarketplaces} from '../../kernel/state/marketplaces.js'
import type {ScopeContext} from '../../kernel/env/scope.js'

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
    const result = await addMarketplace({
      input: entry.source,
      name,
      ...(typeof entry.ref === 'string' ? {ref: entry.ref} : {}),
      ...(Array.isArray(entry.sparse) ? {sparse: entry.sparse} : {}),
      ...(typeof entry.autoUpdate === 'string' ? {autoUpdate: entry.autoUpdate} : {}),
      env: {...env, cwd: context.projectRoot},
      context: {scope: 'project', projectRoot: context.projectRoot},
      offline: options.offline,
      declare: false,
      ...(options.onProgress ? {onProgress: options.onProgress} : {}),
    })
    added.push({name: result.name, source: result.source, ...(result.commit ? {commit: result.commit} : {})})
  }
  return added
}
