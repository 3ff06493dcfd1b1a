/**
 * The manifest formats loadout reads, writes and checks, in order of authority (the first
 * declaration that names a field wins). This list is the only module outside a format's folder
 * that imports one: adding a format is a folder beside these and one line here (CONTRIBUTING.md).
 */
import type {Json} from '../components.js'
import {claude} from './claude/index.js'
import {codex} from './codex/index.js'
import {cstAgent} from './cst-agent/index.js'
import type {FormatChecks, ManifestFormat} from './format.js'
import {gemini} from './gemini/index.js'
import {lexora} from './lexora/index.js'

export type {FormatChecks, FormatConvert, FormatScaffold, ManifestFile, ManifestFormat} from './format.js'

export const MANIFEST_FORMATS: readonly ManifestFormat[] = [claude, codex, cstAgent, lexora, gemini]

export const FORMAT_IDS: readonly string[] = MANIFEST_FORMATS.map((f) => f.id)

export const manifestFormat = (id: string): ManifestFormat | undefined => MANIFEST_FORMATS.find((f) => f.id === id)

/** How a format names itself in messages (`Claude Code`); an unknown id as it is. */
export const formatName = (id: string): string => manifestFormat(id)?.name ?? id

/** One file some format reads, and the formats that claim it: those with a `when` test first, then the one that takes whatever is there. */
export interface ClaimedFile {
  path: string
  shared: boolean
  claims: Array<{format: ManifestFormat; when?: (json: Json) => boolean}>
}

const claimed = (): ClaimedFile[] => {
  const files = new Map<string, ClaimedFile>()
  for (const format of MANIFEST_FORMATS) {
    for (const file of format.files) {
      const entry = files.get(file.path) ?? {path: file.path, shared: false, claims: []}
      entry.shared ||= file.shared === true
      entry.claims.push(file.when ? {format, when: file.when} : {format})
      files.set(file.path, entry)
    }
  }
  for (const entry of files.values()) entry.claims.sort((a, b) => Number(a.when === undefined) - Number(b.when === undefined))
  return [...files.values()]
}

/** Every manifest file, in the order of the formats that claim them. */
export const MANIFEST_FILES: readonly ClaimedFile[] = claimed()

/** The format `json` read from `file` is, or undefined (a shared file without the mark of any format). */
export const formatOf = (file: ClaimedFile, json: Json | undefined): ManifestFormat | undefined =>
  file.claims.find((c) => (c.when ? json !== undefined && c.when(json) : true))?.format

let checks: Promise<Map<string, FormatChecks>> | undefined

/** What `plugin validate` knows of every format, by id (imported once). */
export const allChecks = (): Promise<Map<string, FormatChecks>> =>
  (checks ??= Promise.all(MANIFEST_FORMATS.map(async (f) => [f.id, await f.checks()] as const)).then((pairs) => new Map(pairs)))
