import {randomUUID} from '../../kernel/crypto/node-crypto.js'
import type {Inventory, InventoryPlugin} from './inventory.js'

/**
 * An SPDX 2.3 JSON document: each plugin a package, each file it wrote an SPDX file with its SHA256,
 * related by CONTAINS. Licences are not determined (NOASSERTION).
 */
const SPDX_ID_UNSAFE = /[^A-Za-z0-9.-]/g
const spdxId = (kind: string, n: number, hint: string) => `SPDXRef-${kind}-${n}-${hint.replace(SPDX_ID_UNSAFE, '-').slice(0, 60)}`

/** Where the package can be fetched, in SPDX's `<vcs>+<url>@<commit>` form when known. */
const downloadLocation = (p: InventoryPlugin): string => {
  const url = /^https:\/\/\S+$/.exec(p.source)?.[0]
  if (!url) return 'NOASSERTION'
  if (p.archiveSha256) return url
  return p.commit ? `git+${url}@${p.commit}` : `git+${url}`
}

export const spdxDocument = (inventory: Inventory, now: Date = new Date()) => {
  const packages: Array<Record<string, unknown>> = []
  const files: Array<Record<string, unknown>> = []
  const relationships: Array<{spdxElementId: string; relationshipType: string; relatedSpdxElement: string}> = []
  let fileCount = 0
  inventory.plugins.forEach((p, i) => {
    const id = spdxId('Package', i + 1, `${p.scope}-${p.id}`)
    packages.push({
      SPDXID: id,
      name: p.id,
      ...(p.version ? {versionInfo: p.version} : {}),
      downloadLocation: downloadLocation(p),
      filesAnalyzed: false,
      ...(p.archiveSha256 ? {checksums: [{algorithm: 'SHA256', checksumValue: p.archiveSha256.toLowerCase()}]} : {}),
      sourceInfo: `${p.scope} scope; from ${p.source}${p.commit ? ` at commit ${p.commit}` : ''}; loadout integrity ${p.integrity}; agents ${p.targets.join(', ')}`,
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      copyrightText: 'NOASSERTION',
    })
    relationships.push({spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: id})
    for (const f of p.files) {
      const fileId = spdxId('File', ++fileCount, f.path.split('/').pop() ?? 'file')
      files.push({
        SPDXID: fileId,
        fileName: f.path.startsWith('~/') || f.path.startsWith('/') ? f.path : `./${f.path}`,
        checksums: [{algorithm: 'SHA256', checksumValue: f.sha256.toLowerCase()}],
        licenseConcluded: 'NOASSERTION',
        copyrightText: 'NOASSERTION',
        comment: `written by loadout for ${p.id} into ${f.target}`,
      })
      relationships.push({spdxElementId: id, relationshipType: 'CONTAINS', relatedSpdxElement: fileId})
    }
  })
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `loadout-installed-${inventory.scopes.join('-')}`,
    documentNamespace: `urn:uuid:${randomUUID()}`,
    creationInfo: {created: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), creators: [`Tool: ${inventory.tool.name}-${inventory.tool.version}`]},
    packages,
    files,
    relationships,
  }
}
