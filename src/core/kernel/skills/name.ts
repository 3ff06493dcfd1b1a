import {nfkcRule} from '../text/name-skeleton.js'

/** The Agent Skills name rule, one reason per way a name can break it. */
export interface NameRuleBroken {
  code: string
  message: string
}

export const MAX_SKILL_NAME = 64

export const checkSkillName = (raw: string): NameRuleBroken | undefined => {
  const name = raw.normalize('NFKC')
  const says = (code: string, why: string): NameRuleBroken => ({code, message: `name "${raw}" ${why}`})
  if (name.length === 0) return says('name-empty', 'is empty')
  if (name.length > MAX_SKILL_NAME) return says('name-too-long', `is ${name.length} characters; the limit is ${MAX_SKILL_NAME}`)
  if (name.includes('/') || name.includes('\\')) return says('name-has-separator', 'contains a path separator (/ or \\)')
  if (name.includes('..')) return says('name-has-dotdot', 'contains ".."')
  if (name.startsWith('.')) return says('name-leading-dot', 'starts with a dot')
  if (name !== name.toLowerCase()) return says('name-uppercase', 'has upper-case letters; use lowercase letters, digits and hyphens')
  // checked after the rules above, which judge the NFKC form: a full-width "／" is named as a separator
  const notNormal = nfkcRule(raw)
  if (notNormal) return says('name-not-normalized', notNormal)
  if (!/^[a-z0-9-]+$/.test(name)) return says('name-invalid-characters', 'may hold only lowercase letters, digits and hyphens')
  if (name.startsWith('-') || name.endsWith('-')) return says('name-edge-hyphen', 'starts or ends with a hyphen')
  if (name.includes('--')) return says('name-double-hyphen', 'has two hyphens in a row')
  return undefined
}
