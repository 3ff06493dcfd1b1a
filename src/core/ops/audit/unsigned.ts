/**
 * Installed sources that should be signed and are not: `audit` reports each (SARIF rule
 * `loadout/unsigned-source`). A source should be signed when its marketplace declares keys or
 * Sigstore identities (`--signed-by`, `--signed-by-identity`, loadout.json), or when policy
 * `requireSigned` names its host or its marketplace; it is signed when loadout recorded a signer
 * for it (the install record's `signer`, the marketplace record's). Keys or a policy added after the
 * install are the usual cause: the install itself refuses an unsigned source.
 */
import {isAbsolute} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {knownMarketplaces} from '../../kernel/marketplace/known.js'
import {checkSignedRequired} from '../../kernel/policy/enforce.js'
import {hostOfSource, hostOfUrl, LOCAL_HOST, type SourceHost} from '../../kernel/policy/hosts.js'
import {loadPolicy} from '../../kernel/policy/load.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'
import {marketplacesFile} from '../../kernel/state/marketplaces.js'
import {projectLockFile, userStateFile, type InstallRecord} from '../../kernel/state/records.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import type {Policy} from '../../model/policy.js'
import {refusal} from './policy-breaks.js'

export interface UnsignedSource {
  /** a plugin id, or a marketplace's name */
  subject: string
  kind: 'plugin' | 'marketplace'
  /** what asks for a signature: `signedBy` (the marketplace's keys or identities), `requireSigned.hosts` or `requireSigned.marketplaces` */
  rule: string
  /** the file that asks (the policy file), or for `signedBy` the file recording the marketplace */
  ruleFile: string
  /** the file recording what was installed unsigned (loadout.lock, state.json, marketplaces.json): its line names the subject */
  file: string
  message: string
}

/** The host of a recorded (redacted) source text: a URL's, `local` for a folder path, none for a package name. */
const hostOfRecorded = (source: string): SourceHost | undefined => {
  if (isAbsolute(source)) return LOCAL_HOST
  try {
    return hostOfUrl(new URL(source).href)
  } catch {
    return undefined
  }
}

/** The policy rule that requires `host` or `marketplace` to be signed, when one does. */
const requiredBy = (policy: Policy, host: SourceHost | undefined, marketplace: string | undefined, what: string) =>
  refusal(() => checkSignedRequired(policy, host ?? {host: '', explicitPort: false, subject: ''}, marketplace, false, what))

export const unsignedSources = (env: Environment, projectRoot: string, records: readonly InstallRecord[]): UnsignedSource[] => {
  const policy = loadPolicy(env, projectRoot)
  const markets = knownMarketplaces(env, projectRoot).filter((m) => !m.builtin)
  const marketOf = (name: string) => markets.find((m) => m.name === name && m.scope === 'project') ?? markets.find((m) => m.name === name)
  const found: UnsignedSource[] = []
  for (const market of markets) {
    if (market.signer) continue
    const keyed = (market.signedBy?.length ?? 0) + (market.signedByIdentity?.length ?? 0) > 0
    const rule = keyed ? undefined : requiredBy(policy, hostOfSource(market.source, env.vars), market.name, `marketplace "${market.name}"`)
    if (!keyed && !rule) continue
    found.push({
      subject: market.name,
      kind: 'marketplace',
      rule: rule?.rule ?? 'signedBy',
      ruleFile: rule?.file ?? marketplacesFile(env),
      file: marketplacesFile(env),
      message: `marketplace "${market.name}" is not signed: ${rule ? rule.message : 'it declares keys, and no signer was recorded for its commit'}`,
    })
  }
  const seen = new Set<string>()
  for (const record of records) {
    const key = `${record.scope}\0${record.plugin}`
    if (record.signer || isMcpId(record.plugin) || seen.has(key)) continue
    seen.add(key)
    const marketName = record.plugin.split('@')[1]
    const market = marketName && marketName !== DIRECT ? marketOf(marketName) : undefined
    const keyed = (market?.signedBy?.length ?? 0) + (market?.signedByIdentity?.length ?? 0) > 0
    const rule = keyed ? undefined : requiredBy(policy, hostOfRecorded(record.source), market ? marketName : undefined, record.plugin)
    if (!keyed && !rule) continue
    found.push({
      subject: record.plugin,
      kind: 'plugin',
      rule: rule?.rule ?? 'signedBy',
      ruleFile: rule?.file ?? marketplacesFile(env),
      file: record.scope === 'project' ? projectLockFile(projectRoot) : userStateFile(env),
      message: `${record.plugin} (${record.scope} scope) was installed from an unsigned source: ${rule ? rule.message : `marketplace "${marketName}" declares keys, and no signer is recorded for it`}`,
    })
  }
  return found
}
