import {resolve} from 'node:path'
import {PACK_FORMATS, packPlugin, type PackResult} from '../../core/ops/authoring/plugin-pack.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    format: {type: 'string', description: 'the package format', options: PACK_FORMATS, required: true},
    out: {type: 'string', description: 'folder to write the archive to (default: the current folder)'},
  },
  args: {name: 'path', description: 'the plugin folder (default: .)'},
} as const

/** `loadout plugin pack [path] --format <format>`: the package archive of a plugin. */
export const pluginPack = sharedCommand(spec, async ({flags, argv}, io): Promise<PackResult> => {
  const {env} = io
  const result = await packPlugin(resolve(env.cwd, argv[0] ?? '.'), {format: flags.format!, outDir: resolve(env.cwd, flags.out ?? '.'), home: env.home})
  io.log(`packed ${result.plugin}: ${result.archive} (${result.files} file(s), sha256 ${result.sha256.slice(0, 16)}…)`)
  return result
})
