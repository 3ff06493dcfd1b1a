/**
 * `audit --format sarif`: the audit as a SARIF 2.1.0 log, for code-scanning gates in CI. Each hidden
 * character, each file verify finds missing, changed or added, each policy break and each source
 * that should be signed and is not (at its line of loadout.lock, state.json or marketplaces.json) is one result
 * with a rule id, a message and the file (and line and column where known). Files inside the project
 * are relative to the `PROJECTROOT` base; others are absolute `file:` URIs.
 */
import {existsSync, readFileSync} from 'node:fs'
import {isAbsolute, relative, sep} from 'node:path'
import {pathToFileURL} from 'node:url'
import type {AuditResult} from './audit.js'

const SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json'

interface SarifRule {
  id: string
  shortDescription: {text: string}
}

const RULES: SarifRule[] = [
  {id: 'loadout/hidden-text', shortDescription: {text: 'A character agents read but people do not see (Unicode tag, bidi control, zero-width)'}},
  {id: 'loadout/verify-missing', shortDescription: {text: 'A file or config entry loadout installed is missing'}},
  {id: 'loadout/verify-changed', shortDescription: {text: 'A file or config entry loadout installed was changed'}},
  {id: 'loadout/verify-added', shortDescription: {text: 'A file was added inside a folder loadout installed'}},
  {id: 'loadout/policy', shortDescription: {text: 'The policy in force refuses something installed, or requires a plugin that is missing or too old'}},
  {
    id: 'loadout/unsigned-source',
    shortDescription: {
      text: "A plugin or marketplace installed from an unsigned source, though its marketplace's keys or policy requireSigned ask for a signature",
    },
  },
]

interface Region {
  startLine: number
  startColumn?: number
}

export interface SarifLog {
  $schema: string
  version: '2.1.0'
  runs: Array<{
    tool: {driver: {name: string; version: string; rules: SarifRule[]}}
    originalUriBaseIds: Record<string, {uri: string}>
    results: Array<{
      ruleId: string
      ruleIndex: number
      level: 'error' | 'warning'
      message: {text: string}
      locations: Array<{physicalLocation: {artifactLocation: {uri: string; uriBaseId?: string}; region?: Region}}>
      properties?: Record<string, unknown>
    }>
  }>
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
}

/** A verify label is a path, or a config file's path and the key in it (`<file> <key.path>`). */
const fileOfLabel = (label: string): string => {
  if (existsSync(label) || !label.includes(' ')) return label
  const file = label.slice(0, label.lastIndexOf(' '))
  return isAbsolute(file) ? file : label
}

/** The first line of a policy file that names `subject` (1-based), when it does. */
const lineNaming = (file: string, subject: string): Region | undefined => {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  const lines = text.split('\n')
  const index = lines.findIndex((l) => l.includes(JSON.stringify(subject)))
  return index < 0 ? undefined : {startLine: index + 1, startColumn: lines[index]!.indexOf(JSON.stringify(subject)) + 1}
}

export const auditToSarif = (result: AuditResult, projectRoot: string, version: string): SarifLog => {
  const location = (path: string, region?: Region) => ({
    physicalLocation: {
      artifactLocation: inside(projectRoot, path)
        ? {uri: relative(projectRoot, path).split(sep).map(encodeURIComponent).join('/'), uriBaseId: 'PROJECTROOT'}
        : {uri: pathToFileURL(path).href},
      ...(region ? {region} : {}),
    },
  })
  const result_ = (ruleId: string, text: string, path: string, region?: Region, properties?: Record<string, unknown>) => ({
    ruleId,
    ruleIndex: RULES.findIndex((r) => r.id === ruleId),
    level: 'error' as const,
    message: {text},
    locations: [location(path, region)],
    ...(properties ? {properties} : {}),
  })
  const results = [
    ...result.findings.map((f) =>
      result_(
        'loadout/hidden-text',
        `${f.codePoint} ${f.name} hidden in text agents read`,
        f.file,
        {startLine: f.line, startColumn: f.column},
        {codePoint: f.codePoint},
      ),
    ),
    ...result.verify.records.flatMap((r) =>
      (['missing', 'changed', 'added'] as const).flatMap((state) =>
        r[state].map((label) =>
          result_(
            `loadout/verify-${state}`,
            `${label} is ${state} (installed by ${r.plugin} for ${r.target}, ${r.scope} scope)`,
            fileOfLabel(label),
            undefined,
            {
              plugin: r.plugin,
              target: r.target,
              scope: r.scope,
            },
          ),
        ),
      ),
    ),
    ...result.policy.map((b) => result_('loadout/policy', b.message, b.file, lineNaming(b.file, b.subject), {rule: b.rule, subject: b.subject})),
    ...result.unsigned.map((u) =>
      result_('loadout/unsigned-source', u.message, u.file, lineNaming(u.file, u.subject), {
        kind: u.kind,
        subject: u.subject,
        rule: u.rule,
        ruleFile: u.ruleFile,
      }),
    ),
  ]
  return {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {driver: {name: 'loadout', version, rules: RULES}},
        originalUriBaseIds: {PROJECTROOT: {uri: pathToFileURL(projectRoot.endsWith(sep) ? projectRoot : `${projectRoot}${sep}`).href}},
        results,
      },
    ],
  }
}
