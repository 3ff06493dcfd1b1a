/**
 * Hook sets: converting a plugin's Claude-style hooks into a target's *shape*
 * (registry/agents/*.json `hooks.shape`), and merging them into / removing them from the value under
 * the target config's `hooks` key so that an uninstall gives back exactly what was there.
 */
import {validationFailed} from '../../model/errors.js'
import type {HookEvents, HookMatcher} from '../../model/plugin.js'
import type {HooksSection} from '../targets/types.js'
import {jsonEqual} from '../json/equal.js'

export type HooksShape = HooksSection['shape']

/** The value to merge under the target's hooks key, and what changed on the way; or why it cannot be. */
export type HooksResult = {value: HookEvents; notes: string[]} | {unsupported: string}

const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  // defineProperty, so a JSON key named `__proto__` stays an own key instead of a prototype
  Object.defineProperty(target, key, {value, enumerable: true, writable: true, configurable: true})
}

/** A deep copy of a JSON value (what a config file holds). */
const clone = <T>(value: T): T => {
  if (Array.isArray(value)) return value.map((item) => clone(item)) as T
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) setOwn(out, key, clone(item))
    return out as T
  }
  return value
}

/**
 * Codex reads hooks.json in Claude's own layout (event -> matcher groups -> command handlers, timeout
 * in seconds) with Claude's event names, but only these events (Codex hooks documentation).
 */
/** The hook events Codex fires. */
export const CODEX_EVENTS = new Set(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop'])

/** Tool names a Codex tool-event matcher can meet: its shell and patch tools, and MCP tools. */
const CODEX_TOOL_EVENTS = new Set(['PreToolUse', 'PermissionRequest', 'PostToolUse'])

/**
 * Claude event -> Gemini CLI event, as Gemini CLI's own `gemini hooks migrate --from-claude` maps them.
 * Left out on purpose: `SubagentStop` (that tool maps it to `AfterAgent`, which fires when the main
 * agent finishes, so the hook would run at the wrong time) and every event Gemini has no counterpart
 * for (`PermissionRequest`, `SubagentStart`, ...): a set holding one of them is unsupported as a whole.
 */
const GEMINI_EVENTS: Record<string, string> = {
  PreToolUse: 'BeforeTool',
  PostToolUse: 'AfterTool',
  UserPromptSubmit: 'BeforeAgent',
  Stop: 'AfterAgent',
  SessionStart: 'SessionStart',
  SessionEnd: 'SessionEnd',
  PreCompact: 'PreCompress',
  Notification: 'Notification',
}

/** Claude tool name -> Gemini CLI tool name, for tool-event matchers (same source as above). */
const GEMINI_TOOLS: Record<string, string> = {
  Edit: 'replace',
  Bash: 'run_shell_command',
  Read: 'read_file',
  Write: 'write_file',
  Glob: 'glob',
  Grep: 'grep',
  LS: 'ls',
}

const GEMINI_TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse'])

const geminiMatcher = (matcher: string): string => matcher.replace(/[A-Za-z_]+/g, (word) => (Object.hasOwn(GEMINI_TOOLS, word) ? GEMINI_TOOLS[word]! : word))

/**
 * The hook events Deep Agents Code fires (its Hooks v2 `HookEvent`, deepagents-code 0.1.59
 * libs/code/HOOKS.md): it refuses any other event name in hooks.json at load, and a matcher on an event
 * that has no matcher field.
 */
const DEEPAGENTS_EVENTS = new Set([
  'SessionStart',
  'UserPromptSubmit',
  'SessionEnd',
  'PermissionRequest',
  'Notification',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PreCompact',
  'Stop',
  'SubagentStart',
  'SubagentStop',
])

const DEEPAGENTS_UNMATCHED = new Set(['UserPromptSubmit', 'Stop'])

/**
 * Claude's layout with command handlers only (Deep Agents Code), keeping the events it fires: each event
 * it has no equivalent for, and each matcher group it would refuse, is left out and named in a note.
 */
const deepAgentsHooks = (events: HookEvents, notes: string[]): HooksResult => {
  const value: HookEvents = {}
  const left: string[] = []
  for (const [event, groups] of Object.entries(events)) {
    if (!DEEPAGENTS_EVENTS.has(event)) {
      left.push(event)
      continue
    }
    const kept = DEEPAGENTS_UNMATCHED.has(event) ? groups.filter((g) => g.matcher === undefined || g.matcher === '' || g.matcher === '*') : groups
    if (kept.length < groups.length) notes.push(`${event}: matcher groups not written: Deep Agents Code takes no matcher on ${event}`)
    if (kept.length > 0) setOwn(value, event, kept)
  }
  const why = `Deep Agents Code has no hook event ${left.map((e) => `"${e}"`).join(', ')} (it fires ${[...DEEPAGENTS_EVENTS].join(', ')})`
  if (Object.keys(value).length === 0) return {unsupported: left.length > 0 ? why : notes.join('; ')}
  return {value, notes: left.length > 0 ? [...notes, `not written: ${why}`] : notes}
}

const unsupportedEvents = (events: HookEvents, known: (event: string) => boolean): string[] => Object.keys(events).filter((event) => !known(event))

/**
 * Converts a Claude-style hook set (`{Event: [{matcher?, hooks: [{type, command, timeout?}]}]}`) into
 * the value for a target's hooks key:
 *
 * - `claude` (Claude Code): the same structure, copied.
 * - `claude-commands` (Deep Agents Code): the same structure with `command` handlers only and only
 *   the events it fires; `prompt` hooks, `async`, `shell` and other events are left out, each named in a note.
 * - `codex`: the same structure: Codex took over Claude's layout, event names and timeout unit.
 *   Unsupported when the set uses an event Codex does not fire (it has no `SessionEnd`,
 *   `Notification`, `PreCompact`, `SubagentStop`, ...). A note warns when a tool matcher names
 *   Claude tools, since Codex calls its tools `Bash`, `apply_patch` and MCP names.
 * - `gemini`: events renamed as Gemini CLI's own Claude migration does (PreToolUse -> BeforeTool,
 *   PostToolUse -> AfterTool, UserPromptSubmit -> BeforeAgent, Stop -> AfterAgent,
 *   PreCompact -> PreCompress; SessionStart, SessionEnd and Notification keep their names), Claude
 *   tool names in tool matchers renamed (Bash -> run_shell_command, Edit -> replace, ...),
 *   `$CLAUDE_PROJECT_DIR` in commands -> `$GEMINI_PROJECT_DIR`, and `timeout` from seconds to
 *   milliseconds (Gemini's hooks reference gives the timeout in ms, default 60000).
 * - `cursor`: unsupported. Cursor's events (`beforeShellExecution`, `afterFileEdit`, `stop`, ...)
 *   hand the command a different JSON payload and expect a different reply (`permission`, not
 *   Claude's `hookSpecificOutput` or exit status 2), so a Claude hook would run but misread its input.
 */
export const renderHooks = (events: HookEvents, shape: HooksShape): HooksResult => {
  if (shape === 'claude') return {value: clone(events), notes: []}
  const {events: portable, notes} = withoutClaudeOnly(events)
  if (Object.keys(portable).length === 0) return {unsupported: notes.join('; ')}
  if (shape === 'claude-commands') return deepAgentsHooks(portable, notes)
  const result = renderPortableHooks(portable, shape)
  return 'unsupported' in result ? result : {value: result.value, notes: [...notes, ...result.notes]}
}

/**
 * What only Claude Code runs: `prompt` hooks (a model reads the prompt) and the `async` and `shell`
 * switches. Left out for every other agent, each named in a note.
 */
const withoutClaudeOnly = (events: HookEvents): {events: HookEvents; notes: string[]} => {
  const notes = new Set<string>()
  const out: HookEvents = {}
  for (const [event, groups] of Object.entries(events)) {
    const kept = groups.flatMap((group): HookMatcher[] => {
      const hooks = group.hooks.flatMap((hook) => {
        if (hook.type === 'prompt') {
          notes.add(`${event}: "prompt" hooks dropped: only Claude Code runs them`)
          return []
        }
        const {async: runAsync, shell, ...rest} = hook
        if (runAsync !== undefined) notes.add('"async" dropped: only Claude Code runs a hook without waiting')
        if (shell !== undefined) notes.add('"shell" dropped: only Claude Code picks a hook\'s shell')
        return [rest]
      })
      return hooks.length > 0 ? [{...clone(group), hooks}] : []
    })
    if (kept.length > 0) setOwn(out, event, kept)
  }
  return {events: out, notes: [...notes]}
}

const renderPortableHooks = (events: HookEvents, shape: Exclude<HooksShape, 'claude' | 'claude-commands'>): HooksResult => {
  switch (shape) {
    case 'codex': {
      const unknown = unsupportedEvents(events, (event) => CODEX_EVENTS.has(event))
      if (unknown.length > 0) {
        return {unsupported: `Codex has no hook event ${unknown.map((e) => `"${e}"`).join(', ')} (it fires ${[...CODEX_EVENTS].join(', ')})`}
      }
      const notes: string[] = []
      for (const [event, matchers] of Object.entries(events)) {
        if (!CODEX_TOOL_EVENTS.has(event)) continue
        for (const {matcher} of matchers) {
          const names = (matcher ?? '').match(/[A-Za-z_]+/g) ?? []
          const claudeOnly = names.filter((name) => !['Bash', 'apply_patch', 'Edit', 'Write'].includes(name) && !name.startsWith('mcp__'))
          if (claudeOnly.length > 0)
            notes.push(
              `${event} matcher "${matcher}" names ${claudeOnly.join(', ')}, which Codex may not call that way (its tools are Bash, apply_patch and MCP tools)`,
            )
        }
      }
      return {value: clone(events), notes}
    }
    case 'gemini': {
      const unknown = unsupportedEvents(events, (event) => Object.hasOwn(GEMINI_EVENTS, event))
      if (unknown.length > 0) {
        return {
          unsupported: `Gemini CLI has no hook event matching ${unknown.map((e) => `"${e}"`).join(', ')} (it maps ${Object.keys(GEMINI_EVENTS).join(', ')})`,
        }
      }
      const value: HookEvents = {}
      const notes: string[] = []
      for (const [event, matchers] of Object.entries(events)) {
        const target = GEMINI_EVENTS[event]!
        if (target !== event) notes.push(`event ${event} written as Gemini's ${target}`)
        setOwn(
          value,
          target,
          matchers.map((group): HookMatcher => {
            const out = clone(group)
            if (out.matcher !== undefined && GEMINI_TOOL_EVENTS.has(event)) out.matcher = geminiMatcher(out.matcher)
            out.hooks = out.hooks.map((hook) => ({
              ...hook,
              ...(typeof hook.command === 'string'
                ? {command: hook.command.replace(/\$(\{?)CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])/g, '$$$1GEMINI_PROJECT_DIR')}
                : {}),
              ...(typeof hook.timeout === 'number' ? {timeout: hook.timeout * 1000} : {}),
            }))
            return out
          }),
        )
      }
      if (Object.values(events).some((groups) => groups.some((group) => group.hooks.some((hook) => typeof hook.timeout === 'number')))) {
        notes.push('timeouts converted from seconds to milliseconds')
      }
      return {value, notes}
    }
    case 'cursor':
      return {
        unsupported:
          "Cursor's hook events (beforeShellExecution, afterFileEdit, stop, ...) give a command a different input and expect a different reply from Claude's, so these Claude hooks cannot run there unchanged",
      }
    default: {
      const never: never = shape
      return {unsupported: `unknown hooks shape "${String(never)}"`}
    }
  }
}

/** The result of a merge: the new value for the hooks key and the event keys the merge created. */
export interface HookMerge {
  events: HookEvents
  /** event names that were not in `existing` and were added by this merge; keep them in the record */
  createdEvents: string[]
}

const listAt = (events: Record<string, unknown>, event: string): unknown[] | undefined => {
  if (!Object.hasOwn(events, event)) return undefined
  const list = events[event]
  if (!Array.isArray(list)) {
    throw validationFailed(
      'hooks-event-not-a-list',
      `the hooks config holds "${event}" as ${list === null ? 'null' : typeof list}, not a list; refusing to edit it`,
      {
        suggestions: [`fix or remove "${event}" in the agent's hooks config, then try again`],
      },
    )
  }
  return list
}

/**
 * Appends every matcher group of `added` to the same event in `existing` (creating the event when
 * it is absent), leaving everything else (other events, non-event keys such as Gemini's `enabled`,
 * the order of keys) as it was. Inputs are not changed. Events with no matcher groups are skipped.
 *
 * The round trip is exact: `removeHookEvents(merge.events, added, merge.createdEvents).events`
 * deep-equals `existing` (with the same key order). Removal takes out, per event, the last group
 * equal to each added group, so groups the user had before (even identical ones) stay; and it
 * deletes an event key only when this merge created it, which is why `createdEvents` must be kept
 * (in the install record) next to `added`.
 */
export const mergeHookEvents = (existing: HookEvents | undefined, added: HookEvents): HookMerge => {
  const events = clone(existing ?? {}) as Record<string, unknown>
  const createdEvents: string[] = []
  for (const [event, groups] of Object.entries(added)) {
    if (groups.length === 0) continue
    const list = listAt(events, event)
    if (list === undefined) {
      setOwn(
        events,
        event,
        groups.map((group) => clone(group)),
      )
      createdEvents.push(event)
    } else {
      list.push(...groups.map((group) => clone(group)))
    }
  }
  return {events: events as HookEvents, createdEvents}
}

export interface HookRemoval {
  events: HookEvents
  /** added groups that were no longer there (the user changed or removed them) */
  missing: {event: string; group: HookMatcher}[]
}

/**
 * Takes back what `mergeHookEvents(…, added)` put in: for each added group, newest first, the last
 * group of that event deep-equal to it (key order ignored) is removed. An event left empty is deleted
 * when it is in `createdEvents`; without `createdEvents` (an older record), an event this removal
 * emptied is deleted, which differs from the original only if that held the event as an empty list.
 * Groups that are not found are reported in `missing`, never guessed at. Inputs are not changed.
 */
export const removeHookEvents = (existing: HookEvents | undefined, added: HookEvents, createdEvents?: readonly string[]): HookRemoval => {
  const events = clone(existing ?? {}) as Record<string, unknown>
  const missing: HookRemoval['missing'] = []
  for (const [event, groups] of Object.entries(added)) {
    if (groups.length === 0) continue
    const list = listAt(events, event)
    if (list === undefined) {
      for (const group of groups) missing.push({event, group: clone(group)})
      continue
    }
    const before = list.length
    for (const group of [...groups].reverse()) {
      const at = lastIndexWhere(list, (item) => jsonEqual(item, group))
      if (at === -1) missing.unshift({event, group: clone(group)})
      else list.splice(at, 1)
    }
    const created = createdEvents === undefined ? before > 0 : createdEvents.includes(event)
    if (list.length === 0 && created) delete events[event]
  }
  return {events: events as HookEvents, missing}
}

const lastIndexWhere = <T>(list: readonly T[], test: (item: T) => boolean): number => {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i]!)) return i
  return -1
}

/** One hook as a person is asked to approve it. */
export interface HookConsent {
  event: string
  matcher?: string
  type: string
  command?: string
  /** a `prompt` hook's text, given to a model (Claude Code) */
  prompt?: string
  timeout?: number
}

/** Every hook in the set, in order (event, group, hook), as it will be written. */
export const hookCommandsForConsent = (events: HookEvents): HookConsent[] =>
  Object.entries(events).flatMap(([event, groups]) =>
    groups.flatMap((group) =>
      group.hooks.map((hook): HookConsent => ({
        event,
        ...(group.matcher === undefined ? {} : {matcher: group.matcher}),
        type: hook.type,
        ...(typeof hook.command === 'string' ? {command: hook.command} : {}),
        ...(typeof hook.prompt === 'string' ? {prompt: hook.prompt} : {}),
        ...(typeof hook.timeout === 'number' ? {timeout: hook.timeout} : {}),
      })),
    ),
  )
