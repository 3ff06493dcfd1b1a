import {domainToASCII} from 'node:url'
import {DEFAULT_GITHUB_URL} from './git-url.js'

/** Where a source's bytes come from, as policy sees it: `local` for a folder on this machine. */
export interface SourceHost {
  /** lower-case host name, `local` for a folder */
  host: string
  /** the port connected to (the scheme's default when the URL names none); none for a folder */
  port?: string
  /** whether the port differs from the scheme's default */
  explicitPort: boolean
  /** how the subject reads in messages and is matched: `host` or `host:port` */
  subject: string
}

export const LOCAL_HOST: SourceHost = {host: 'local', explicitPort: false, subject: 'local'}
const DEFAULT_PORTS: Record<string, string> = {https: '443', http: '80', ssh: '22', git: '9418'}
const SCP = /^[A-Za-z0-9._][A-Za-z0-9._-]*@([A-Za-z0-9_][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\]):/

const MAPPED_V4 = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/

/**
 * A host as policy judges it, one spelling per host: lower case, IDN labels in punycode, IPv4 in
 * dotted decimal (the URL parser reads `2130706433`, `0x7f.1` and `0177.0.0.1` as 127.0.0.1), no
 * trailing dot (`evil.example.` is `evil.example`), and an IPv4-mapped IPv6 address
 * (`[::ffff:127.0.0.1]`) as the IPv4 address it reaches.
 */
export const canonicalHost = (host: string): string => {
  let name = host.trim()
  try {
    name = new URL(`https://${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}/`).hostname
  } catch {
    name = domainToASCII(name.toLowerCase()) || name.toLowerCase()
  }
  name = name.replace(/\.+$/, '')
  const mapped = MAPPED_V4.exec(name)
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)]
    name = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
  }
  return name
}

const hostOf = (raw: string, port: string, explicitPort: boolean): SourceHost => {
  const host = raw === '?' ? raw : canonicalHost(raw)
  return {host, port, explicitPort, subject: explicitPort ? `${host}:${port}` : host}
}

/** The host of a URL (https, ssh, or scp-style `user@host:path`); an unreadable URL has the host `?`. */
export const hostOfUrl = (url: string): SourceHost => {
  const scp = SCP.exec(url.trim())
  if (scp) return hostOf(scp[1]!, '22', false)
  try {
    const parsed = new URL(url)
    const fallback = DEFAULT_PORTS[parsed.protocol.slice(0, -1).toLowerCase()] ?? ''
    return hostOf(parsed.hostname, parsed.port || fallback, Boolean(parsed.port) && parsed.port !== fallback)
  } catch {
    return hostOf('?', '', false)
  }
}

export const githubHost = (vars: Readonly<Record<string, string | undefined>>): SourceHost => hostOfUrl(vars.LOADOUT_GITHUB_URL || DEFAULT_GITHUB_URL)
