/**
 * The OCI distribution client (src/core/kernel/oci) in-process against the real CNCF distribution
 * registry on 127.0.0.1 (test/support/oci-registry.ts): tag-list pages, a blob that is longer than its
 * descriptor or other than its digest stopped while it streams and its file removed, the policy's
 * judgeUrl consulted before every request; plus the reference parser and Docker's credential sources.
 */
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {globalAgent} from 'node:https'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {rootCertificates} from 'node:tls'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {OciClient, sha256Digest} from '../../src/core/kernel/oci/client.js'
import {registryCredentials} from '../../src/core/kernel/oci/credentials.js'
import {formatOciReference, parseOciReference} from '../../src/core/kernel/oci/reference.js'
import {LoadoutError} from '../../src/core/model/errors.js'
import {startOciRegistry, type OciRegistry} from '../support/oci-registry.js'

let registry: OciRegistry
let home: string
const temporary: string[] = []
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temporary.push(dir)
  return dir
}

const envWith = (judged: URL[] = [], block?: string): Environment => ({
  vars: {},
  home,
  cwd: home,
  judgeUrl: (url) => {
    judged.push(url)
    if (block && url.host === block) throw new LoadoutError('policy-refused', 11, `blocked ${url.host}`)
  },
})

beforeAll(async () => {
  registry = await startOciRegistry()
  // the in-process client trusts the test CA as a child process would through NODE_EXTRA_CA_CERTS
  globalAgent.options.ca = [...rootCertificates, registry.ca.caCert]
  home = mkdtempSync(join(tmpdir(), 'loadout-oci-unit-'))
  mkdirSync(join(home, '.docker'))
  writeFileSync(
    join(home, '.docker', 'config.json'),
    JSON.stringify({auths: {[`https://${registry.host}/v1/`]: {auth: Buffer.from(`${registry.username}:${registry.password}`).toString('base64')}}}),
  )
}, 60_000)

afterAll(async () => {
  await registry?.stop()
  for (const dir of [home, ...temporary]) rmSync(dir, {recursive: true, force: true})
})

describe('OciClient against the distribution registry', () => {
  it('lists every tag across Link pages', async () => {
    const client = new OciClient(registry.host, envWith())
    const config = await client.pushBlob('acme/paged', Buffer.from('{}'), 'application/vnd.oci.empty.v1+json')
    const tags = ['1.0.0', '1.1.0', '1.2.0', '2.0.0', 'latest']
    for (const tag of tags) {
      const manifest = {
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        artifactType: 'application/x-test',
        config,
        layers: [],
        annotations: {tag},
      }
      await client.putManifest('acme/paged', tag, Buffer.from(JSON.stringify(manifest)))
    }
    expect((await client.listTags('acme/paged', 2)).sort()).toEqual(tags)
  }, 30_000)

  it('stops a blob that runs past its descriptor or differs from its digest, and removes the file', async () => {
    const judged: URL[] = []
    const client = new OciClient(registry.host, envWith(judged))
    const bytes = Buffer.from('the bytes of a layer, long enough to cut short')
    const descriptor = await client.pushBlob('acme/blobs', bytes, 'application/octet-stream')
    const dir = mkdtempSync(join(tmpdir(), 'loadout-oci-blob-'))
    try {
      await client.downloadBlob('acme/blobs', descriptor, join(dir, 'ok'), 1024)
      const short = {...descriptor, size: bytes.length - 5}
      await expect(client.downloadBlob('acme/blobs', short, join(dir, 'short'), 1024)).rejects.toMatchObject({code: 'integrity-mismatch', exitStatus: 7})
      expect(existsSync(join(dir, 'short'))).toBe(false)
      registry.tamperBlob(descriptor.digest)
      await expect(client.downloadBlob('acme/blobs', descriptor, join(dir, 'tampered'), 1024)).rejects.toMatchObject({code: 'integrity-mismatch'})
      expect(existsSync(join(dir, 'tampered'))).toBe(false)
      await expect(client.downloadBlob('acme/blobs', descriptor, join(dir, 'big'), 10)).rejects.toMatchObject({code: 'oci-request-failed'})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
    // every request was judged by the policy first, on the registry's host
    expect(judged.length).toBeGreaterThan(4)
    expect(new Set(judged.map((u) => u.host))).toEqual(new Set([registry.host]))
  }, 30_000)

  it('sends nothing to a host the policy refuses', async () => {
    const judged: URL[] = []
    const client = new OciClient(registry.host, envWith(judged, registry.host))
    await expect(client.getManifest('acme/paged', 'latest')).rejects.toMatchObject({code: 'policy-refused'})
    expect(judged).toHaveLength(1)
  })

  it('checks a manifest fetched by digest against that digest', async () => {
    const client = new OciClient(registry.host, envWith())
    const {digest, bytes} = await client.getManifest('acme/paged', '1.0.0')
    expect(digest).toBe(sha256Digest(bytes))
    expect((await client.getManifest('acme/paged', digest)).bytes.equals(bytes)).toBe(true)
  })
})

describe('oci:// references', () => {
  it('reads a tag, a digest, both, a range, and a registry port', () => {
    const digest = `sha256:${'a'.repeat(64)}`
    expect(parseOciReference('oci://ghcr.io/acme/kit:1.2.0')).toEqual({registry: 'ghcr.io', repository: 'acme/kit', tag: '1.2.0'})
    expect(parseOciReference(`oci://127.0.0.1:5000/acme/kit@${digest}`)).toEqual({registry: '127.0.0.1:5000', repository: 'acme/kit', digest})
    expect(parseOciReference(`oci://r.example/a/b/c:v1@${digest}`)).toEqual({registry: 'r.example', repository: 'a/b/c', tag: 'v1', digest})
    expect(parseOciReference('oci://r.example/acme/kit:^1.2')).toEqual({registry: 'r.example', repository: 'acme/kit', range: '^1.2'})
    expect(parseOciReference('oci://r.example/acme/kit')).toEqual({registry: 'r.example', repository: 'acme/kit'})
    expect(formatOciReference(parseOciReference(`oci://R.Example/acme/kit:1.0@${digest}`))).toBe(`oci://r.example/acme/kit:1.0@${digest}`)
  })

  it('refuses credentials, an upper-case repository, a short digest, a range with a digest', () => {
    for (const input of [
      'oci://user:pw@r.example/acme/kit:1',
      'oci://r.example/Acme/kit:1',
      'oci://r.example/acme/kit@sha256:abc',
      `oci://r.example/acme/kit:^1@sha256:${'a'.repeat(64)}`,
      'oci://r.example',
      'oci://r.example/acme/kit:$(id)',
    ]) {
      expect(() => parseOciReference(input), input).toThrow(expect.objectContaining({code: 'invalid-oci-reference', exitStatus: 2}))
    }
  })
})

describe("Docker's credentials", () => {
  const withConfig = (config: unknown, path?: string): Environment => {
    const dir = tempDir('loadout-oci-creds-')
    mkdirSync(join(dir, '.docker'))
    writeFileSync(join(dir, '.docker', 'config.json'), JSON.stringify(config))
    return {vars: {PATH: path ?? process.env.PATH}, home: dir, cwd: dir}
  }

  it('reads auths (any key spelling of the host), then a credential helper, else none', async () => {
    const auth = Buffer.from('me:s3cret:with-colon').toString('base64')
    expect(await registryCredentials('r.example', withConfig({auths: {'https://r.example/v1/': {auth}}}))).toEqual({
      username: 'me',
      password: 's3cret:with-colon',
    })
    expect(await registryCredentials('other.example', withConfig({auths: {'r.example': {auth}}}))).toBeUndefined()

    const bin = tempDir('loadout-oci-helper-')
    writeFileSync(
      join(bin, 'docker-credential-unit'),
      '#!/bin/sh\nread host\n[ "$host" = r.example ] || { echo "credentials not found"; exit 1; }\necho \'{"Username":"helper","Secret":"from-helper"}\'\n',
      {mode: 0o755},
    )
    const path = `${bin}:${process.env.PATH}`
    expect(await registryCredentials('r.example', withConfig({credHelpers: {'r.example': 'unit'}}, path))).toEqual({
      username: 'helper',
      password: 'from-helper',
    })
    expect(await registryCredentials('r.example', withConfig({credsStore: 'unit'}, path))).toEqual({username: 'helper', password: 'from-helper'})
    expect(await registryCredentials('else.example', withConfig({credsStore: 'unit'}, path))).toBeUndefined()
    await expect(registryCredentials('r.example', withConfig({credsStore: 'missing'}, path))).rejects.toMatchObject({code: 'credential-helper-failed'})
    await expect(registryCredentials('r.example', withConfig({credsStore: '../evil'}, path))).rejects.toMatchObject({code: 'credential-helper-failed'})
  })
})
