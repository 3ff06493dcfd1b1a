/**
 * A plugin and everything it depends on, resolved into one plan before anything is written: each
 * dependency at the version its range picks (the highest `{name}--v{version}` tag of its
 * marketplace), a cycle or a range nothing satisfies refused with the path through the tree. Then
 * dependencies are installed first, the plugin last, in one transaction: a failure of any leaves none.
 */
import {conflict, needsConsent, usageError, validationFailed} from '../../model/errors.js'
import {findMarketplace} from '../../kernel/marketplace/known.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import {isApproved, type ConsentSummary} from './consent.js'
import {
  consentFor,
  existingRecords,
  isCurrent,
  fetchForInstall,
  prepareFetched,
  refusePackOnly,
  resolveForInstall,
  type InstallOptions,
  type InstallResult,
  type Prepared,
} from './install.js'
import {readingOnce} from '../../kernel/fs/read-once.js'
import {installBatch} from './batch.js'
import {DIRECT, type ResolvedPlugin} from '../../kernel/resolve/resolve.js'
import type {DependencyMark} from '../../kernel/state/mark.js'
import {admitPluginSource} from '../../kernel/policy/gate.js'
import {readPluginExtras} from '../../kernel/resolve/manifest.js'
import {configState} from '../../kernel/user-config/values.js'
import {resolveInMarketplace} from '../../kernel/resolve/spec.js'
import {releaseCutoff} from '../../kernel/policy/release-age.js'
import {loadPolicy} from '../../kernel/policy/load.js'

export interface PlannedPlugin {
  prepared: Prepared
  /** plugin ids that need it; empty for the plugin asked for */
  dependents: string[]
  /** how it was reached: root -> ... -> this */
  chain: string[]
  /** every range asked of it (the user's, or its dependents'), which its version satisfies */
  ranges: string[]
}

export interface TreePlan {
  root: PlannedPlugin
  /** dependencies, each after the ones it needs */
  dependencies: PlannedPlugin[]
}

/** How deep a chain of dependencies, and how many plugins in all, one install may bring. */
export const MAX_DEPENDENCY_DEPTH = 16
export const MAX_DEPENDENCIES = 64

const treeTooLarge = (what: string, path: readonly string[]) =>
  validationFailed(
    'dependency-tree-too-large',
    `${what} (the limits are a depth of ${MAX_DEPENDENCY_DEPTH} and ${MAX_DEPENDENCIES} dependencies): ${path.join(' -> ')}`,
    {
      details: {chain: [...path]},
      suggestions: ['install the dependencies on their own first, or ask the plugin author for a smaller tree'],
    },
  )

export type TreeInstallResult = InstallResult & {dependencies: Array<InstallResult & {dependents: string[]}>}

const versionOf = (prepared: Prepared): string | undefined => prepared.resolved.version ?? prepared.fetched.artifact?.version ?? prepared.model.version

const prepare = async (
  resolved: ResolvedPlugin,
  options: Pick<InstallOptions, 'env' | 'context' | 'offline' | 'allowHiddenText' | 'onProgress'>,
  skills?: readonly string[],
): Promise<Prepared> => {
  admitPluginSource(resolved, options.env, options.context.projectRoot)
  options.onProgress?.(`fetching ${resolved.fetch.label}`)
  const fetched = await fetchForInstall(resolved, options)
  return prepareFetched(resolved, fetched, {
    env: options.env,
    context: options.context,
    offline: options.offline,
    ...(options.allowHiddenText ? {allowHiddenText: true} : {}),
    ...(skills ? {skills} : {}),
  })
}

/** Resolves, fetches and reads the plugin and its whole dependency tree; writes nothing. */
export const planTree = async (
  spec: string,
  options: Pick<InstallOptions, 'env' | 'context' | 'offline' | 'skills' | 'allowHiddenText' | 'onProgress'>,
): Promise<TreePlan> => {
  const {env, context} = options
  const cutoff = releaseCutoff(loadPolicy(env, context.projectRoot))
  const {resolved, range: asked} = await resolveForInstall(spec, env, context.projectRoot)
  const rootPrepared = await prepare(resolved, options, options.skills)
  const root: PlannedPlugin = {prepared: rootPrepared, dependents: [], chain: [rootPrepared.id], ranges: asked ? [asked] : []}
  const nodes = new Map<string, PlannedPlugin>([[rootPrepared.id, root]])
  const order: PlannedPlugin[] = []

  const visit = async (node: PlannedPlugin): Promise<void> => {
    const {prepared} = node
    const extras = readPluginExtras(prepared.fetched.root, prepared.resolved.entry)
    for (const dep of extras.dependencies) {
      const marketName = dep.marketplace ?? (prepared.resolved.marketplace === DIRECT ? undefined : prepared.resolved.marketplace)
      if (!marketName) {
        throw usageError(
          'dependency-needs-marketplace',
          `${prepared.id} depends on "${dep.written}", which names no marketplace, and ${prepared.id} comes from none`,
          {
            suggestions: ['write the dependency as name@marketplace in plugin.json'],
          },
        )
      }
      const id = `${dep.name}@${marketName}`
      const path = [...node.chain, id]
      if (node.chain.includes(id)) {
        throw conflict('dependency-cycle', `dependency cycle: ${path.join(' -> ')}`, {
          details: {chain: path},
          suggestions: ['remove one of these dependencies from its plugin.json'],
        })
      }
      const seen = nodes.get(id)
      if (seen) {
        const version = versionOf(seen.prepared)
        // semver is loaded only by a tree that has a range to check (most installs have no dependencies)
        if (dep.range && !(version && (await import('semver')).default.satisfies(version, dep.range))) {
          throw conflict(
            'dependency-conflict',
            `${path.join(' -> ')} needs ${dep.range}, but ${seen.chain.join(' -> ')} resolved ${id} to ${version ?? 'an unversioned copy'}`,
            {
              details: {chain: path, other: seen.chain, range: dep.range, version},
            },
          )
        }
        if (!seen.dependents.includes(prepared.id)) seen.dependents.push(prepared.id)
        if (dep.range && !seen.ranges.includes(dep.range)) seen.ranges.push(dep.range)
        continue
      }
      if (path.length - 1 > MAX_DEPENDENCY_DEPTH) throw treeTooLarge(`the dependency chain is deeper than ${MAX_DEPENDENCY_DEPTH}`, path)
      if (nodes.size > MAX_DEPENDENCIES) throw treeTooLarge(`${prepared.id} brings more than ${MAX_DEPENDENCIES} dependencies`, path)
      const market = findMarketplace(marketName, env, context.projectRoot)
      const resolved = await resolveInMarketplace(dep.name, market, dep.range, env, context.projectRoot, node.chain, cutoff)
      const child: PlannedPlugin = {prepared: await prepare(resolved, options), dependents: [prepared.id], chain: path, ranges: dep.range ? [dep.range] : []}
      nodes.set(child.prepared.id, child)
      await visit(child)
      order.push(child)
    }
  }
  await visit(root)
  return {root, dependencies: order}
}

/** Every approval the tree needs, asked of nobody: off a terminal without --yes it fails before anything is written. */
const checkConsentUpFront = async (nodes: readonly PlannedPlugin[], options: InstallOptions): Promise<void> => {
  if (options.yes || options.confirm || options.dryRun) return
  const all = readInstallRecords(options.env, options.context.projectRoot)
  const unapproved: ConsentSummary[] = []
  const ids: string[] = []
  for (const p of nodes.map((n) => n.prepared)) {
    if (!options.force && isCurrent(existingRecords(all, p.id, options), options.targets, p.fetched.integrity, options.form, options.frozen)) continue
    // as the install will show it: from the plans
    const summary = await consentFor(p, options, all)
    if (summary.items.length > 0 && !isApproved(options.env, p.id, summary.fingerprint)) {
      unapproved.push(summary)
      ids.push(p.id)
    }
  }
  if (unapproved.length > 0) {
    throw needsConsent(
      'consent-needed',
      `${ids.join(', ')} ${ids.length === 1 ? 'runs' : 'run'} code on this machine (hooks, MCP servers or tools) and ${ids.length === 1 ? 'needs' : 'need'} your approval; nothing was installed`,
      {
        suggestions: ['run it on a terminal to review and approve, or pass --yes to approve'],
        details: {items: unapproved.flatMap((s) => s.items)},
      },
    )
  }
}

/** Off a terminal, every required userConfig value the tree lacks fails the run before anything is written. */
const checkUserConfigUpFront = (nodes: readonly PlannedPlugin[], options: InstallOptions): void => {
  if (options.askUserConfig || options.dryRun) return
  const missing = new Map<string, string[]>()
  for (const {prepared} of nodes) {
    const declared = readPluginExtras(prepared.fetched.root, prepared.resolved.entry).userConfig
    const keys = declared.length === 0 ? [] : configState(options.env, prepared.id, declared).missing
    if (keys.length > 0) missing.set(prepared.id, keys)
  }
  if (missing.size === 0) return
  const [[id, keys]] = [...missing] as [[string, string[]]]
  const what =
    missing.size === 1
      ? `${id} needs a value for ${keys.join(', ')}`
      : `these plugins need values: ${[...missing].map(([p, k]) => `${p} (${k.join(', ')})`).join('; ')}`
  throw needsConsent('user-config-missing', `${what} before anything can be installed`, {
    suggestions: [
      `set them first: ${[...missing].map(([p, k]) => `loadout configure ${p} ${k.map((key) => `--set ${key}=...`).join(' ')}`).join(' && ')}`,
      'or install on a terminal, which asks',
    ],
    details: {missing: missing.size === 1 ? keys : Object.fromEntries(missing)},
  })
}

/** All the ranges asked of a plugin, as one semver range (a space is "and"). */
const rangeField = (node: PlannedPlugin): {range?: string} => (node.ranges.length > 0 ? {range: node.ranges.join(' ')} : {})

/** Installs planned trees in one transaction: each tree's dependencies first, then its plugin; all or nothing. */
export const installTrees = async (plans: readonly TreePlan[], options: InstallOptions): Promise<TreeInstallResult[]> => {
  // one plugin reached twice (two roots, or a root another needs) is installed once, asked-for wins
  const order = new Map<string, {node: PlannedPlugin; mark: DependencyMark}>()
  for (const plan of plans) {
    for (const node of plan.dependencies)
      if (!order.has(node.prepared.id)) order.set(node.prepared.id, {node, mark: {kind: 'dependency', of: node.dependents, ...rangeField(node)}})
    order.set(plan.root.prepared.id, {node: plan.root, mark: {kind: 'explicit', ...rangeField(plan.root)}})
  }
  const nodes = [...order.values()].map((o) => o.node)
  await checkConsentUpFront(nodes, options)
  checkUserConfigUpFront(nodes, options)
  const roots = new Set(plans.map((p) => p.root))
  const items = [...order.values()].map(({node, mark}) => ({
    prepared: node.prepared,
    options: {...options, dependency: mark, ...(roots.has(node) ? {} : {skills: undefined})},
  }))
  const results = await installBatch(items, options)
  const byId = new Map(results.map((r) => [r.plugin, r]))
  return plans.map((plan) => ({
    ...byId.get(plan.root.prepared.id)!,
    dependencies: plan.dependencies.map((node) => ({...byId.get(node.prepared.id)!, dependents: node.dependents})),
  }))
}

/** `loadout install a b c`: every plugin and its dependencies, planned before anything is written, one transaction. */
export const installManyWithDependencies = async (specs: readonly string[], options: InstallOptions): Promise<TreeInstallResult[]> => {
  // an agent loadout writes nothing for is refused before anything is fetched or asked
  refusePackOnly(options.targets)
  // each file is read from disk once: scanned, hashed for consent and copied from the same bytes
  return readingOnce(async () => {
    const plans: TreePlan[] = []
    for (const spec of specs) plans.push(await planTree(spec, options))
    // policy noDowngrade: an install over an installed plugin moves its lock as an update does
    const installed = readInstallRecords(options.env, options.context.projectRoot)
    for (const {root} of plans) {
      const first = installed.find((r) => r.plugin === root.prepared.id && r.scope === options.context.scope)
      const to = {
        ...(versionOf(root.prepared) ? {version: versionOf(root.prepared)!} : {}),
        ...(root.prepared.fetched.commit ? {commit: root.prepared.fetched.commit} : {}),
      }
      if (first)
        await (
          await import('./downgrade.js')
        ).checkDowngrade(first, root.prepared, to, options.env, options.context.projectRoot, options.allowDowngrade ?? false)
    }
    return installTrees(plans, options)
  })
}
