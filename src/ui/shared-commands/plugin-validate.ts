import {resolve} from 'node:path'
import type {PluginValidation} from '../../core/ops/authoring/plugin-validate.js'
import {validatePlugins, type PluginsValidation} from '../../core/ops/authoring/plugin-validate-many.js'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {STRICT_FLAG} from '../command-spec.js'
import {renderPluginValidation} from '../render/plugin.js'
import {writeStderr} from '../safe-text.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    strict: STRICT_FLAG,
    fix: {
      type: 'boolean',
      description: 'repair what is mechanical (a missing "./", "." to "./", a trailing "/" on a file, name case, a byte-order mark) and say what changed',
    },
  },
  args: {name: 'path', description: 'plugin folders, or folders of plugins (default: .)', variadic: true},
} as const

/** `loadout plugin validate [paths...]`: the exit status says whether every plugin passes. */
export const pluginValidate = sharedCommand(spec, async ({flags, argv}, io): Promise<PluginValidation | PluginsValidation> => {
  const paths = argv.length > 0 ? argv : ['.']
  const all = await validatePlugins(
    paths.map((p) => resolve(io.env.cwd, p)),
    {strict: flags.strict === true, fix: flags.fix === true, home: io.env.home},
  )
  // One plugin keeps its own result shape; several come as a list.
  const result: PluginValidation | PluginsValidation = all.plugins.length === 1 ? all.plugins[0]! : all
  const rendered = all.plugins.map(renderPluginValidation).join('\n\n')
  if (!all.valid) {
    if (!io.json) writeStderr(rendered)
    const failed = all.plugins.filter((p) => !p.valid)
    const counted = `${all.errors} error(s)${flags.strict ? `, ${all.warnings} warning(s) (strict)` : ''}`
    const what =
      failed.length === 1 ? `plugin "${failed[0]!.name}" at ${failed[0]!.path} is invalid` : `${failed.length} of ${all.plugins.length} plugins are invalid`
    throw new LoadoutError('validation-failed', EXIT.validation, `${what}: ${counted}`, {
      details: result,
      suggestions: ['fix the problems listed above, then run this again', ...(flags.fix ? [] : ['`--fix` repairs the mechanical ones'])],
    })
  }
  io.log(all.plugins.length === 1 ? rendered : `${rendered}\n${all.plugins.length} plugins valid`)
  return result
})
