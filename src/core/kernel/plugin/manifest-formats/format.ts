/**
 * What loadout knows about one plugin manifest format, as one object: the files it claims, how it
 * reads one into a Declaration (what `install` trusts), and, each imported only when the command
 * that needs it runs, its validate rules and `--fix` paths, its `plugin convert` builder and its
 * `plugin create` scaffold. The pipeline (kernel/plugin/manifests.ts, authoring/*) iterates over the list in
 * ./index.ts and names no format; CONTRIBUTING.md says how to add one.
 */
import type {BuildContext, ConversionPlan, TargetManifest} from './convert-plan.js'
import type {RuleContext} from './plugin-rules.js'
import type {PluginPart, ScaffoldInput} from './scaffold-kit.js'
import type {Json} from '../components.js'
import type {Declaration} from '../manifest-fields.js'
import type {PluginReport} from '../report.js'

/** One file a format reads its manifest from. */
export interface ManifestFile {
  /** relative to the plugin root, `/`-separated */
  path: string
  /** the format claims the file only when its JSON passes this (Lexora: it has `contributes`); without it, whatever is there */
  when?: (json: Json) => boolean
  /**
   * a file other tools own too (npm's package.json): one that cannot be read is a warning, not a
   * refusal, one without the `when` mark is not loadout's, and a strict-false entry does not mention it
   */
  shared?: boolean
}

/** Where `plugin convert` writes the manifest; `existing` reads a file of the plugin (undefined when missing). */
export type ConvertTarget = (existing: (rel: string) => Json | undefined, root: string) => TargetManifest

export interface FormatConvert {
  target: ConvertTarget
  build(ctx: BuildContext): ConversionPlan
}

export interface FormatScaffold {
  /** the manifest file, relative to the plugin root */
  file: string
  /** the README line that says what the file is for */
  line: string
  /** `agentPrompt` is the body of the example subagent (for a format that defines it inline) */
  manifest(input: ScaffoldInput, agentPrompt: string): Json
  /** what this format cannot carry of what was asked for */
  notes?(input: ScaffoldInput): string[]
  /** alone, the format defines the example subagent in its manifest (no agents/<name>.md): the README line for it */
  inlineSubagent?: string
  /** alone, the format defines the example MCP server in its manifest (no .mcp.json, no server program): the README line for it */
  inlineMcp?: (name: string) => string
  /** parts only this format carries (cst-agent: exec tools), with their README line: asking for one needs the format */
  ownParts?: Partial<Record<PluginPart, (name: string) => string>>
}

/** What `plugin validate` (and `--fix`) know of a format. */
export interface FormatChecks {
  /** the cross-field rules the JSON Schema cannot say; problems go to `ctx.problems` */
  rules(json: Json, ctx: RuleContext): void | Promise<void>
  /** paths a manifest names of hooks and MCP files (validate checks their shape) */
  dataFiles?(json: Json): {hooks: string[]; mcp: string[]}
  /** path fields `--fix` repairs (`./` added, a trailing `/` on a file removed) */
  fixablePaths?(json: Json): Array<{holder: Json; base: string; key: string}>
}

export interface ManifestFormat {
  /** `--to`, `--format` and `formats` in JSON output */
  id: string
  /** how the format names itself in messages: `Claude Code` */
  name: string
  /** the files it claims, in order; a file two formats claim goes to the one whose `when` matches, else to the one without `when` */
  files: readonly ManifestFile[]
  /** its JSON Schema in registry/schemas (without .schema.json) */
  schema: string
  read(json: Json, file: string, root: string, report: PluginReport): Declaration
  /**
   * read only when no other format's manifest is there: a plugin that ships a Claude manifest (or
   * only `.mcp.json`) beside a `gemini-extension.json` installs as before, the Gemini file being for
   * Gemini CLI's own installer
   */
  secondary?: boolean
  /** its manifest is where loadout reads a plugin's `dependencies` and `userConfig` (Claude Code's) */
  declaresDependencies?: boolean
  /** its hosts install package archives themselves (`plugin pack --format <id>`); `manifest` says what marks one */
  packs?: {manifest: string}
  /** the rest is imported on first use, so that reading a plugin loads no authoring code */
  checks(): Promise<FormatChecks>
  /** `plugin convert --to <id>`; absent: loadout does not write this format */
  convert?(): Promise<FormatConvert>
  /** `plugin create --format <id>`; absent: loadout does not scaffold this format */
  scaffold?(): Promise<FormatScaffold>
}
