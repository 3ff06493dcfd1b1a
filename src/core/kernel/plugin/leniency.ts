/**
 * Install is as lenient as the agent that will load a part, and never less safe. The readers report
 * every rule a plugin breaks (validate shows them all as errors); this module says which of them
 * install only warns about:
 *  - conformance: the part installs as it is, the agents load it anyway (a skill name with upper-case
 *    letters, a value strict YAML rejects, a long description, a manifest path that is missing);
 *  - a part the readers already dropped, or that install drops here (an MCP server with an empty
 *    url, hooks without their list, a skill with no description): the rest of the plugin installs.
 * Everything else (paths or links out of the plugin, sizes, unreadable files, broken manifests,
 * names used twice) still refuses the plugin, and so does a plugin with nothing installable left.
 */
import {join} from 'node:path'
import {validationFailed} from '../../model/errors.js'
import {problem, type Problem} from '../../model/problems.js'
import {SKILL_FILE} from '../skills/read.js'
import {describeProblem, inspectPlugin, pluginRefused, type PluginInspection, type ReadPluginOptions} from './read.js'
import type {PluginModel} from '../../model/plugin.js'

/** Broken rules the agents load the part despite: a warning at install, an error in validate. */
export const CONFORMANCE_CODES: ReadonlySet<string> = new Set([
  'name-missing',
  'name-not-string',
  'name-empty',
  'name-too-long',
  'name-uppercase',
  'name-invalid-characters',
  'name-edge-hyphen',
  'name-double-hyphen',
  'name-folder-mismatch',
  'description-too-long',
  'compatibility-not-string',
  'compatibility-too-long',
  'license-not-string',
  'metadata-not-map',
  'metadata-value-not-string',
  'allowed-tools-invalid',
  'disable-model-invocation-not-boolean',
  'frontmatter-yaml-lenient',
  'subagent-name-invalid',
  'path-missing',
])

/** A skill with one of these cannot be loaded as one: it is skipped, the rest installs. */
export const SKILL_DROPPING_CODES: ReadonlySet<string> = new Set([
  'description-missing',
  'description-not-string',
  'description-empty',
  'frontmatter-missing',
  'frontmatter-not-at-start',
  'frontmatter-unclosed',
  'frontmatter-yaml-invalid',
  'frontmatter-empty',
  'frontmatter-not-mapping',
  'name-has-separator',
  'name-has-dotdot',
  'name-leading-dot',
])

/** Parts the readers leave out when they break these; the plugin's other parts still install. */
export const PART_DROPPING_CODES: ReadonlySet<string> = new Set([
  'mcp-url-invalid',
  'mcp-field-invalid',
  'mcp-type-invalid',
  'mcp-server-not-object',
  'mcp-server-no-transport',
  'mcp-server-ambiguous',
  'mcp-server-name-empty',
  'mcp-stdio-only',
  'mcp-config-not-object',
  'hooks-not-object',
  'hook-event-not-list',
  'hook-matcher-not-object',
  'hook-matcher-invalid',
  'hook-list-missing',
  'hook-not-object',
  'hook-type-missing',
  'hook-command-invalid',
  'hook-timeout-invalid',
  'hook-prompt-invalid',
  'command-path-invalid',
  'agent-path-invalid',
  'skill-path-invalid',
])

const lenient = (code: string): boolean => CONFORMANCE_CODES.has(code) || SKILL_DROPPING_CODES.has(code) || PART_DROPPING_CODES.has(code)

/** How many of the rules a plugin broke a refusal names before saying how many more there are. */
const NAMED_PROBLEMS = 3

/** The first broken rules, each as `code: file path: message`, and how many more. */
const firstProblems = (broken: readonly Problem[], root: string): string => {
  const lines = broken.slice(0, NAMED_PROBLEMS).map((p) => `${p.code}: ${describeProblem(p, root)}`)
  if (broken.length > NAMED_PROBLEMS) lines.push(`and ${broken.length - NAMED_PROBLEMS} more`)
  return lines.map((line) => `\n  ${line}`).join('')
}

const partCount = (model: PluginModel): number =>
  model.skills.length + model.subagents.length + model.mcpServers.length + model.hooks.length + model.commands.length + model.tools.length

/**
 * The plugin as install sees it: problems the agents tolerate become warnings, skills that cannot
 * load are left out (with a warning naming each), and the rest is refused as before.
 */
export const installView = (inspection: PluginInspection): PluginModel => {
  const {model, fatal} = inspection
  const refusing = fatal.filter((p) => !lenient(p.code))
  if (refusing.length > 0) throw pluginRefused(model, refusing)
  const notes: Problem[] = []
  const skills = model.skills.filter((skill) => {
    const file = join(skill.dir, SKILL_FILE)
    const why = model.problems.find((p) => p.file === file && p.severity === 'error' && SKILL_DROPPING_CODES.has(p.code))
    if (why) notes.push(problem('warning', 'skill-skipped', `skill "${skill.name}" is not installed: ${why.message}`, {file}))
    return !why
  })
  const problems = [...model.problems.map((p) => (p.severity === 'error' && lenient(p.code) ? {...p, severity: 'warning' as const} : p)), ...notes]
  const view: PluginModel = {...model, skills, problems}
  const errors = problems.filter((p) => p.severity === 'error')
  if (errors.length > 0) throw pluginRefused(view, errors)
  const tolerated = model.problems.some((p) => p.severity === 'error')
  if (tolerated && partCount(view) === 0) {
    throw validationFailed(
      'plugin-nothing-installable',
      `plugin "${model.name}" has nothing left to install: every part breaks a rule the agents enforce too:${firstProblems(
        model.problems.filter((p) => p.severity === 'error'),
        model.root,
      )}`,
      {
        suggestions: ['`loadout plugin validate <path>` lists every problem'],
        details: {problems},
      },
    )
  }
  return view
}

/** Reads a plugin as leniently as the agents that will load it. */
export const readForInstall = (root: string, options: ReadPluginOptions = {}): PluginModel => installView(inspectPlugin(root, options))
