/**
 * Lenient parsers return a value together with the problems they found, instead of throwing on the
 * first one. A problem names its file and, where it has one, the JSON path inside it.
 */
export type Severity = 'error' | 'warning'

export interface Problem {
  severity: Severity
  code: string
  message: string
  file?: string
  path?: string
}

export const problem = (severity: Severity, code: string, message: string, where: {file?: string; path?: string} = {}): Problem => ({
  severity,
  code,
  message,
  ...where,
})

/** Absent, or a string: a field of a value read back from a cache. */
export const optionalText = (v: unknown): boolean => v === undefined || typeof v === 'string'

/** A problem read back from one of loadout's own caches, checked field by field (a cache is untrusted). */
export const isProblem = (value: unknown): value is Problem => {
  if (typeof value !== 'object' || value === null) return false
  const p = value as Record<string, unknown>
  return (
    (p.severity === 'error' || p.severity === 'warning') &&
    typeof p.code === 'string' &&
    typeof p.message === 'string' &&
    optionalText(p.file) &&
    optionalText(p.path)
  )
}

export const hasErrors = (problems: readonly Problem[], strict = false): boolean =>
  problems.some((p) => p.severity === 'error' || (strict && p.severity === 'warning'))

export const formatProblem = (p: Problem): string => {
  const where = [p.file, p.path].filter(Boolean).join(' ')
  return `${p.severity} ${p.code}${where ? ` ${where}` : ''}: ${p.message}`
}
