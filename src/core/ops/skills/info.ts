import {notFound} from '../../model/errors.js'
import type {Problem} from '../../model/problems.js'
import {closestNames} from '../../kernel/text/suggest.js'
import {listSkillFiles, type ShippedFile} from '../../kernel/skills/read.js'
import type {ListedSkill, SkillsInventory} from './list.js'

export interface SkillInfo {
  name: string
  description?: string
  frontmatter?: Record<string, unknown>
  /** the copy described: the first active one found */
  path: string
  body: {lines: number; bytes: number; estimatedTokens: number}
  files: ShippedFile[]
  filesTruncated: boolean
  /** every copy of the skill, per agent, with which one wins */
  locations: ListedSkill[]
  problems: Problem[]
}

/** Tokens are estimated at four characters each, the usual rule of thumb for English prose. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

export const skillInfo = (name: string, inventory: SkillsInventory): SkillInfo => {
  const locations = inventory.skills.filter((s) => s.name === name)
  if (locations.length === 0) {
    const near = closestNames(
      name,
      inventory.skills.map((s) => s.name),
    )
    throw notFound('skill-not-found', `no skill named "${name}" in the selected agents' folders`, {
      suggestions: [...(near.length > 0 ? [`did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`] : []), 'see what is there: loadout skills list'],
    })
  }
  const chosen = locations.find((l) => l.status === 'active') ?? locations[0]!
  const skill = inventory.details.get(chosen.path)!
  const {files, truncated} = listSkillFiles(chosen.path)
  const body = skill.body
  // A final newline ends the last line; it does not start another one (as `wc -l` and editors count).
  const lines = body.length === 0 ? 0 : body.split('\n').length - (body.endsWith('\n') ? 1 : 0)
  return {
    name,
    ...(skill.description === undefined ? {} : {description: skill.description}),
    ...(skill.frontmatter ? {frontmatter: skill.frontmatter} : {}),
    path: chosen.path,
    body: {lines, bytes: Buffer.byteLength(body), estimatedTokens: estimateTokens(body)},
    files,
    filesTruncated: truncated,
    locations,
    problems: skill.problems,
  }
}
