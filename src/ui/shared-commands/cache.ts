import {cleanCache, listCache, type CacheCleaned, type CacheListing} from '../../core/ops/maintenance/cache.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {DRY_RUN_FLAG} from '../command-spec.js'
import {renderCacheClean, renderCacheList} from '../render/maintenance.js'
import {settlePending} from '../settle.js'
import {sharedCommand} from './types.js'

export const cacheList = sharedCommand({flags: {}}, async (_input, io): Promise<CacheListing> => {
  const {env} = io
  await settlePending(io)
  const listing = listCache(env, resolveScope(undefined, env))
  io.log(renderCacheList(listing))
  return listing
})

export const cacheClean = sharedCommand({flags: {'dry-run': DRY_RUN_FLAG}}, async ({flags}, io): Promise<CacheCleaned> => {
  const {env} = io
  // as oclif hands it over: undefined when not given (the result echoes dryRun only when given)
  const cleaned = await cleanCache(env, resolveScope(undefined, env), {dryRun: flags['dry-run'] as boolean})
  io.log(renderCacheClean(cleaned))
  return cleaned
})
