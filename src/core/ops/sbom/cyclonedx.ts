import {randomUUID} from '../../kernel/crypto/node-crypto.js'
import type {Inventory, InventoryPlugin} from './inventory.js'

/** A CycloneDX 1.6 JSON BOM: each plugin a component, each file it wrote a nested `file` component with its SHA-256. */
const property = (name: string, value: string | undefined) => (value === undefined ? [] : [{name: `loadout:${name}`, value}])

const SHA256 = /^[0-9a-f]{64}$/i

const pluginComponent = (p: InventoryPlugin) => ({
  type: 'library',
  'bom-ref': `plugin:${p.scope}:${p.id}`,
  ...(p.marketplace ? {group: p.marketplace} : {}),
  name: p.name,
  ...(p.version ? {version: p.version} : {}),
  ...(p.archiveSha256 && SHA256.test(p.archiveSha256) ? {hashes: [{alg: 'SHA-256', content: p.archiveSha256.toLowerCase()}]} : {}),
  ...(p.commit ? {pedigree: {commits: [{uid: p.commit}]}} : {}),
  properties: [
    ...property('id', p.id),
    ...property('scope', p.scope),
    ...property('source', p.source),
    ...property('commit', p.commit),
    ...property('integrity', p.integrity),
    ...property('targets', p.targets.join(',')),
  ],
  components: p.files.map((f) => ({
    type: 'file',
    'bom-ref': `file:${p.scope}:${f.target}:${f.path}`,
    name: f.path,
    hashes: SHA256.test(f.sha256) ? [{alg: 'SHA-256', content: f.sha256.toLowerCase()}] : [],
    properties: [...property('target', f.target), ...property('component', f.component)],
  })),
})

export const cycloneDxBom = (inventory: Inventory, now: Date = new Date()) => ({
  $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  serialNumber: `urn:uuid:${randomUUID()}`,
  version: 1,
  metadata: {
    timestamp: now.toISOString(),
    tools: {components: [{type: 'application', name: inventory.tool.name, version: inventory.tool.version}]},
    properties: property('scopes', inventory.scopes.join(',')),
  },
  components: inventory.plugins.map(pluginComponent),
})
