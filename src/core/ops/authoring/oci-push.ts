/**
 * Publishing to an OCI registry. `plugin push <dir> oci://host/repo:tag`: the plugin must pass
 * `plugin validate`; its regular files are packed deterministically (sorted, no mtimes, portable
 * headers) into one tar+gzip layer, pushed with the empty config and an OCI image manifest 1.1 whose
 * artifactType is loadout's plugin type, annotated with title, version, description and source.
 * `marketplace push <dir> oci://...`: the catalog's plugins in the marketplace folder are pushed as
 * plugins (to `<repo>/<plugin>:<version>`) and every entry is rewritten to the digest it was pushed at
 * (an `oci` entry with a tag is pinned to its digest), then the catalog JSON is pushed as one layer.
 */
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {create} from 'tar'
import type {Environment} from '../../kernel/env/environment.js'
import {usageError, validationFailed} from '../../model/errors.js'
import {OciClient} from '../../kernel/oci/client.js'
import {
  ANNOTATION,
  CATALOG_ARTIFACT_TYPE,
  CATALOG_LAYER_MEDIA_TYPE,
  EMPTY_CONFIG,
  EMPTY_CONFIG_MEDIA_TYPE,
  LAYER_MEDIA_TYPE,
  MANIFEST_MEDIA_TYPE,
  PLUGIN_ARTIFACT_TYPE,
  type ArtifactManifest,
  type Descriptor,
} from '../../kernel/oci/media-types.js'
import {formatOciReference, parseOciReference, TAG, type OciReference} from '../../kernel/oci/reference.js'
import {resolveOci} from '../../kernel/sources/kinds/oci.js'
import {findCatalogFile, catalogRootOf} from '../../kernel/marketplace/fetch.js'
import {inspectPlugin} from '../../kernel/plugin/read.js'
import {isInside} from '../../kernel/fs/contain.js'
import {packageFiles} from './plugin-pack.js'
import {validatePlugin} from './plugin-validate.js'

export interface PushedPlugin {
  plugin: string
  version?: string
  /** `oci://host/repo:tag@sha256:...` */
  reference: string
  registry: string
  repository: string
  tag: string
  /** the manifest digest */
  digest: string
  layer: Descriptor
  files: number
}

export interface PushedCatalog {
  marketplace: string
  reference: string
  registry: string
  repository: string
  tag: string
  digest: string
  plugins: Array<{name: string; reference: string}>
}

export interface PushOptions {
  env: Environment
}

/** The reference to push to: a tag, never a digest or a range. */
const pushTarget = (target: string): OciReference & {tag: string} => {
  const ref = parseOciReference(target)
  if (ref.digest !== undefined || ref.range !== undefined || ref.tag === undefined)
    throw usageError('oci-push-needs-tag', `${formatOciReference(ref)}: push to a tag (oci://host/repo:1.2.0); the digest is what the push prints`, {
      suggestions: ['name the tag to push to, e.g. its version'],
    })
  return {...ref, tag: ref.tag}
}

/**
 * The plugin's files as a gzipped tar in a temporary folder: sorted, relative, no mtimes or owners, so
 * the same folder gives the same digest. The layer is streamed from there to the registry.
 */
const withLayer = async <T>(root: string, files: readonly string[], use: (file: string) => Promise<T>): Promise<T> => {
  const dir = await mkdtemp(join(tmpdir(), 'loadout-push-'))
  try {
    const file = join(dir, 'layer.tar.gz')
    await create({gzip: true, file, cwd: root, portable: true, noMtime: true}, [...files])
    return await use(file)
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}

const manifestBytes = (artifactType: string, config: Descriptor, layer: Descriptor, annotations: Record<string, string>): Buffer => {
  const manifest: ArtifactManifest = {schemaVersion: 2, mediaType: MANIFEST_MEDIA_TYPE, artifactType, config, layers: [layer], annotations}
  return Buffer.from(JSON.stringify(manifest))
}

const pushPluginTo = async (root: string, target: OciReference & {tag: string}, client: OciClient, home: string): Promise<PushedPlugin> => {
  const validation = await validatePlugin(root, {home})
  if (validation.errors > 0)
    throw validationFailed('push-invalid', `plugin "${validation.name}" has ${validation.errors} error(s); a plugin is pushed only when it passes validation`, {
      suggestions: [`loadout plugin validate ${root}`],
      details: {problems: validation.problems},
    })
  const {model} = inspectPlugin(root, {home})
  const files = packageFiles(root, 'a pushed plugin')
  const config = await client.pushBlob(target.repository, EMPTY_CONFIG, EMPTY_CONFIG_MEDIA_TYPE)
  const pushedLayer = await withLayer(root, files, (file) => client.pushBlobFile(target.repository, file, LAYER_MEDIA_TYPE))
  const layer = {...pushedLayer, annotations: {[ANNOTATION.title]: `${model.name}.tar.gz`}}
  const annotations: Record<string, string> = {
    [ANNOTATION.title]: model.name,
    ...(model.version ? {[ANNOTATION.version]: model.version} : {}),
    ...(model.description ? {[ANNOTATION.description]: model.description.slice(0, 1000)} : {}),
    [ANNOTATION.source]: formatOciReference({registry: target.registry, repository: target.repository}),
  }
  const digest = await client.putManifest(target.repository, target.tag, manifestBytes(PLUGIN_ARTIFACT_TYPE, config, layer, annotations))
  return {
    plugin: model.name,
    ...(model.version ? {version: model.version} : {}),
    reference: formatOciReference({...target, digest}),
    registry: target.registry,
    repository: target.repository,
    tag: target.tag,
    digest,
    layer,
    files: files.length,
  }
}

/** `loadout plugin push <dir> <oci://host/repo:tag>`. */
export const pushPlugin = async (path: string, target: string, options: PushOptions): Promise<PushedPlugin> => {
  const ref = pushTarget(target)
  return pushPluginTo(resolve(path), ref, new OciClient(ref.registry, options.env), options.env.home)
}

type RawEntry = Record<string, unknown> & {name?: unknown; source?: unknown; version?: unknown}

/** The entry's source pointed at the digest its plugin was pushed at, or pinned when it was an oci tag. */
const pinnedEntry = async (entry: RawEntry, root: string, target: OciReference, client: OciClient, env: Environment): Promise<RawEntry> => {
  const name = typeof entry.name === 'string' ? entry.name : ''
  const source = entry.source
  const relativePath =
    typeof source === 'string'
      ? source
      : source && typeof source === 'object' && (source as RawEntry).source === 'local'
        ? (source as {path?: unknown}).path
        : undefined
  if (typeof relativePath === 'string') {
    const folder = resolve(root, relativePath)
    if (!isInside(root, folder)) throw validationFailed('push-source-outside', `plugin "${name}": ${relativePath} is outside the marketplace folder`)
    const version = typeof entry.version === 'string' && TAG.test(entry.version) ? entry.version : 'latest'
    const repository = `${target.repository}/${name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}`
    const pushed = await pushPluginTo(folder, {registry: target.registry, repository, tag: version}, client, env.home)
    return {...entry, source: {source: 'oci', ref: pushed.reference}}
  }
  if (source && typeof source === 'object' && (source as RawEntry).source === 'oci' && typeof (source as {ref?: unknown}).ref === 'string') {
    const ref = parseOciReference((source as {ref: string}).ref)
    if (ref.digest) return entry
    const other = ref.registry === target.registry ? client : new OciClient(ref.registry, env)
    const {digest, tag} = await resolveOci(ref, other)
    return {...entry, source: {source: 'oci', ref: formatOciReference({registry: ref.registry, repository: ref.repository, ...(tag ? {tag} : {}), digest})}}
  }
  return entry
}

/** `loadout marketplace push <dir> <oci://host/repo:tag>`. */
export const pushCatalog = async (path: string, target: string, options: PushOptions): Promise<PushedCatalog> => {
  const ref = pushTarget(target)
  const file = findCatalogFile(resolve(path))
  if (!file)
    throw usageError('no-catalog', `${resolve(path)} holds no .claude-plugin/marketplace.json or .agents/plugins/marketplace.json`, {
      suggestions: ['create one with: loadout marketplace create <name>'],
    })
  const root = catalogRootOf(file)
  let catalog: Record<string, unknown>
  try {
    catalog = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
  } catch {
    throw validationFailed('catalog-invalid-json', `${file} is not valid JSON`, {suggestions: [`loadout marketplace validate ${path}`]})
  }
  if (!catalog || typeof catalog !== 'object' || typeof catalog.name !== 'string' || !Array.isArray(catalog.plugins))
    throw validationFailed('catalog-invalid', `${file} needs a "name" and a "plugins" list`, {suggestions: [`loadout marketplace validate ${path}`]})
  const client = new OciClient(ref.registry, options.env)
  const plugins: RawEntry[] = []
  for (const entry of catalog.plugins as RawEntry[])
    plugins.push(entry && typeof entry === 'object' ? await pinnedEntry(entry, root, ref, client, options.env) : entry)
  const {metadata, ...rest} = catalog as {metadata?: Record<string, unknown>}
  const {pluginRoot: _pluginRoot, ...keptMetadata} = metadata ?? {}
  const pushedCatalog = {...rest, ...(metadata ? {metadata: keptMetadata} : {}), plugins}
  const bytes = Buffer.from(`${JSON.stringify(pushedCatalog, null, 2)}\n`)
  const config = await client.pushBlob(ref.repository, EMPTY_CONFIG, EMPTY_CONFIG_MEDIA_TYPE)
  const layer = {...(await client.pushBlob(ref.repository, bytes, CATALOG_LAYER_MEDIA_TYPE)), annotations: {[ANNOTATION.title]: 'marketplace.json'}}
  const annotations = {
    [ANNOTATION.title]: catalog.name,
    ...(typeof catalog.version === 'string' ? {[ANNOTATION.version]: catalog.version} : {}),
    [ANNOTATION.source]: formatOciReference({registry: ref.registry, repository: ref.repository}),
  }
  const digest = await client.putManifest(ref.repository, ref.tag, manifestBytes(CATALOG_ARTIFACT_TYPE, config, layer, annotations))
  return {
    marketplace: catalog.name,
    reference: formatOciReference({...ref, digest}),
    registry: ref.registry,
    repository: ref.repository,
    tag: ref.tag,
    digest,
    plugins: plugins.map((p) => ({
      name: typeof p.name === 'string' ? p.name : '',
      reference: p.source && typeof p.source === 'object' && typeof (p.source as {ref?: unknown}).ref === 'string' ? (p.source as {ref: string}).ref : '',
    })),
  }
}
