import {lstatSync, readdirSync, statSync} from 'node:fs'
import {basename, dirname, extname, join, resolve} from 'node:path'
import {errnoCode} from '../../model/errors.js'
import {hasErrors, problem, type Problem} from '../../model/problems.js'
import type {SkillDialect} from '../../kernel/targets/types.js'
import {readSkillDir, SKILL_FILE} from '../../kernel/skills/read.js'
import {isYamlName} from '../../kernel/skills/read.js'
import {readYamlSkill} from '../../kernel/plugin/yaml-skill.js'

export interface ValidatedSkill {
  path: string
  name?: string
  valid: boolean
  problems: Problem[]
}

export interface SkillsValidation {
  strict: boolean
  valid: boolean
  errors: number
  warnings: number
  skills: ValidatedSkill[]
  problems: Problem[]
}

/** True when `dir` has a SKILL.md, or may have one that cannot be seen: readSkillDir then reports why. */
const mayHoldSkillFile = (dir: string): boolean => {
  try {
    lstatSync(join(dir, SKILL_FILE))
    return true
  } catch (error) {
    return errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR'
  }
}

/** A path names one skill (its folder, its SKILL.md or a CHARACTOID skill YAML) or a folder of skills. */
const skillDirsAt = (path: string): {dirs: string[]; yamlFiles?: string[]; problem?: Problem} => {
  let stat
  try {
    stat = lstatSync(path)
  } catch {
    return {dirs: [], problem: problem('error', 'path-not-found', `${path} does not exist`, {file: path})}
  }
  if (basename(path) === SKILL_FILE && (stat.isFile() || stat.isSymbolicLink())) return {dirs: [dirname(path)]}
  if (isYamlName(path) && (stat.isFile() || stat.isSymbolicLink())) return {dirs: [], yamlFiles: [path]}
  let isDir = stat.isDirectory()
  if (stat.isSymbolicLink()) {
    try {
      isDir = statSync(path).isDirectory()
    } catch {
      return {dirs: [], problem: problem('error', 'path-dangling-link', `${path} is a symbolic link to nothing`, {file: path})}
    }
  }
  if (!isDir) return {dirs: [], problem: problem('error', 'path-not-skill', `${path} is neither a folder nor a SKILL.md`, {file: path})}
  if (mayHoldSkillFile(path)) return {dirs: [path]}
  // not a skill folder itself: a folder of skills?
  let entries
  try {
    entries = readdirSync(path, {withFileTypes: true})
  } catch (error) {
    const code = errnoCode(error)
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error))
    return {dirs: [], problem: problem('error', 'path-unreadable', `cannot read ${path}: ${why}`, {file: path})}
  }
  const children = entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink()))
    .map((e) => join(path, e.name))
    .filter(mayHoldSkillFile)
    .sort()
  if (children.length === 0) {
    // a folder of CHARACTOID skill YAML files?
    const yamlFiles = entries
      .filter((e) => !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()) && isYamlName(e.name))
      .map((e) => join(path, e.name))
      .sort()
    if (yamlFiles.length > 0) return {dirs: [], yamlFiles}
  }
  if (children.length === 0) return {dirs: [], problem: problem('error', 'no-skill-found', `no ${SKILL_FILE} in ${path} or in its subfolders`, {file: path})}
  return {dirs: children}
}

export const validateSkillPaths = (paths: readonly string[], cwd: string, dialect: SkillDialect, strict: boolean): SkillsValidation => {
  const problems: Problem[] = []
  const skills: ValidatedSkill[] = []
  const seen = new Map<string, string>()
  const visited = new Set<string>()
  for (const raw of paths) {
    const found = skillDirsAt(resolve(cwd, raw))
    if (found.problem) problems.push(found.problem)
    for (const dir of found.dirs) {
      if (visited.has(dir)) continue
      visited.add(dir)
      const skill = readSkillDir(dir, dialect)
      const name = skill.name ?? basename(dir)
      const skillProblems = [...skill.problems]
      const first = seen.get(name)
      if (first)
        skillProblems.push(
          problem('warning', 'duplicate-name', `another skill named "${name}" is at ${first}; an agent loads only one of them`, {file: skill.file}),
        )
      else seen.set(name, dir)
      skills.push({path: dir, ...(skill.name === undefined ? {} : {name: skill.name}), valid: !hasErrors(skillProblems, strict), problems: skillProblems})
    }
    for (const file of found.yamlFiles ?? []) {
      if (visited.has(file)) continue
      visited.add(file)
      const skill = readYamlSkill(file)
      const name = skill.name ?? basename(file, extname(file))
      const skillProblems = [...skill.problems]
      const first = seen.get(name)
      if (first)
        skillProblems.push(problem('warning', 'duplicate-name', `another skill named "${name}" is at ${first}; an agent loads only one of them`, {file}))
      else seen.set(name, file)
      skills.push({path: file, ...(skill.name === undefined ? {} : {name: skill.name}), valid: !hasErrors(skillProblems, strict), problems: skillProblems})
    }
  }
  const all = [...problems, ...skills.flatMap((s) => s.problems)]
  const errors = all.filter((p) => p.severity === 'error').length
  const warnings = all.length - errors
  return {strict, valid: !hasErrors(all, strict), errors, warnings, skills, problems}
}
