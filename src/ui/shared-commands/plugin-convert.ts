import {convertPlugin, CONVERT_FORMATS, type PluginConversion} from '../../core/ops/authoring/convert.js'
import {DRY_RUN_FLAG} from '../command-spec.js'
import {renderPluginConversion} from '../render/plugin-convert.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    to: {type: 'string', description: 'the format to write (required)', options: CONVERT_FORMATS},
    out: {type: 'string', description: 'copy the plugin to this folder and convert the copy (default: write into the plugin folder)', helpValue: 'dir'},
    force: {type: 'boolean', char: 'f', description: 'replace a manifest of that format, or a non-empty --out'},
    'dry-run': DRY_RUN_FLAG,
  },
  args: {name: 'path', description: 'the plugin folder', required: true},
} as const

/** `loadout plugin convert <path> --to <format>`: writes the manifest another agent needs. */
export const pluginConvert = sharedCommand(spec, async ({flags, argv}, io): Promise<PluginConversion> => {
  const converted = await convertPlugin({
    path: argv[0]!,
    ...(flags.to === undefined ? {} : {to: flags.to}),
    ...(flags.out === undefined ? {} : {out: flags.out}),
    force: flags.force === true,
    dryRun: flags['dry-run'] === true,
    env: io.env,
  })
  io.log(renderPluginConversion(converted))
  return converted
})
