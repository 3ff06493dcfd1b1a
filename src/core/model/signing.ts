/** A public key the user trusts to sign a source, as declared (`--signed-by`, loadout.json). */
export interface TrustedKey {
  format: 'ssh' | 'pgp'
  /** SSH: `SHA256:<base64>` as ssh-keygen prints it; OpenPGP: the primary key's fingerprint, upper-case hex */
  fingerprint: string
  /** the key's text: one `ssh-ed25519 AAAA…` line, or an armored OpenPGP public key block */
  key: string
}

/** A Sigstore identity the user trusts (`--signed-by-identity <issuer>=<subject>`): the OIDC issuer and the certificate's subject (SAN). */
export interface SigstoreIdentity {
  issuer: string
  subject: string
}

/** Who signed what loadout took: recorded in the marketplace record and in loadout.lock. */
export interface SignerSeen {
  format: 'ssh' | 'pgp' | 'sigstore'
  /** a key's fingerprint; for Sigstore, `<issuer>=<subject>` */
  fingerprint: string
}

/** The signer a verified Sigstore bundle names, as records keep it. */
export const sigstoreSigner = (identity: SigstoreIdentity): SignerSeen => ({format: 'sigstore', fingerprint: `${identity.issuer}=${identity.subject}`})
