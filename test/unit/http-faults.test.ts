import nock from 'nock'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {LoadoutError} from '../../src/core/model/errors.js'
import {httpGet} from '../../src/core/kernel/sources/http.js'

// nock is for faults a real server will not produce on demand; everything else is tested against
// the real HTTPS server in test/support.
const env = (vars: Record<string, string> = {}): Environment => ({vars, home: '/nonexistent', cwd: '/', platform: 'linux', interactive: false})
const fast = {backoffMs: [5, 5]}
const HOST = 'https://catalog.test'
const TOKEN = 'tok_SECRET_12345'

beforeAll(() => nock.disableNetConnect())
afterEach(() => nock.cleanAll())

const failure = async (p: Promise<unknown>): Promise<LoadoutError> => {
  try {
    await p
  } catch (error) {
    expect(error).toBeInstanceOf(LoadoutError)
    return error as LoadoutError
  }
  throw new Error('expected a failure')
}

describe('httpGet faults', () => {
  it('retries a reset connection and gives up after 3 tries', async () => {
    const scope = nock(HOST).get('/c.json').times(3).replyWithError({code: 'ECONNRESET', message: 'socket hang up'})
    const error = await failure(httpGet(`${HOST}/c.json`, {env: env(), maxBytes: 1000, ...fast}))
    expect(error.exitStatus).toBe(6)
    expect(error.message).toMatch(/after 3 tries/)
    expect(scope.isDone()).toBe(true)
  })

  it('a 503 then a 200 succeeds on the second try', async () => {
    nock(HOST).get('/c.json').reply(503).get('/c.json').reply(200, '{"name":"x","plugins":[]}')
    const result = await httpGet(`${HOST}/c.json`, {env: env(), maxBytes: 1000, ...fast})
    expect(result.status).toBe('ok')
    expect(result.status === 'ok' && result.body.toString()).toContain('"plugins"')
  })

  it('a 404 is final at once (no retry)', async () => {
    const scope = nock(HOST).get('/c.json').once().reply(404)
    const error = await failure(httpGet(`${HOST}/c.json`, {env: env(), maxBytes: 1000, ...fast}))
    expect(error.exitStatus).toBe(3)
    expect(scope.isDone()).toBe(true)
    expect(nock.pendingMocks()).toEqual([])
  })

  it('a slow body times out', async () => {
    nock(HOST).get('/c.json').times(3).delay(2000).reply(200, '{}')
    const error = await failure(httpGet(`${HOST}/c.json`, {env: env(), maxBytes: 1000, timeoutMs: 200, ...fast}))
    expect(error.message).toMatch(/timed out|aborted/i)
  })

  it('refuses a 200 with 50 MB beyond the cap, declared or streamed', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024, 0x20)
    nock(HOST)
      .get('/declared.json')
      .reply(200, big, {'content-length': String(big.length)})
    const declared = await failure(httpGet(`${HOST}/declared.json`, {env: env(), maxBytes: 1024 * 1024, ...fast}))
    expect(declared.message).toMatch(/limit/)
    nock(HOST)
      .get('/streamed.json')
      .reply(200, () => big)
    const streamed = await failure(httpGet(`${HOST}/streamed.json`, {env: env(), maxBytes: 1024 * 1024, ...fast}))
    expect(streamed.message).toMatch(/limit/)
  })

  it('refuses a redirect to http', async () => {
    nock(HOST).get('/c.json').reply(302, '', {location: 'http://catalog.test/plain.json'})
    const error = await failure(httpGet(`${HOST}/c.json`, {env: env(), maxBytes: 1000, ...fast}))
    expect(error.message).toMatch(/must use https/)
  })

  it('drops the token when a redirect changes origin, and never puts it in a message', async () => {
    let seenAtOrigin: string | undefined
    let seenElsewhere: string | undefined = 'unset'
    nock(HOST)
      .get('/c.json')
      .reply(function () {
        seenAtOrigin = this.req.headers.authorization as string | undefined
        return [302, '', {location: 'https://elsewhere.test/c.json'}]
      })
    nock('https://elsewhere.test')
      .get('/c.json')
      .reply(function () {
        seenElsewhere = this.req.headers.authorization as string | undefined
        return [200, '{"name":"x","plugins":[]}']
      })
    const result = await httpGet(`${HOST}/c.json`, {env: env({LOADOUT_TOKEN: TOKEN}), maxBytes: 1000, tokenOrigin: new URL(HOST).origin, ...fast})
    expect(result.status).toBe('ok')
    expect(seenAtOrigin).toBe(`Bearer ${TOKEN}`)
    expect(seenElsewhere).toBeUndefined()

    nock(HOST).get('/gone.json').reply(401)
    const error = await failure(httpGet(`${HOST}/gone.json`, {env: env({LOADOUT_TOKEN: TOKEN}), maxBytes: 1000, ...fast}))
    expect(JSON.stringify(error.toJSON())).not.toContain(TOKEN)
  })

  it('sends GITHUB_TOKEN only to GitHub hosts', async () => {
    let seen: string | undefined = 'unset'
    nock(HOST)
      .get('/c.json')
      .reply(function () {
        seen = this.req.headers.authorization as string | undefined
        return [200, '{}']
      })
    await httpGet(`${HOST}/c.json`, {env: env({GITHUB_TOKEN: TOKEN}), maxBytes: 1000, ...fast})
    expect(seen).toBeUndefined()
  })

  it('reuses an ETag: a 304 says not modified', async () => {
    nock(HOST).get('/c.json').matchHeader('if-none-match', '"v1"').reply(304)
    const result = await httpGet(`${HOST}/c.json`, {env: env(), maxBytes: 1000, etag: '"v1"', ...fast})
    expect(result.status).toBe('not-modified')
  })
})
