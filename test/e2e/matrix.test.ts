/**
 * Every combination, generated (issue 23 §3): each part kind × each agent in `registry/agents/` (and
 * the agents that share a folder, installed together in one run) × user and project scope, through
 * the whole lifecycle. Per agent and scope one plugin holds the parts the agent can hold and a second
 * the parts it cannot; each cell's assertions read what was noted for it at each stage
 * (test/support/matrix-run.ts). Every cell ends with HOME and the project byte-identical to before
 * (canaries planted in every agent folder; loadout's own folders aside), no folder loadout created
 * left behind, and nothing written where the agent does not read.
 */
import {basename, dirname, join, relative} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {changes, changesOutside, sandboxes} from './helpers.js'
import {componentOf, nativeForm, PARTS, readPlaces, registryAgents, SCOPES, sharingGroups, supports, type Agent, type Part} from '../support/matrix.js'
import {LOADOUT_OWN, PLUGIN, PROJECT_OWN, projectPart, runLifecycle, type Batch, type Observation} from '../support/matrix-run.js'

const sandbox = sandboxes()
const agents = registryAgents()
const byId = new Map(agents.map((a) => [a.id, a]))

/** An agent with a native plugin form runs twice: natively (its default) and with --loose. */
const batches: Batch[] = SCOPES.flatMap((scope) => [
  ...agents.flatMap((a): Batch[] =>
    nativeForm(a)
      ? [
          {name: `${a.id} native`, scope, agents: [a], group: false, form: 'native'},
          {name: `${a.id} --loose`, scope, agents: [a], group: false, form: 'loose'},
        ]
      : [{name: a.id, scope, agents: [a], group: false}],
  ),
  ...sharingGroups(agents, scope, {home: '/home', project: '/project'}).map((ids) => ({
    name: ids.join('+'),
    scope,
    agents: ids.map((id) => byId.get(id)!),
    group: true,
    // the shared folder is what a group tests: its agents get loose parts
    ...(ids.some((id) => nativeForm(byId.get(id)!)) ? {form: 'loose' as const} : {}),
  })),
])

/** Changes between two trees, loadout's own folders (and, when asked, its project files) aside. */
const diff = (before: Map<string, string> | undefined, after: Map<string, string> | undefined, projectOwn = true): string[] => {
  const own = [...LOADOUT_OWN, ...(projectOwn ? PROJECT_OWN.map((p) => `project/${p}`) : [])]
  return changesOutside(changes(before!, after!), own)
}

const failureOf = (obs: Observation): string | undefined =>
  obs.failure && `${obs.failure.stage} failed: ${(obs.failure.error as Error)?.stack ?? String(obs.failure.error)}`

describe.each(batches.map((b) => [`${b.name} (${b.scope} scope)`, b] as const))('%s', (_name, batch) => {
  const {scope} = batch
  let obs: Observation
  beforeAll(async () => {
    obs = await runLifecycle(sandbox({git: true}), batch, agents)
  })

  it('runs the whole lifecycle', () => {
    expect(failureOf(obs)).toBeUndefined()
  })

  it('writes only where the agents read (registry/agents/<id>.json) or into loadout’s own folders', () => {
    if (!obs.trees.installed) return expect(obs.parts.length === 0 || failureOf(obs)).toBe(true)
    const allowed = batch.agents.flatMap((a) => readPlaces(a, scope, obs.roots)).map((p) => relative(join(obs.roots.home, '..'), p))
    expect(changesOutside(diff(obs.trees.before, obs.trees.installed), allowed)).toEqual([])
  })

  it('disable takes out every file and entry, enable puts back the same bytes', () => {
    if (obs.parts.length === 0) return
    expect(failureOf(obs)).toBeUndefined()
    expect(diff(obs.trees.before, obs.trees.disabled)).toEqual([])
    expect(diff(obs.trees.installed, obs.trees.enabled)).toEqual([])
  })

  it('outdated reports the changed content', () => {
    if (obs.parts.length === 0) return
    expect(failureOf(obs)).toBeUndefined()
    const row = obs.outdated!.rows.find((r) => r.plugin === `${PLUGIN}@direct`)
    expect(row).toMatchObject({outdated: true})
  })

  if (scope === 'project')
    it('install --frozen in a clone at another path writes what the lock says there, and its uninstall leaves the clone as it was', () => {
      if (obs.parts.length === 0) return
      expect(failureOf(obs)).toBeUndefined()
      const clone = obs.clone!
      const agentFiles = (tree: Map<string, string>) => new Map([...tree].filter(([k]) => !PROJECT_OWN.some((o) => k === o || k.startsWith(`${o}/`))))
      expect(changes(agentFiles(projectPart(obs.trees.updated!)), agentFiles(clone.installed))).toEqual([])
      expect(changes(agentFiles(clone.fresh), agentFiles(clone.uninstalled))).toEqual([])
    })

  it('uninstall leaves HOME and the project byte-identical to before; after cache clean, loadout’s own folders are gone too', () => {
    expect(failureOf(obs)).toBeUndefined()
    if (obs.trees.uninstalled) expect(diff(obs.trees.before, obs.trees.uninstalled, false)).toEqual([])
    // natively nothing of the plugin is in the agent's loose folders at any stage
    if (batch.form === 'native')
      for (const agent of batch.agents)
        expect(
          diff(obs.trees.before, obs.trees.installed).filter((p) =>
            readPlaces(agent, scope, obs.roots).some((place) => p.startsWith(relative(join(obs.roots.home, '..'), place) + '/')),
          ),
        ).toEqual([])
    expect(changes(obs.trees.before!, (obs.trees.cleaned ?? obs.trees.none)!)).toEqual([])
  })

  if (PARTS.some((p) => !batch.agents.some((a) => supports(a, p, scope))))
    it('the parts no agent of the run can hold: nothing written (exit 4), each named with its reason', () => {
      expect(changes(obs.trees.before!, obs.trees.none!)).toEqual([])
      if (!batch.agents.some((a) => a.installs)) return expect(obs.noneError).toMatchObject({exitStatus: 2})
      expect(obs.noneError).toMatchObject({code: 'nothing-written', exitStatus: 4})
      for (const agent of batch.agents) {
        const skipped = obs.noneError!.details!.plans!.find((p) => p.target === agent.id)!.skipped.map((s) => s.component)
        for (const part of obs.noneParts) expect(skipped, `${agent.id} ${part}`).toContain(componentOf('mx-none', part))
      }
    })

  describe.each(batch.agents.flatMap((a) => PARTS.map((p) => [`${p} → ${a.id}`, a, p] as const)))('%s', (_cell, agent: Agent, part: Part) => {
    const held = supports(agent, part, scope)
    const seen = (stage: keyof Observation['seen']) => obs.seen[stage]?.[agent.id]?.[part]
    if (held)
      it('installed where the agent reads it, once; listed; gone when disabled, back when enabled; the new content after update; gone after uninstall', () => {
        expect(failureOf(obs)).toBeUndefined()
        const once = ['skill', 'subagent', 'command'].includes(part) ? 1 : undefined
        expect(seen('before')!.v1).toEqual([])
        expect(seen('installed')!.v1.length, 'written after install').toBeGreaterThan(0)
        // what an agent does with one skill name in two of its folders is data (registry: skills.sameNameTwice); the
        // agents beside it may need a copy in each: one that loads one of them is fine, one that warns is told of it
        const twice = part === 'skill' ? (agent.file.skills as {sameNameTwice?: string}).sameNameTwice : undefined
        const copies = seen('installed')!.v1
        if (once && twice === 'loads-one')
          expect(new Set(copies.map((file) => basename(dirname(file)))), 'the agent loads it once').toHaveProperty('size', once)
        else if (once && twice === 'conflict' && copies.length > 1)
          expect(obs.installed!.plans.find((p) => p.target === agent.id)!.notes.map((n) => n.note)).toContainEqual(
            expect.stringMatching(/warns of the duplicate/),
          )
        else if (once) expect(copies, 'the agent reads it once').toHaveLength(once)
        const record = obs.listed!.find((r) => r.target === agent.id)
        // natively the plugin is one component, the agent's own plugin, which holds the part
        expect(record?.components).toContain(batch.form === 'native' ? `${PLUGIN}@direct/native/${PLUGIN}` : componentOf(PLUGIN, part))
        expect(seen('disabled')!.v1, 'after disable').toEqual([])
        expect(seen('enabled')!.v1, 'after enable').toEqual(seen('installed')!.v1)
        expect(seen('updated')!.v1, 'old content after update').toEqual([])
        expect(seen('updated')!.v2.length, 'new content after update').toBeGreaterThan(0)
        if (obs.clone) expect(obs.clone.seen[agent.id]![part]!.v2.length, 'written in the clone').toBeGreaterThan(0)
        expect(seen('uninstalled')!.v2, 'after uninstall').toEqual([])
      })
    else
      it('not held: the install says so and writes nothing for it', () => {
        if (obs.noneParts.includes(part)) {
          // in the plugin of parts no agent of the run holds: checked above, with its exit status
          expect(seen('none')?.v1 ?? []).toEqual([])
          return
        }
        expect(failureOf(obs)).toBeUndefined()
        const plan = obs.installed!.plans.find((p) => p.target === agent.id)!
        const said = [
          ...plan.skipped.map((s) => s.component),
          ...plan.notes.filter((n) => part !== 'prompt-hook' || /prompt/.test(n.note)).map((n) => n.component),
        ]
        expect(said).toContain(componentOf(PLUGIN, part))
        if (!batch.group) expect(seen('installed')!.v1).toEqual([])
      })
  })
})
