import type {PluginConversion} from '../../core/ops/authoring/convert.js'
import {formatName} from '../../core/kernel/plugin/manifest-formats/index.js'
import type {ComponentKind} from '../../core/model/plugin.js'
import {dim, green, red, yellow} from '../style.js'

const NOUN: Record<ComponentKind, [string, string]> = {
  skill: ['skill', 'skills'],
  subagent: ['subagent', 'subagents'],
  mcp: ['MCP server', 'MCP servers'],
  hooks: ['hook set', 'hook sets'],
  command: ['command', 'commands'],
  tool: ['exec tool', 'exec tools'],
}

const CARRIED_KIND: Record<keyof PluginConversion['carried'], ComponentKind> = {
  skills: 'skill',
  subagents: 'subagent',
  mcpServers: 'mcp',
  hooks: 'hooks',
  commands: 'command',
  tools: 'tool',
}

const counted = (kind: ComponentKind, names: readonly string[]): string => `${names.length} ${NOUN[kind][names.length === 1 ? 0 : 1]} (${names.join(', ')})`

/** What was written where, what went over, what did not (and why), and the validation verdict. */
export const renderPluginConversion = (result: PluginConversion): string => {
  const target = formatName(result.to)
  const verb = result.dryRun ? 'would write' : 'wrote'
  const how = result.manifestMode === 'replace' ? ' (replacing the old one)' : result.manifestMode === 'merge' ? ' (adding the Lexora fields)' : ''
  const lines = [`${green(verb)} the ${target} manifest ${result.manifest}${how} for plugin "${result.name}" (${result.from.join(', ')})`]
  if (result.out)
    lines.push(dim(`${result.dryRun ? 'would copy' : 'copied'} the plugin to ${result.path}${result.replacedOut ? ' (replacing that folder)' : ''}`))
  else lines.push(dim(`in ${result.path}`))
  for (const file of result.files.slice(1)) lines.push(dim(`${verb} ${file}`))

  const carried = Object.entries(result.carried)
    .filter(([, names]) => names.length > 0)
    .map(([key, names]) => counted(CARRIED_KIND[key as keyof PluginConversion['carried']], names))
  lines.push(carried.length > 0 ? `carried over: ${carried.join('; ')}` : 'carried over: nothing but the name and metadata')

  if (result.notCarried.length > 0) {
    lines.push(yellow(`cannot carry over to ${target}:`))
    for (const item of result.notCarried) lines.push(yellow(`  ${NOUN[item.kind][0]} "${item.name}"${item.part ? ` (${item.part})` : ''}: ${item.reason}`))
  }
  if (result.effects.length > 0) {
    lines.push(yellow('loadout reads the plugin differently now:'))
    for (const effect of result.effects)
      lines.push(yellow(`  ${NOUN[effect.kind][0]} "${effect.name}" ${effect.change === 'lost' ? 'is no longer read' : 'changed'}: ${effect.detail}`))
  }
  for (const note of result.notes) lines.push(yellow(`note: ${note}`))

  const v = result.validation
  const verdict = v.valid ? green('valid') : red('invalid')
  lines.push(`${verdict}: ${v.errors} error(s), ${v.warnings} warning(s)${result.dryRun ? ' (checked on a copy)' : ''}`)
  for (const p of v.problems) lines.push(dim(`  ${p.severity} ${p.code}${p.file ? ` ${p.file}` : ''}${p.path ? ` ${p.path}` : ''}: ${p.message}`))
  if (!result.dryRun) {
    lines.push('next:')
    for (const step of result.next) lines.push(`  ${step}`)
  }
  return lines.join('\n')
}
