/**
 * The globs of policy files: `*` stands for any run of characters (dots and colons too), `?` for one;
 * everything else is literal. Hosts compare without regard to case, names exactly.
 */
const compiled = new Map<string, RegExp>()

const toRegExp = (pattern: string, caseless: boolean): RegExp => {
  const key = `${caseless ? 'i' : 's'}${pattern}`
  let re = compiled.get(key)
  if (!re) {
    const body = [...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&'))).join('')
    re = new RegExp(`^${body}$`, caseless ? 'is' : 's')
    compiled.set(key, re)
  }
  return re
}

export const globMatches = (pattern: string, subject: string, caseless = false): boolean => toRegExp(pattern, caseless).test(subject)

/**
 * Whether everything `narrower` matches is matched by `wider`, judged by reading `narrower` as a
 * literal subject of `wider` (its `*` is then matched by a `*` of `wider`). Sound for the patterns
 * policies use (`*.corp.example` within `*.example`); an unusual pair may be judged wider than it is,
 * which only means a later file's list is ignored with a warning.
 */
export const globWithin = (narrower: string, wider: string, caseless = false): boolean => globMatches(wider, narrower, caseless)
