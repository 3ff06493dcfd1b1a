import {notFound, usageError} from '../../model/errors.js'
import {PART_KINDS, type DisabledParts, type PartKind, type PluginModel} from '../../model/plugin.js'

/** The names of one kind of part a plugin has: skills, subagents, commands and MCP servers by name, hooks by event. */
export const partNames = (model: PluginModel, kind: PartKind): string[] => {
  switch (kind) {
    case 'skills':
      return model.skills.map((s) => s.name)
    case 'subagents':
      return model.subagents.map((s) => s.name)
    case 'commands':
      return model.commands.map((c) => c.name)
    case 'mcp':
      return model.mcpServers.map((m) => m.name)
    case 'hooks':
      return [...new Set(model.hooks.flatMap((h) => Object.keys(h.events)))]
    default: {
      const never: never = kind
      return never
    }
  }
}

const sorted = (names: Iterable<string>): string[] => [...new Set(names)].sort((a, b) => a.localeCompare(b))

/** The same parts with empty kinds left out, names sorted: what records and loadout.json hold. */
export const normalParts = (parts: DisabledParts | undefined): DisabledParts => {
  const out: DisabledParts = {}
  for (const kind of PART_KINDS) {
    const names = parts?.[kind]
    if (names && names.length > 0) out[kind] = sorted(names)
  }
  return out
}

/** Disabled parts as read from a record or loadout.json (untrusted): only lists of strings are kept. */
export const readParts = (value: unknown): DisabledParts => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {}
  const data = value as Record<string, unknown>
  const out: DisabledParts = {}
  for (const kind of PART_KINDS) {
    const names = data[kind]
    if (Array.isArray(names)) out[kind] = names.filter((n): n is string => typeof n === 'string' && n.length > 0 && n.length <= 200)
  }
  return normalParts(out)
}

export const noParts = (parts: DisabledParts | undefined): boolean => PART_KINDS.every((k) => (parts?.[k]?.length ?? 0) === 0)

export const addParts = (a: DisabledParts | undefined, b: DisabledParts): DisabledParts =>
  normalParts(Object.fromEntries(PART_KINDS.map((k) => [k, [...(a?.[k] ?? []), ...(b[k] ?? [])]])))

export const removeParts = (a: DisabledParts | undefined, b: DisabledParts): DisabledParts =>
  normalParts(Object.fromEntries(PART_KINDS.map((k) => [k, (a?.[k] ?? []).filter((n) => !(b[k] ?? []).includes(n))])))

/** What every one of these sets turns off. */
export const commonParts = (sets: readonly DisabledParts[]): DisabledParts => {
  if (sets.length === 0) return {}
  return normalParts(Object.fromEntries(PART_KINDS.map((k) => [k, (sets[0]![k] ?? []).filter((n) => sets.every((s) => (s[k] ?? []).includes(n)))])))
}

/** Whether these parts turn off the part of this kind and name (a hook by its event). */
export const partOff = (parts: DisabledParts | undefined, kind: PartKind, name: string): boolean => (parts?.[kind] ?? []).includes(name)

/** The plugin as installed with these parts off: the rest is what is planned, written and shown for consent. */
export const withoutParts = (model: PluginModel, parts: DisabledParts | undefined): PluginModel => {
  if (noParts(parts)) return model
  const off = (kind: PartKind, name: string) => partOff(parts, kind, name)
  const hooks = model.hooks
    .map((h) => ({...h, events: Object.fromEntries(Object.entries(h.events).filter(([event]) => !off('hooks', event)))}))
    .filter((h) => Object.keys(h.events).length > 0)
  return {
    ...model,
    skills: model.skills.filter((s) => !off('skills', s.name)),
    subagents: model.subagents.filter((s) => !off('subagents', s.name)),
    commands: model.commands.filter((c) => !off('commands', c.name)),
    mcpServers: model.mcpServers.filter((m) => !off('mcp', m.name)),
    hooks,
  }
}

const FLAG_OF: Record<PartKind, string> = {skills: '--skill', subagents: '--agent-part', commands: '--command', mcp: '--mcp', hooks: '--hook'}

/** Every named part must be one the plugin has: a typo would otherwise be remembered and do nothing. */
export const assertPartsExist = (model: PluginModel, id: string, parts: DisabledParts): void => {
  for (const kind of PART_KINDS) {
    const has = partNames(model, kind)
    for (const name of parts[kind] ?? []) {
      if (!has.includes(name))
        throw notFound('part-not-in-plugin', `${id} has no ${FLAG_OF[kind].slice(2)} "${name}" (it has ${has.join(', ') || 'none'})`, {
          suggestions: [`see its parts: loadout list --json`],
        })
    }
  }
}

/** Turning every part off is disabling the plugin: said so rather than installing nothing. */
export const assertSomethingLeft = (model: PluginModel, id: string, parts: DisabledParts): void => {
  const left = withoutParts(model, parts)
  if (left.skills.length + left.subagents.length + left.commands.length + left.mcpServers.length + left.hooks.length + left.tools.length > 0) return
  throw usageError('no-part-left', `that would turn off every part of ${id}`, {suggestions: [`disable the whole plugin: loadout disable ${id}`]})
}

/** One line per kind, for people: `skills: a, b; hooks: Stop`. */
export const describeParts = (parts: DisabledParts | undefined): string =>
  PART_KINDS.filter((k) => (parts?.[k]?.length ?? 0) > 0)
    .map((k) => `${k} ${parts![k]!.join(', ')}`)
    .join('; ')
