/**
 * A Sigstore of the tests' own, with nothing sent to a public log: a Fulcio-like certificate
 * authority and signing certificates made with openssl (the identity in the SAN, the OIDC issuer in
 * extension 1.3.6.1.4.1.57264.1.8), and a transparency-log key that signs each bundle's inclusion
 * promise. `trustedRoot` is the trusted_root.json naming both; `bundle` signs bytes as cosign would
 * (a v0.1 bundle with a hashedrekord entry and its signed entry timestamp).
 */
import {createHash, createPrivateKey, generateKeyPairSync, sign} from 'node:crypto'
import {execFileSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

const der = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64')

/** JSON with keys sorted and no spaces (RFC 8785 for the plain values used here), as Rekor canonicalizes. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  return JSON.stringify(value)
}

export interface TestSigstore {
  /** trusted_root.json for LOADOUT_SIGSTORE_TRUSTED_ROOT */
  trustedRoot: string
  /** a bundle signing `bytes` with a fresh certificate for issuer + subject */
  bundle(bytes: Buffer, identity: {issuer: string; subject: string}): object
  /** a DSSE bundle (an attestation, as npm serves provenance) over `payload`, signed for issuer + subject */
  dsseBundle(payload: Buffer, payloadType: string, identity: {issuer: string; subject: string}): object
}

export const makeTestSigstore = (dir: string): TestSigstore => {
  const openssl = (args: string[]) => execFileSync('openssl', args, {cwd: dir, stdio: ['ignore', 'pipe', 'pipe']})
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'])
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-subj',
    '/O=loadout-test/CN=test-fulcio',
    '-days',
    '30',
    '-out',
    'ca.pem',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ])
  const log = generateKeyPairSync('ec', {namedCurve: 'P-256'})
  const logDer = log.publicKey.export({type: 'spki', format: 'der'})
  const logId = createHash('sha256').update(logDer).digest()
  const trustedRoot = join(dir, 'trusted_root.json')
  writeFileSync(
    trustedRoot,
    JSON.stringify({
      mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
      tlogs: [
        {
          baseUrl: 'https://tlog.invalid',
          hashAlgorithm: 'SHA2_256',
          publicKey: {rawBytes: logDer.toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: {start: '2020-01-01T00:00:00Z'}},
          logId: {keyId: logId.toString('base64')},
        },
      ],
      certificateAuthorities: [
        {
          subject: {organization: 'loadout-test', commonName: 'test-fulcio'},
          uri: 'https://fulcio.invalid',
          certChain: {certificates: [{rawBytes: der(readFileSync(join(dir, 'ca.pem'), 'utf8')).toString('base64')}]},
          validFor: {start: '2020-01-01T00:00:00Z'},
        },
      ],
      ctlogs: [],
      timestampAuthorities: [],
    }),
  )
  let serial = 0
  /** A fresh signing certificate for issuer + subject, signed by the test CA. */
  const leafFor = (identity: {issuer: string; subject: string}): {n: number; pem: string; key: ReturnType<typeof createPrivateKey>} => {
    const n = ++serial
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `leaf${n}.key`])
    openssl(['req', '-new', '-key', `leaf${n}.key`, '-subj', '/O=loadout-test', '-out', `leaf${n}.csr`])
    const san = identity.subject.includes('@') && !identity.subject.includes('://') ? `email:${identity.subject}` : `URI:${identity.subject}`
    writeFileSync(
      join(dir, `leaf${n}.ext`),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=codeSigning',
        `subjectAltName=critical,${san}`,
        `1.3.6.1.4.1.57264.1.8=ASN1:UTF8String:${identity.issuer}`,
      ].join('\n'),
    )
    openssl([
      'x509',
      '-req',
      '-in',
      `leaf${n}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      String(1000 + n),
      '-days',
      '10',
      '-out',
      `leaf${n}.pem`,
      '-extfile',
      `leaf${n}.ext`,
    ])
    return {n, pem: readFileSync(join(dir, `leaf${n}.pem`), 'utf8'), key: createPrivateKey(readFileSync(join(dir, `leaf${n}.key`)))}
  }
  /** The bundle's verification material: the certificate and a log entry for `body` with its inclusion promise. */
  const material = (n: number, leafPem: string, kind: string, version: string, entry: object) => {
    const body = Buffer.from(canonical({apiVersion: version, kind, spec: entry}))
    // after the certificate was made: a signing certificate is valid from the second openssl wrote it
    const integratedTime = Math.floor(Date.now() / 1000) + 1
    const promise = sign(
      'sha256',
      Buffer.from(canonical({body: body.toString('base64'), integratedTime, logIndex: n, logID: logId.toString('hex')})),
      log.privateKey,
    )
    return {
      x509CertificateChain: {certificates: [{rawBytes: der(leafPem).toString('base64')}]},
      tlogEntries: [
        {
          logIndex: String(n),
          logId: {keyId: logId.toString('base64')},
          kindVersion: {kind, version},
          integratedTime: String(integratedTime),
          inclusionPromise: {signedEntryTimestamp: promise.toString('base64')},
          canonicalizedBody: body.toString('base64'),
        },
      ],
    }
  }
  const bundle = (bytes: Buffer, identity: {issuer: string; subject: string}): object => {
    const leaf = leafFor(identity)
    const digest = createHash('sha256').update(bytes).digest()
    const signature = sign('sha256', bytes, leaf.key)
    return {
      mediaType: 'application/vnd.dev.sigstore.bundle+json;version=0.1',
      verificationMaterial: material(leaf.n, leaf.pem, 'hashedrekord', '0.0.1', {
        data: {hash: {algorithm: 'sha256', value: digest.toString('hex')}},
        signature: {content: signature.toString('base64'), publicKey: {content: Buffer.from(leaf.pem).toString('base64')}},
      }),
      messageSignature: {messageDigest: {algorithm: 'SHA2_256', digest: digest.toString('base64')}, signature: signature.toString('base64')},
    }
  }
  const dsseBundle = (payload: Buffer, payloadType: string, identity: {issuer: string; subject: string}): object => {
    const leaf = leafFor(identity)
    // DSSE signs its pre-authentication encoding, not the payload alone
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `), payload])
    const signature = sign('sha256', pae, leaf.key)
    return {
      mediaType: 'application/vnd.dev.sigstore.bundle+json;version=0.1',
      verificationMaterial: material(leaf.n, leaf.pem, 'dsse', '0.0.1', {
        payloadHash: {algorithm: 'sha256', value: createHash('sha256').update(payload).digest('hex')},
        signatures: [{signature: signature.toString('base64'), verifier: Buffer.from(leaf.pem).toString('base64')}],
      }),
      dsseEnvelope: {payload: payload.toString('base64'), payloadType, signatures: [{keyid: '', sig: signature.toString('base64')}]},
    }
  }
  return {trustedRoot, bundle, dsseBundle}
}
