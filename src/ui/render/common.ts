import {formatProblem, type Problem} from '../../core/model/problems.js'
import {dim, green, red, yellow} from '../style.js'
import {safeMessage, safeText} from '../safe-text.js'
import {renderTable} from '../table.js'

/** One problem on its own indented line: errors in red, warnings in yellow. */
export const problemLine = (p: Problem): string => `  ${p.severity === 'error' ? red(safeMessage(formatProblem(p))) : yellow(safeMessage(formatProblem(p)))}`

/** The lines that close an `info`: every problem, or "valid". */
export const problemsOrValid = (problems: readonly Problem[]): string[] =>
  problems.length > 0 ? ['problems:', ...problems.map(problemLine)] : [green('valid')]

export const frontmatterLines = (frontmatter: Record<string, unknown> | undefined): string[] =>
  frontmatter
    ? [
        'frontmatter:',
        ...Object.entries(frontmatter).map(([key, value]) => `  ${safeText(key)}: ${safeText(typeof value === 'string' ? value : JSON.stringify(value))}`),
      ]
    : []

/** Where a skill or subagent lives for each agent, and which copy wins. */
export const whereLines = (
  locations: ReadonlyArray<{agent: string; scope: string; status: string; shadowedBy?: string; owner: string; path: string}>,
): string[] => [
  'where:',
  renderTable(
    ['AGENT', 'SCOPE', 'STATUS', 'OWNER', 'PATH'],
    locations.map((l) => [l.agent, l.scope, l.status === 'active' ? green('active') : dim(`shadowed by ${l.shadowedBy}`), l.owner, l.path]),
  ).replace(/^/gm, '  '),
]
