import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import {redactUrl} from './redact.js'

export interface HttpOptions {
  env: Environment
  maxBytes: number
  timeoutMs?: number
  etag?: string
  lastModified?: string
  /** hosts (besides github.com) for which GITHUB_TOKEN / GH_TOKEN may be sent */
  githubHosts?: readonly string[]
  /** the origin LOADOUT_TOKEN was given for (a catalog URL's); no other origin ever receives it */
  tokenOrigin?: string
  /** waits between tries; tests shorten them */
  backoffMs?: readonly number[]
  accept?: string
  /** send no token at all (a public index such as the MCP Registry is never given one) */
  anonymous?: boolean
}

export type HttpResult = {status: 'ok'; body: Buffer; url: string; etag?: string; lastModified?: string} | {status: 'not-modified'; url: string}

const MAX_REDIRECTS = 5
const GITHUB_HOSTS = ['github.com', 'api.github.com', 'raw.githubusercontent.com', 'codeload.github.com']

/**
 * The token for a URL, each only to its own origin: LOADOUT_TOKEN to the origin of the catalog URL
 * it was given for (never to a host that catalog merely names), GITHUB_TOKEN / GH_TOKEN to GitHub.
 */
export const tokenFor = (url: URL, env: Environment, githubHosts: readonly string[] = [], tokenOrigin?: string): string | undefined => {
  const v = env.vars
  if (v.LOADOUT_TOKEN && tokenOrigin !== undefined && url.origin === tokenOrigin) return v.LOADOUT_TOKEN
  if ([...GITHUB_HOSTS, ...githubHosts].includes(url.hostname)) return v.GITHUB_TOKEN || v.GH_TOKEN || undefined
  return undefined
}

/** Every secret value in the environment, so that messages can be scrubbed of them. */
export const secretsOf = (env: Environment): string[] =>
  [env.vars.LOADOUT_TOKEN, env.vars.GITHUB_TOKEN, env.vars.GH_TOKEN].filter((s): s is string => Boolean(s && s.length >= 4))

const fetchFailed = (message: string, suggestions: string[] = []) => new LoadoutError('fetch-failed', EXIT.network, message, {suggestions})

class Transient extends Error {}

const readCapped = async (response: Response, maxBytes: number, label: string): Promise<Buffer> => {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel()
    throw fetchFailed(`${label} is ${declared} bytes; the limit is ${maxBytes}`)
  }
  const chunks: Buffer[] = []
  let total = 0
  if (!response.body) return Buffer.alloc(0)
  const reader = response.body.getReader()
  for (;;) {
    const {done, value} = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel()
      throw fetchFailed(`${label} is larger than the limit of ${maxBytes} bytes`)
    }
    chunks.push(Buffer.from(value))
  }
  return Buffer.concat(chunks)
}

/** How long one HTTP try may take, start to last byte: `LOADOUT_HTTP_TIMEOUT` seconds, default 30. */
export const httpTimeoutMs = (env: HttpOptions['env']): number => {
  const seconds = Number(env.vars.LOADOUT_HTTP_TIMEOUT)
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 30_000
}

const once = async (start: URL, options: HttpOptions): Promise<HttpResult> => {
  const token = options.anonymous ? undefined : tokenFor(start, options.env, options.githubHosts, options.tokenOrigin)
  const origin = start.origin
  let url = start
  const signal = AbortSignal.timeout(options.timeoutMs ?? httpTimeoutMs(options.env))
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (url.protocol !== 'https:') throw fetchFailed(`refusing to follow a redirect to ${redactUrl(url.href)}: remote sources must use https`)
    if (url.username || url.password) throw fetchFailed('refusing a redirect to a URL with credentials in it')
    // the policy judges every hop, not only the URL the command was given
    options.env.judgeUrl?.(url)
    const headers: Record<string, string> = {'user-agent': 'loadout', accept: options.accept ?? 'application/json, */*;q=0.5'}
    // The token goes only to the origin it was meant for; a redirect elsewhere drops it.
    if (token && url.origin === origin) headers.authorization = `Bearer ${token}`
    if (hop === 0 && options.etag) headers['if-none-match'] = options.etag
    if (hop === 0 && options.lastModified) headers['if-modified-since'] = options.lastModified
    let response: Response
    try {
      response = await fetch(url, {headers, redirect: 'manual', signal})
    } catch (error) {
      const cause = (error as {cause?: {code?: string}}).cause
      const why =
        (error as Error).name === 'TimeoutError'
          ? `timed out after ${(options.timeoutMs ?? httpTimeoutMs(options.env)) / 1000} s (LOADOUT_HTTP_TIMEOUT)`
          : (cause?.code ?? (error as Error).message)
      throw new Transient(`${redactUrl(url.href)}: ${why}`)
    }
    if ([301, 302, 303, 307, 308].includes(response.status)) {
      await response.body?.cancel()
      const location = response.headers.get('location')
      if (!location) throw fetchFailed(`${redactUrl(url.href)} redirected without a location`)
      url = new URL(location, url)
      continue
    }
    if (response.status === 304) return {status: 'not-modified', url: url.href}
    if (response.status >= 500 || response.status === 429) {
      await response.body?.cancel()
      throw new Transient(`${redactUrl(url.href)} answered ${response.status}`)
    }
    if (response.status === 404 || response.status === 410) {
      await response.body?.cancel()
      throw notFound('url-not-found', `${redactUrl(url.href)} answered ${response.status} (not found)`)
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel()
      throw fetchFailed(`${redactUrl(url.href)} answered ${response.status}: it needs credentials`, [
        'set LOADOUT_TOKEN (or GITHUB_TOKEN for GitHub) to a token that can read it',
      ])
    }
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel()
      throw fetchFailed(`${redactUrl(url.href)} answered ${response.status}`)
    }
    let body: Buffer
    try {
      body = await readCapped(response, options.maxBytes, redactUrl(url.href))
    } catch (error) {
      if (error instanceof LoadoutError) throw error
      throw new Transient(`${redactUrl(url.href)}: the body was cut off (${(error as Error).message})`)
    }
    const etag = response.headers.get('etag') ?? undefined
    const lastModified = response.headers.get('last-modified') ?? undefined
    return {status: 'ok', body, url: url.href, ...(etag ? {etag} : {}), ...(lastModified ? {lastModified} : {})}
  }
  throw fetchFailed(`${redactUrl(start.href)} redirected more than ${MAX_REDIRECTS} times`)
}

/**
 * GETs an https URL with a size cap, a timeout, https re-checked on every redirect hop, the token
 * dropped when the origin changes, ETag / If-Modified-Since reuse, and up to 3 tries with backoff for
 * transient failures (reset, timeout, 5xx); a 4xx is final at once.
 */
export const httpGet = async (href: string, options: HttpOptions): Promise<HttpResult> => {
  const url = new URL(href)
  if (url.protocol !== 'https:') throw new LoadoutError('insecure-url', EXIT.usage, `${redactUrl(href)}: remote sources must use https`)
  const backoff = options.backoffMs ?? [250, 1000]
  let last: Transient | undefined
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await once(url, options)
    } catch (error) {
      if (!(error instanceof Transient)) throw error
      last = error
      if (attempt < 2) await new Promise((r) => setTimeout(r, backoff[attempt] ?? 1000))
    }
  }
  throw fetchFailed(`${last!.message} (after 3 tries)`, ['check the URL and your network, or use --offline to work from the cache'])
}
