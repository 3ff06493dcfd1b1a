/**
 * A client of the OCI distribution API on Node's https: ping, manifests (get and put), blobs (upload
 * with POST then one monolithic PUT; download checked against its digest while it streams, its size
 * bounded), and tag lists with their `Link` pagination. Authentication follows what the registry asks
 * for in `WWW-Authenticate`: Basic with Docker's credentials, or Bearer with a token fetched from the
 * realm it names (for the scope it names), the credentials sent to the token endpoint.
 *
 * Every request, each redirect hop and the token realm pass `env.judgeUrl` (the policy's host check)
 * before a byte is sent; only https is spoken; the Authorization header goes only to the registry's
 * own origin (the token realm gets the Basic credentials only), never to a host a redirect leads to.
 * Credentials never appear in a message.
 */
import {createHash, type Hash} from '../crypto/node-crypto.js'
import {createReadStream, createWriteStream} from 'node:fs'
import {rm} from 'node:fs/promises'
import type {IncomingMessage} from 'node:http'
import {request} from 'node:https'
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import {registryCredentials, type RegistryCredentials} from './credentials.js'
import {DIGEST} from './reference.js'
import {INDEX_MEDIA_TYPE, MANIFEST_MEDIA_TYPE, type Descriptor} from './media-types.js'

export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024
const MAX_ERROR_BYTES = 64 * 1024
const MAX_REDIRECTS = 5
const MAX_TAG_PAGES = 100

export const sha256Digest = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

const failed = (message: string, suggestions: string[] = []) => new LoadoutError('oci-request-failed', EXIT.network, message, {suggestions})

export const integrityMismatch = (what: string, expected: string, actual: string) =>
  new LoadoutError('integrity-mismatch', EXIT.integrity, `${what}: digest mismatch: expected ${expected}, got ${actual}`, {
    details: {expected, actual},
    suggestions: ["the registry served bytes other than the ones the digest names: nothing was written; tell the registry's operator"],
  })

interface Sent {
  response: IncomingMessage
  url: URL
}

interface SendOptions {
  method: string
  headers: Record<string, string>
  /** the bytes, or a file streamed from disk (its size known) */
  body?: Buffer | {file: string; size: number}
}

/** A failure worth another try: the connection broke or stalled, or the registry answered 429 or 5xx. */
class Transient extends Error {}

const BACKOFF_MS = [250, 1000, 2000]

/** A number from the environment, else `fallback`; below `min` or not a number is the fallback. */
const envNumber = (text: string | undefined, fallback: number, min: number): number => {
  const value = Number(text)
  return text !== undefined && text.trim() !== '' && Number.isFinite(value) && value >= min ? value : fallback
}

/** Reads a body up to `max` bytes; more is an error naming `what`. */
const readBody = async (response: IncomingMessage, max: number, what: string): Promise<Buffer> => {
  const declared = Number(response.headers['content-length'])
  if (Number.isFinite(declared) && declared > max) {
    response.destroy()
    throw failed(`${what} is ${declared} bytes; the limit is ${max}`)
  }
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of response as AsyncIterable<Buffer>) {
    total += chunk.length
    if (total > max) {
      response.destroy()
      throw failed(`${what} is larger than the limit of ${max} bytes`)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/** The registry's own words for a failure: the `code` of each error it listed, short. */
const registryErrors = async (response: IncomingMessage): Promise<string> => {
  try {
    const body = await readBody(response, MAX_ERROR_BYTES, 'an error body')
    const parsed = JSON.parse(body.toString('utf8')) as {errors?: Array<{code?: unknown}>}
    const codes = (parsed.errors ?? []).map((e) => (typeof e.code === 'string' ? e.code.replace(/[^A-Z_]/g, '').slice(0, 40) : '')).filter(Boolean)
    return codes.length > 0 ? ` (${codes.join(', ')})` : ''
  } catch {
    return ''
  }
}

/** `Bearer realm="...",service="...",scope="..."` or `Basic realm="..."` as a scheme and its parameters. */
export const parseChallenge = (header: string): {scheme: string; params: Record<string, string>} => {
  const match = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(header)
  const params: Record<string, string> = {}
  for (const param of (match?.[2] ?? '').matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[param[1]!.toLowerCase()] = param[2] === undefined ? param[3]! : param[2].replace(/\\(.)/g, '$1')
  }
  return {scheme: (match?.[1] ?? '').toLowerCase(), params}
}

export interface FetchedManifest {
  digest: string
  mediaType: string
  bytes: Buffer
}

export class OciClient {
  readonly origin: string
  private credentials: RegistryCredentials | undefined | null = null
  private readonly tokens = new Map<string, string>()
  private basicChallenged = false

  /** how long a request may stall (no byte either way): `LOADOUT_OCI_TIMEOUT` seconds, default 60 */
  private readonly timeoutMs: number
  /** how many more times a GET or HEAD is tried after a transient failure: `LOADOUT_OCI_RETRIES`, default 2 */
  private readonly retries: number

  constructor(
    readonly registry: string,
    private readonly env: Environment,
  ) {
    this.origin = `https://${registry}`
    this.timeoutMs = envNumber(env.vars.LOADOUT_OCI_TIMEOUT, 60, 1) * 1000
    this.retries = Math.floor(envNumber(env.vars.LOADOUT_OCI_RETRIES, 2, 0))
  }

  private async creds(): Promise<RegistryCredentials | undefined> {
    if (this.credentials === null) this.credentials = await registryCredentials(this.registry, this.env)
    return this.credentials
  }

  private basicHeader(creds: RegistryCredentials): string {
    return `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`
  }

  /** One try of one hop: a connection failure or a stall is a Transient, with what happened. */
  private once(url: URL, options: SendOptions, headers: Record<string, string>): Promise<IncomingMessage> {
    return new Promise<IncomingMessage>((resolveResponse, reject) => {
      const req = request(url, {method: options.method, headers, timeout: this.timeoutMs}, resolveResponse)
      req.on('timeout', () => req.destroy(Object.assign(new Error(`timed out after ${this.timeoutMs / 1000} s (LOADOUT_OCI_TIMEOUT)`), {code: 'ETIMEDOUT'})))
      req.on('error', (error: NodeJS.ErrnoException) =>
        reject(new Transient(`${options.method} ${url.origin}${url.pathname}: ${error.code === 'ETIMEDOUT' ? error.message : (error.code ?? error.message)}`)),
      )
      const body = options.body
      if (body === undefined || Buffer.isBuffer(body)) req.end(body)
      else {
        const file = createReadStream(body.file)
        file.on('error', (error) => req.destroy(error))
        file.pipe(req)
      }
    })
  }

  /**
   * One request and its redirects, each hop judged by the policy; Authorization only to `authOrigin`.
   * A GET or HEAD whose connection fails, stalls, or is answered 429 or 5xx is tried again (see
   * `retries`), after 250 ms, then 1 s, then 2 s; an upload is never sent twice.
   */
  private async send(start: URL, options: SendOptions, authorization: string | undefined, authOrigin: string): Promise<Sent> {
    const idempotent = options.method === 'GET' || options.method === 'HEAD'
    let url = start
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (url.protocol !== 'https:') throw failed(`refusing ${url.protocol}//${url.host}: registries are reached over https only`)
      if (url.username || url.password) throw failed('refusing a URL with credentials in it')
      this.env.judgeUrl?.(url)
      const headers: Record<string, string> = {'user-agent': 'loadout', ...options.headers}
      if (authorization && url.origin === authOrigin) headers.authorization = authorization
      if (options.body) headers['content-length'] = String(Buffer.isBuffer(options.body) ? options.body.length : options.body.size)
      let response: IncomingMessage | undefined
      for (let attempt = 0; response === undefined; attempt++) {
        const last = !idempotent || attempt >= this.retries
        try {
          const answer = await this.once(url, options, headers)
          const status = answer.statusCode ?? 0
          if (!last && (status === 429 || status >= 500)) {
            answer.resume()
            throw new Transient(`${options.method} ${url.origin}${url.pathname}: answered ${status}`)
          }
          response = answer
        } catch (error) {
          if (!(error instanceof Transient)) throw error
          if (last) throw failed(`${error.message}${attempt > 0 ? ` (after ${attempt + 1} tries; LOADOUT_OCI_RETRIES)` : ''}`)
          await new Promise((r) => setTimeout(r, BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]))
        }
      }
      const status = response.statusCode ?? 0
      const location = response.headers.location
      if ([301, 302, 303, 307, 308].includes(status) && idempotent) {
        response.resume()
        if (!location) throw failed(`${url.origin}${url.pathname} redirected without a location`)
        url = new URL(location, url)
        continue
      }
      return {response, url}
    }
    throw failed(`${start.origin}${start.pathname} redirected more than ${MAX_REDIRECTS} times`)
  }

  /** A token for `scope` from the realm the registry named, the credentials (if any) sent to it. */
  private async bearerToken(params: Record<string, string>, scope: string): Promise<string> {
    const realm = params.realm
    if (!realm) throw failed(`${this.registry} asked for a Bearer token without naming a realm`)
    let url: URL
    try {
      url = new URL(realm)
    } catch {
      throw failed(`${this.registry} named a token realm that is not a URL`)
    }
    if (params.service) url.searchParams.set('service', params.service)
    if (scope !== '') url.searchParams.set('scope', scope)
    const creds = await this.creds()
    const {response} = await this.send(url, {method: 'GET', headers: {accept: 'application/json'}}, creds ? this.basicHeader(creds) : undefined, url.origin)
    if (response.statusCode !== 200) {
      response.resume()
      throw this.unauthorized(response.statusCode ?? 0, creds !== undefined, `the token server of ${this.registry}`)
    }
    const body = await readBody(response, MAX_ERROR_BYTES, 'a token answer')
    let token: unknown
    try {
      const parsed = JSON.parse(body.toString('utf8')) as {token?: unknown; access_token?: unknown}
      token = parsed.token ?? parsed.access_token
    } catch {
      // reported below
    }
    if (typeof token !== 'string' || token === '') throw failed(`the token server of ${this.registry} answered without a token`)
    return token
  }

  private unauthorized(status: number, hadCredentials: boolean, who: string): LoadoutError {
    return new LoadoutError(
      'oci-unauthorized',
      EXIT.network,
      `${who} answered ${status}: ${hadCredentials ? 'the credentials were refused' : 'it needs credentials'}`,
      {
        suggestions: [`log in with docker login ${this.registry} (loadout reads ~/.docker/config.json and its credential helpers, and stores nothing)`],
      },
    )
  }

  /** A request to the registry, authenticated as its challenge asks; the response is any non-401 status. */
  async call(path: string, scope: string, options: SendOptions): Promise<Sent> {
    const url = new URL(path, this.origin)
    const first = await this.send(url, options, this.authorizationFor(scope), this.origin)
    if (first.response.statusCode !== 401) return first
    first.response.resume()
    const challenge = parseChallenge(String(first.response.headers['www-authenticate'] ?? ''))
    const creds = await this.creds()
    if (challenge.scheme === 'bearer') {
      this.tokens.set(scope, await this.bearerToken(challenge.params, scope))
    } else if (challenge.scheme === 'basic') {
      if (!creds || this.basicChallenged) throw this.unauthorized(401, creds !== undefined, this.registry)
      this.basicChallenged = true
    } else {
      throw failed(`${this.registry} answered 401 with an authentication scheme loadout does not speak (${challenge.scheme || 'none'})`)
    }
    const second = await this.send(url, options, this.authorizationFor(scope), this.origin)
    if (second.response.statusCode === 401) {
      second.response.resume()
      throw this.unauthorized(401, creds !== undefined, this.registry)
    }
    return second
  }

  private authorizationFor(scope: string): string | undefined {
    const token = this.tokens.get(scope)
    if (token) return `Bearer ${token}`
    if (this.basicChallenged && this.credentials) return this.basicHeader(this.credentials)
    return undefined
  }

  private async expect(sent: Sent, ok: number[], what: string): Promise<IncomingMessage> {
    const status = sent.response.statusCode ?? 0
    if (ok.includes(status)) return sent.response
    const said = await registryErrors(sent.response)
    if (status === 404) throw notFound('oci-not-found', `${what}: ${this.registry} has no such thing${said}`)
    if (status === 403) throw this.unauthorized(403, (await this.creds()) !== undefined, this.registry)
    throw failed(`${what}: ${this.registry} answered ${status}${said}`)
  }

  /** `GET /v2/`: whether the registry speaks the distribution API (and lets us in). */
  async ping(): Promise<void> {
    const sent = await this.call('/v2/', '', {method: 'GET', headers: {}})
    ;(await this.expect(sent, [200], 'ping')).resume()
  }

  async getManifest(repository: string, reference: string, accept: string = MANIFEST_MEDIA_TYPE): Promise<FetchedManifest> {
    const what = `manifest ${repository}${DIGEST.test(reference) ? '@' : ':'}${reference}`
    const sent = await this.call(`/v2/${repository}/manifests/${reference}`, pullScope(repository), {method: 'GET', headers: {accept}})
    const response = await this.expect(sent, [200], what)
    const bytes = await readBody(response, MAX_MANIFEST_BYTES, what)
    const digest = sha256Digest(bytes)
    if (DIGEST.test(reference) && digest !== reference) throw integrityMismatch(what, reference, digest)
    const served = response.headers['docker-content-digest']
    if (typeof served === 'string' && DIGEST.test(served) && served !== digest) throw integrityMismatch(what, served, digest)
    return {digest, mediaType: String(response.headers['content-type'] ?? ''), bytes}
  }

  async putManifest(repository: string, tag: string, bytes: Buffer, mediaType: string = MANIFEST_MEDIA_TYPE): Promise<string> {
    return (await this.put(repository, tag, bytes, mediaType)).digest
  }

  /**
   * Puts a manifest that names a `subject` under its own digest; `subjectAccepted` is whether the
   * registry answered `OCI-Subject` (it keeps the referrers itself) or not (the client keeps the
   * `sha256-<hex>` tag's index).
   */
  async putReferrer(repository: string, bytes: Buffer): Promise<{digest: string; subjectAccepted: boolean}> {
    const {digest, response} = await this.put(repository, sha256Digest(bytes), bytes, MANIFEST_MEDIA_TYPE)
    return {digest, subjectAccepted: typeof response.headers['oci-subject'] === 'string'}
  }

  private async put(repository: string, reference: string, bytes: Buffer, mediaType: string): Promise<{digest: string; response: IncomingMessage}> {
    const digest = sha256Digest(bytes)
    const what = `manifest ${repository}${DIGEST.test(reference) ? '@' : ':'}${reference}`
    const sent = await this.call(`/v2/${repository}/manifests/${reference}`, pushScope(repository), {
      method: 'PUT',
      headers: {'content-type': mediaType},
      body: bytes,
    })
    const response = await this.expect(sent, [201, 200], what)
    response.resume()
    const served = response.headers['docker-content-digest']
    if (typeof served === 'string' && served !== digest) throw integrityMismatch(what, digest, served)
    return {digest, response}
  }

  /** A manifest, or undefined when the registry has none under that reference. */
  async findManifest(repository: string, reference: string, accept: string = MANIFEST_MEDIA_TYPE): Promise<FetchedManifest | undefined> {
    try {
      return await this.getManifest(repository, reference, accept)
    } catch (error) {
      if (error instanceof LoadoutError && error.code === 'oci-not-found') return undefined
      throw error
    }
  }

  /**
   * `GET /v2/<name>/referrers/<digest>` (distribution spec 1.1): the image index the registry answers,
   * or undefined when it answers 404, as one without the referrers API does (the client then reads the
   * `sha256-<hex>` tag instead).
   */
  async referrersIndex(repository: string, digest: string): Promise<Buffer | undefined> {
    const what = `referrers of ${repository}@${digest}`
    const sent = await this.call(`/v2/${repository}/referrers/${digest}`, pullScope(repository), {method: 'GET', headers: {accept: INDEX_MEDIA_TYPE}})
    if (sent.response.statusCode === 404) {
      sent.response.resume()
      return undefined
    }
    return readBody(await this.expect(sent, [200], what), MAX_MANIFEST_BYTES, what)
  }

  async hasBlob(repository: string, digest: string): Promise<boolean> {
    const sent = await this.call(`/v2/${repository}/blobs/${digest}`, pushScope(repository), {method: 'HEAD', headers: {}})
    sent.response.resume()
    return sent.response.statusCode === 200
  }

  /** Uploads a blob unless the registry has it: POST for an upload location, then one monolithic PUT. */
  async pushBlob(repository: string, bytes: Buffer, mediaType: string): Promise<Descriptor> {
    return this.upload(repository, {mediaType, digest: sha256Digest(bytes), size: bytes.length}, bytes)
  }

  /** The same for a file, streamed from disk twice (once to hash it, once to send it), never held in memory. */
  async pushBlobFile(repository: string, file: string, mediaType: string): Promise<Descriptor> {
    const hash = createHash('sha256')
    let size = 0
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      hash.update(chunk)
      size += chunk.length
    }
    return this.upload(repository, {mediaType, digest: `sha256:${hash.digest('hex')}`, size}, {file, size})
  }

  private async upload(repository: string, descriptor: Descriptor, body: Buffer | {file: string; size: number}): Promise<Descriptor> {
    const {digest} = descriptor
    if (await this.hasBlob(repository, digest)) return descriptor
    const what = `blob upload to ${repository}`
    const started = await this.expect(await this.call(`/v2/${repository}/blobs/uploads/`, pushScope(repository), {method: 'POST', headers: {}}), [202], what)
    started.resume()
    const location = started.headers.location
    if (!location) throw failed(`${what}: the registry named no upload location`)
    const target = new URL(location, this.origin)
    if (target.origin !== this.origin)
      throw failed(`${what}: the registry sent the upload to another host (${target.host}); loadout uploads only to ${this.registry}`)
    target.searchParams.set('digest', digest)
    const put = await this.call(`${target.pathname}${target.search}`, pushScope(repository), {
      method: 'PUT',
      headers: {'content-type': 'application/octet-stream'},
      body,
    })
    ;(await this.expect(put, [201], what)).resume()
    return descriptor
  }

  /** A small blob in memory (a config, a catalog), its digest and size checked. */
  async getBlob(repository: string, descriptor: Descriptor, max: number): Promise<Buffer> {
    const what = `blob ${descriptor.digest} of ${repository}`
    if (descriptor.size > max) throw failed(`${what} is ${descriptor.size} bytes; the limit is ${max}`)
    const response = await this.expect(
      await this.call(`/v2/${repository}/blobs/${descriptor.digest}`, pullScope(repository), {method: 'GET', headers: {}}),
      [200],
      what,
    )
    const bytes = await readBody(response, descriptor.size, what)
    const digest = sha256Digest(bytes)
    if (digest !== descriptor.digest) throw integrityMismatch(what, descriptor.digest, digest)
    return bytes
  }

  /**
   * Streams a blob into `file` (created new), hashing as the bytes arrive: more bytes than the
   * descriptor's size stop the download at once, and a digest that differs at the end removes the file.
   */
  async downloadBlob(repository: string, descriptor: Descriptor, file: string, max: number): Promise<void> {
    const what = `blob ${descriptor.digest} of ${repository}`
    if (!DIGEST.test(descriptor.digest)) throw failed(`${what}: only sha256 digests are accepted`)
    if (!Number.isSafeInteger(descriptor.size) || descriptor.size < 0 || descriptor.size > max)
      throw failed(`${what} is ${descriptor.size} bytes; the limit is ${max}`)
    const response = await this.expect(
      await this.call(`/v2/${repository}/blobs/${descriptor.digest}`, pullScope(repository), {method: 'GET', headers: {}}),
      [200],
      what,
    )
    const hash: Hash = createHash('sha256')
    const out = createWriteStream(file, {flags: 'wx', mode: 0o600})
    let total = 0
    try {
      await new Promise<void>((done, reject) => {
        const stop = (error: Error): void => {
          response.destroy()
          out.destroy()
          reject(error)
        }
        out.on('error', stop)
        response.on('error', () => stop(failed(`${what}: the download was cut off`)))
        response.on('data', (chunk: Buffer) => {
          total += chunk.length
          if (total > descriptor.size) return stop(integrityMismatch(what, `${descriptor.size} bytes`, `more than ${descriptor.size} bytes`))
          hash.update(chunk)
          if (!out.write(chunk)) {
            response.pause()
            out.once('drain', () => response.resume())
          }
        })
        response.on('end', () => {
          const digest = `sha256:${hash.digest('hex')}`
          if (total !== descriptor.size) return stop(integrityMismatch(what, `${descriptor.size} bytes`, `${total} bytes`))
          if (digest !== descriptor.digest) return stop(integrityMismatch(what, descriptor.digest, digest))
          out.end(() => done())
        })
      })
    } catch (error) {
      await rm(file, {force: true})
      throw error
    }
  }

  /** Every tag of a repository, following the `Link: <...>; rel="next"` pages. */
  async listTags(repository: string, pageSize = 1000): Promise<string[]> {
    const tags: string[] = []
    let path: string | undefined = `/v2/${repository}/tags/list?n=${pageSize}`
    for (let page = 0; path !== undefined && page < MAX_TAG_PAGES; page++) {
      const response = await this.expect(
        await this.call(path, pullScope(repository), {method: 'GET', headers: {accept: 'application/json'}}),
        [200],
        `tags of ${repository}`,
      )
      const body = await readBody(response, MAX_MANIFEST_BYTES, `tags of ${repository}`)
      let parsed: {tags?: unknown}
      try {
        parsed = JSON.parse(body.toString('utf8')) as {tags?: unknown}
      } catch {
        throw failed(`tags of ${repository}: the registry answered something other than JSON`)
      }
      if (Array.isArray(parsed.tags)) tags.push(...parsed.tags.filter((t): t is string => typeof t === 'string'))
      const link = /<([^>]+)>\s*;\s*rel="?next"?/.exec(String(response.headers.link ?? ''))?.[1]
      const next = link === undefined ? undefined : new URL(link, this.origin)
      if (next && next.origin !== this.origin) throw failed(`tags of ${repository}: the next page is on another host (${next.host})`)
      path = next ? `${next.pathname}${next.search}` : undefined
    }
    return tags
  }
}

export const pullScope = (repository: string): string => `repository:${repository}:pull`
export const pushScope = (repository: string): string => `repository:${repository}:pull,push`
