/**
 * Two agents can read one folder: Codex and the cross-agent target both keep user skills in
 * `~/.agents/skills`, and Gemini CLI reads that folder beside its own. Planned one agent at a time, an
 * install would write the same folder twice (the second write fails) or give an agent a second copy
 * it loads twice (Gemini warns of a conflict at every start). This pass, run on every agent's plan,
 * writes such a part once and records it for each agent that reads it: the records name the same
 * files, so uninstalling one agent keeps them while another still records them, and verify and list
 * see the part for each agent. Where an agent reads is data (`skills.locations` in registry/agents).
 */
import {basename, dirname} from 'node:path'
import {conflict} from '../../model/errors.js'
import {createHash} from '../../kernel/crypto/node-crypto.js'
import {jsonEqual} from '../../kernel/json/equal.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {skillFoldersRead, type Operation, type PlanInput, type SharedEntries, type TargetPlan} from './plan.js'

type Write = Extract<Operation, {kind: 'copy-dir' | 'write-file'}>

const isWrite = (op: Operation): op is Write => op.kind === 'copy-dir' || op.kind === 'write-file'

/** Whether two planned writes put the same bytes at their destination. */
const sameBytes = (a: Write, b: Write): boolean =>
  a.kind === 'copy-dir' && b.kind === 'copy-dir'
    ? a.from === b.from && a.renameSkillTo === b.renameSkillTo && jsonEqual(a.pluginVars, b.pluginVars)
    : a.kind === 'write-file' && b.kind === 'write-file' && a.content === b.content

/** What a record of this plugin for another agent holds at `dest`: its files, the tree, and the folders made for it. */
const recordedAt = (record: InstallRecord, dest: string): SharedEntries => ({
  files: record.files.filter((f) => f.path === dest || f.path.startsWith(dest + '/')),
  trees: (record.trees ?? []).filter((t) => t === dest),
  dirs: record.dirs.filter((d) => d === dest || dest.startsWith(d + '/')),
})

/** The trees a record of another agent holds `component` in, in one of the `reads` folders. */
const treesHolding = (record: InstallRecord, component: string, reads: ReadonlySet<string>): string[] =>
  (record.trees ?? []).filter((t) => reads.has(dirname(t)) && record.files.some((f) => f.component === component && f.path.startsWith(t + '/')))

const shared = (op: Write, dest: string, withTarget: string, recorded?: SharedEntries): Operation => ({
  kind: 'shared',
  component: op.component,
  dest,
  with: withTarget,
  ...(recorded ? {recorded} : {}),
})

const differentBytes = (dest: string, a: string, b: string) =>
  conflict('destination-shared', `${dest} is written for both ${a} and ${b}, with different contents; one folder cannot hold both`, {
    suggestions: [`install for one of them at a time: --agent ${a}`],
  })

/** Whether a file another agent's record holds at `op.dest` has the bytes `op` would write there. */
const recordedSame = (record: InstallRecord, op: Write): boolean =>
  op.kind !== 'write-file' || record.files.find((f) => f.path === op.dest)?.sha256 === createHash('sha256').update(op.content, 'utf8').digest('hex')

/**
 * A file an earlier install wrote for another agent, which this plan would write otherwise: for a plugin
 * that agents load as their own, the one catalog they both read, which can offer one set of parts.
 */
const recordedOtherwise = (op: Write, id: string, theirs: string, mine: string) =>
  op.component.includes('/native/')
    ? conflict(
        'destination-shared',
        `${theirs} and ${mine} load ${id} as their own plugin through one catalog (${op.dest}), which offers both the same parts; they cannot differ`,
        {
          suggestions: [
            `turn the part on or off for both: leave out --agent`,
            `or give one of them loose parts, which can differ: loadout install ${id} --agent ${mine} --loose`,
          ],
        },
      )
    : conflict('destination-shared', `${op.dest} holds what ${id} wrote for ${theirs}, which is not what ${mine} would be given; one file cannot hold both`, {
        suggestions: [`install for both at once: --agent ${theirs},${mine}`],
      })

/**
 * The plans with every write another agent's plan (or record of this plugin in this scope) makes at the
 * same place, or in a skills folder the agent also reads, turned into a `shared` operation. A record of
 * another version is not shared: its files are not what this plan would write.
 */
export const shareDestinations = (plans: readonly TargetPlan[], input: PlanInput, targets: readonly AgentTarget[]): TargetPlan[] => {
  const siblings = (input.siblings ?? []).filter((r) => r.enabled)
  const out = plans.map((plan) => ({...plan, operations: [...plan.operations]}))
  const targetOf = (id: string) => targets.find((t) => t.id === id)!
  const sibling = (dest: string): InstallRecord | undefined =>
    siblings.find((r) => (r.trees ?? []).includes(dest) || r.files.some((f) => f.path === dest || f.path.startsWith(dest + '/')))
  const ownSibling = (dest: string, target: string): InstallRecord | undefined => {
    const record = sibling(dest)
    if (record && input.integrity !== undefined && record.integrity !== input.integrity)
      throw conflict('destination-shared', `${dest} holds ${input.id} as installed for ${record.target}, at another version; it is written for ${target} too`, {
        suggestions: [`update it first (loadout update ${input.id}), or install for both agents in one run: --agent ${record.target},${target}`],
      })
    return record
  }

  // the same destination: the first plan writes it, each later one shares it
  const firstAt = new Map<string, {target: string; op: Write}>()
  for (const plan of out) {
    plan.operations = plan.operations.map((op) => {
      if (!isWrite(op)) return op
      const record = ownSibling(op.dest, plan.target)
      if (record && !recordedSame(record, op)) throw recordedOtherwise(op, input.id, record.target, plan.target)
      if (record) return shared(op, op.dest, record.target, recordedAt(record, op.dest))
      const first = firstAt.get(op.dest)
      if (!first) {
        firstAt.set(op.dest, {target: plan.target, op})
        return op
      }
      if (!sameBytes(first.op, op)) throw differentBytes(op.dest, first.target, plan.target)
      return shared(op, op.dest, first.target)
    })
  }

  // a skill another agent's copy puts in a folder this agent also reads: that copy serves both
  for (const plan of out) {
    const reads = skillFoldersRead(targetOf(plan.target), input)
    plan.operations = plan.operations.map((op) => {
      if (op.kind !== 'copy-dir' || !op.component.includes('/skill/')) return op
      for (const other of out) {
        if (other === plan) continue
        const theirs = other.operations.find((o): o is Write => o.kind === 'copy-dir' && o.component === op.component && o.dest !== op.dest)
        if (theirs && reads.has(dirname(theirs.dest)) && sameBytes(theirs, op)) return shared(op, theirs.dest, other.target)
      }
      for (const record of siblings) {
        const [tree] = treesHolding(record, op.component, reads)
        if (tree && tree !== op.dest && ownSibling(tree, plan.target)) return shared(op, tree, record.target, recordedAt(record, tree))
      }
      return op
    })
  }

  for (const plan of out) noteSkillsSeenTwice(plan, out, siblings, targetOf(plan.target), input)
  return out
}

/**
 * A skill the agents of an install need in two folders that a third agent reads, under one name: that
 * agent sees it twice, and one that warns of it (registry: skills.sameNameTwice) is said to.
 */
const noteSkillsSeenTwice = (
  plan: TargetPlan,
  plans: readonly TargetPlan[],
  siblings: readonly InstallRecord[],
  target: AgentTarget,
  input: PlanInput,
): void => {
  if (target.skills?.format !== 'agent-skills' || target.skills.sameNameTwice !== 'conflict') return
  const reads = skillFoldersRead(target, input)
  const components = new Set(
    plan.operations.filter((op) => (op.kind === 'copy-dir' || op.kind === 'shared') && op.component.includes('/skill/')).map((op) => op.component),
  )
  for (const component of components) {
    const copies = new Set<string>()
    for (const other of plans)
      for (const op of other.operations) if (op.kind === 'copy-dir' && op.component === component && reads.has(dirname(op.dest))) copies.add(op.dest)
    for (const record of siblings) for (const tree of treesHolding(record, component, reads)) copies.add(tree)
    const byName = new Map<string, string[]>()
    for (const path of copies) byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path])
    for (const [name, paths] of byName)
      if (paths.length > 1)
        plan.notes.push({
          component,
          note: `${target.name} reads the skill "${name}" from ${paths.sort().join(' and ')}, which the agents installed beside it each need: it warns of the duplicate at every start`,
        })
  }
}
