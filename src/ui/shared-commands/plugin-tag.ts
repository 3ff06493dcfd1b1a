import {resolve} from 'node:path'
import {tagPlugin, type TagResult} from '../../core/ops/authoring/plugin-tag.js'
import {DRY_RUN_FLAG} from '../command-spec.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {'dry-run': DRY_RUN_FLAG},
  args: {name: 'path', description: 'the plugin folder (default: .)'},
} as const

/** `loadout plugin tag [path]`: tags the current commit as {name}--v{version}. */
export const pluginTag = sharedCommand(spec, async ({flags, argv}, io): Promise<TagResult> => {
  const result = await tagPlugin(resolve(io.env.cwd, argv[0] ?? '.'), {env: io.env, dryRun: flags['dry-run'] === true})
  io.log(`${result.dryRun ? 'would tag' : 'tagged'} ${result.commit.slice(0, 12)} as ${result.tag}; publish it with: git push origin ${result.tag}`)
  return result
})
