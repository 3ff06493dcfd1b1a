import {domainToASCII} from 'node:url'
import type {PluginFetchSpec, Source} from '../../model/source.js'
import {canonicalHost, type SourceHost} from '../sources/hosts.js'
import {fetchSpecKinds, kindOf} from '../sources/kinds/index.js'
import {globMatches} from './glob.js'

export {canonicalHost, hostOfUrl, LOCAL_HOST, type SourceHost} from '../sources/hosts.js'

/** A `sources` glob in the same spelling as the hosts it is matched against (its `*` and `?` kept). */
const canonicalPattern = (pattern: string): string => {
  const port = /^(\[[^\]]*\]|[^[:]*)(:.*)?$/.exec(pattern.trim())
  if (!port) return pattern.toLowerCase()
  const host = port[1]!
  const glob = /[*?]/.test(host)
  const canonical = glob ? (domainToASCII(host.toLowerCase()) || host.toLowerCase()).replace(/\.+$/, '') : canonicalHost(host)
  return `${canonical}${port[2] ?? ''}`
}

/** The host a marketplace source is fetched from. */
export const hostOfSource = (source: Source, vars: Readonly<Record<string, string | undefined>>): SourceHost => kindOf(source).host(source, vars)

/** The host a plugin is fetched from: a folder of a git marketplace comes from that repository's host. */
export const hostOfSpec = (spec: PluginFetchSpec): SourceHost => fetchSpecKinds[spec.kind].host(spec as never)

/**
 * Whether a `sources` glob matches a host. A glob without a port matches the host at its scheme's
 * default port only (`github.com`); `host:*` matches any port, `host:8443` that one.
 */
export const hostMatches = (written: string, host: SourceHost): boolean => {
  const pattern = canonicalPattern(written)
  const withPort = /^\[.*\]:|^[^[]*:/.test(pattern)
  if (!withPort) return !host.explicitPort && globMatches(pattern, host.host, true)
  return host.port !== undefined && host.port !== '' && globMatches(pattern, `${host.host}:${host.port}`, true)
}
