/**
 * The globs of policy files: `*` stands for any run of characters (dots and colons too), `?` for one;
 * everything else is literal. Hosts compare without regard to case, names exactly.
 */
/**
 * Matched without a regular expression: on a mismatch only the last `*` seen takes one more
 * character, so the work is at most the pattern's length times the subject's, whatever the pattern
 * (a regex of `*a*a*a*a*a*a*a*ab` backtracks exponentially on a long run of `a`).
 */
export const globMatches = (pattern: string, subject: string, caseless = false): boolean => {
  // by code point, so that `?` is one character however it is encoded
  const p = [...(caseless ? pattern.toLowerCase() : pattern)]
  const s = [...(caseless ? subject.toLowerCase() : subject)]
  let pi = 0
  let si = 0
  let star = -1
  let resume = 0
  while (si < s.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === s[si]))) {
      pi++
      si++
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++
      resume = si
    } else if (star >= 0) {
      pi = star + 1
      si = ++resume
    } else return false
  }
  while (pi < p.length && p[pi] === '*') pi++
  return pi === p.length
}

/**
 * Whether everything `narrower` matches is matched by `wider`, judged by reading `narrower` as a
 * literal subject of `wider` (its `*` is then matched by a `*` of `wider`). Sound for the patterns
 * policies use (`*.corp.example` within `*.example`); an unusual pair may be judged wider than it is,
 * which only means a later file's list is ignored with a warning.
 */
export const globWithin = (narrower: string, wider: string, caseless = false): boolean => globMatches(wider, narrower, caseless)
