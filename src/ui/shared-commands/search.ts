import {searchPlugins, type SearchResult} from '../../core/kernel/marketplace/search.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {renderSearch} from '../render/marketplace.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    marketplace: {type: 'string', char: 'm', description: 'search only this marketplace'},
    category: {type: 'string', char: 'c', description: 'only plugins of this category'},
  },
  args: {name: 'query', description: 'words to look for (all must match)', variadic: true},
} as const

export const search = sharedCommand(spec, async ({flags, argv}, io): Promise<SearchResult> => {
  const result = await searchPlugins(argv.join(' '), io.env, resolveScope(undefined, io.env), {
    ...(flags.marketplace ? {marketplace: flags.marketplace} : {}),
    ...(flags.category ? {category: flags.category} : {}),
  })
  if (!io.json) io.log(renderSearch(result))
  return result
})
