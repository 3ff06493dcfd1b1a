import type {AuditResult} from '../../core/ops/audit/audit.js'
import {formatFinding} from '../../core/kernel/plugin/scan.js'
import {green, red} from '../style.js'
import {safeText} from '../safe-text.js'
import {renderVerify} from './install.js'

export const renderAudit = (result: AuditResult): string =>
  [
    ...result.findings.map((f) => red(`hidden ${formatFinding(f)}`)),
    result.findings.length === 0 ? green(`no hidden characters in ${result.scanned} file(s)`) : red(`${result.findings.length} hidden character(s)`),
    renderVerify(result.verify),
    ...result.policy.map((b) => red(safeText(`policy ${b.rule} (${b.file}): ${b.message}`, {max: Infinity}))),
    ...result.unsigned.map((u) => red(safeText(`unsigned ${u.kind} ${u.subject} (${u.rule}, ${u.ruleFile}): ${u.message}`, {max: Infinity}))),
  ].join('\n')
