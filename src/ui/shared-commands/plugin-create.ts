import {createPlugin, PLUGIN_FORMATS, PLUGIN_PARTS, type CreatedPlugin} from '../../core/ops/authoring/plugin-create.js'
import {splitList} from '../../core/kernel/targets/registry.js'
import {DRY_RUN_FLAG} from '../command-spec.js'
import {askText} from '../prompt.js'
import {renderPluginCreated} from '../render/plugin.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    with: {type: 'string', description: `parts to include, comma-separated: ${PLUGIN_PARTS.join(', ')} (default: skills)`, helpValue: 'skills,agents'},
    format: {
      type: 'string',
      description: `manifest formats, comma-separated: ${PLUGIN_FORMATS.join(', ')} or all (default: claude)`,
      helpValue: `${PLUGIN_FORMATS.join('|')}|all`,
    },
    description: {type: 'string', char: 'd', description: 'what the plugin does (up to 1024 characters)'},
    author: {type: 'string', description: 'author as "Name <email>" (default: git config user.name and user.email)'},
    dir: {type: 'string', description: 'the folder to create (default: ./<name>)', helpValue: 'path'},
    git: {type: 'boolean', description: 'run git init in the new folder (--no-git to skip)', default: true, allowNo: true},
    force: {type: 'boolean', char: 'f', description: 'replace an existing folder'},
    'dry-run': DRY_RUN_FLAG,
  },
  args: {name: 'name', description: 'plugin name: kebab-case (lowercase words joined by "-")', required: true},
} as const

/** `loadout plugin create <name>`: asks for a description on a terminal when none was given. */
export const pluginCreate = sharedCommand(spec, async ({flags, argv}, io): Promise<CreatedPlugin> => {
  const name = argv[0]!
  let {description} = flags
  if (description === undefined && io.env.interactive && !io.json) {
    description = await askText('Description (what the plugin does):', `Describe what ${name} does and when to use it.`)
  }
  const created = await createPlugin({
    name,
    parts: splitList(flags.with),
    formats: splitList(flags.format),
    ...(description === undefined ? {} : {description}),
    ...(flags.author === undefined ? {} : {author: flags.author}),
    ...(flags.dir === undefined ? {} : {dir: flags.dir}),
    env: io.env,
    git: flags.git !== false,
    force: flags.force === true,
    dryRun: flags['dry-run'] === true,
  })
  io.log(renderPluginCreated(created))
  return created
})
