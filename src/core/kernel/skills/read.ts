import {closeSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, constants, type BigIntStats} from 'node:fs'
import {basename, extname, join, relative} from 'node:path'
import {errnoCode} from '../../model/errors.js'
import {resolvesInside, safeRealpath} from '../fs/contain.js'
import {isProblem, optionalText, problem, type Problem} from '../../model/problems.js'
import type {SkillDialect} from '../targets/types.js'
import {parseSkillText, type ParsedSkill} from './validate.js'
import {readOpenFile} from '../fs/read.js'
import {decodeAgentText} from '../fs/utf8.js'
import {openStatMemo, type StatMemo} from '../fs/stat-memo.js'
import type {Environment} from '../env/environment.js'

export const SKILL_FILE = 'SKILL.md'
export const MAX_SKILL_FILE_BYTES = 10 * 1024 * 1024

export interface SkillOnDisk extends ParsedSkill {
  /** the skill folder */
  dir: string
  file: string
  /** set when the skill folder itself is a symbolic link: where it points */
  linkTarget?: string
  bytes?: number
}

const failed = (dir: string, file: string, p: Problem, extra: Partial<SkillOnDisk> = {}): SkillOnDisk => ({
  dir,
  file,
  body: '',
  fallback: false,
  problems: [p],
  ...extra,
})

/**
 * Reads one skill folder without trusting it: SKILL.md must be a regular file (or a link that stays
 * inside the folder), at most 10 MB, readable; the size is checked before a byte is read.
 */
export const readSkillDir = (dir: string, dialect: SkillDialect = 'spec', known: {link?: boolean} = {}): SkillOnDisk => {
  const file = join(dir, SKILL_FILE)
  const folder = basename(dir)
  // the common case in four calls (open, fstat, read, close): a folder known not to be a link, and
  // a SKILL.md that is no link either (O_NOFOLLOW); anything else takes the careful path below
  if (known.link === false && constants.O_NOFOLLOW !== undefined) {
    let fd: number | undefined
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
    } catch (error) {
      const code = errnoCode(error)
      if (code === 'ENOENT') return failed(dir, file, problem('error', 'skill-file-missing', `${SKILL_FILE} is missing`, {file}))
      if (code !== 'ELOOP')
        return failed(
          dir,
          file,
          problem(
            'error',
            'skill-unreadable',
            `cannot read ${file}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error))}`,
            {file},
          ),
        )
    }
    if (fd !== undefined) return readOpenSkill(fd, dir, file, folder, dialect, {})
  }
  let linkTarget: string | undefined
  try {
    if (known.link !== false && lstatSync(dir).isSymbolicLink()) linkTarget = safeRealpath(dir) ?? readlinkSync(dir)
  } catch {
    // reported below when SKILL.md cannot be opened
  }
  const extra = linkTarget ? {linkTarget} : {}
  let stat
  try {
    stat = lstatSync(file)
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ENOENT') return failed(dir, file, problem('error', 'skill-file-missing', `${SKILL_FILE} is missing`, {file}), extra)
    if (code === 'EACCES' || code === 'EPERM')
      return failed(dir, file, problem('error', 'skill-unreadable', `cannot read ${file}: permission denied`, {file}), extra)
    return failed(dir, file, problem('error', 'skill-unreadable', `cannot read ${file}: ${code ?? String(error)}`, {file}), extra)
  }
  if (stat.isSymbolicLink() && !resolvesInside(dir, file)) {
    const target = safeRealpath(file) ?? readlinkSync(file)
    return failed(
      dir,
      file,
      problem('error', 'skill-file-link-outside', `${SKILL_FILE} is a symbolic link out of its folder (to ${target}); not read`, {file}),
      extra,
    )
  }
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    const code = errnoCode(error)
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error))
    return failed(dir, file, problem('error', 'skill-unreadable', `cannot read ${file}: ${why}`, {file}), extra)
  }
  return readOpenSkill(fd, dir, file, folder, dialect, extra)
}

/** Reads and parses an open SKILL.md (closing it): a regular file of at most 10 MB, valid text. */
const readOpenSkill = (fd: number, dir: string, file: string, folder: string, dialect: SkillDialect, extra: Partial<SkillOnDisk>): SkillOnDisk => {
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return failed(dir, file, problem('error', 'skill-file-not-regular', `${file} is not a regular file`, {file}), extra)
    if (info.size > MAX_SKILL_FILE_BYTES) {
      return failed(
        dir,
        file,
        problem('error', 'skill-file-too-large', `${SKILL_FILE} is ${(info.size / 1048576).toFixed(1)} MB; the limit is 10 MB`, {file}),
        {...extra, bytes: info.size},
      )
    }
    const bytes = readOpenFile(fd, info.size)
    const decoded = decodeAgentText(bytes)
    if ('fault' in decoded)
      return failed(dir, file, problem('error', decoded.fault.code, `${file} ${decoded.fault.why}`, {file}), {...extra, bytes: bytes.length})
    const parsed = parseSkillText(decoded.text, folder, file, dialect)
    return {...parsed, dir, file, bytes: bytes.length, ...extra}
  } catch (error) {
    const code = errnoCode(error)
    return failed(dir, file, problem('error', 'skill-unreadable', `cannot read ${file}: ${code ?? String(error)}`, {file}), extra)
  } finally {
    closeSync(fd)
  }
}

/** What a listing shows of a skill: its SKILL.md read and checked, without the text. */
export type SkillSummary = Omit<SkillOnDisk, 'body' | 'frontmatter'>

type RememberedSkill = Pick<SkillOnDisk, 'name' | 'description' | 'fallback' | 'problems' | 'bytes'>

const isRememberedSkill = (v: unknown): v is RememberedSkill => {
  if (typeof v !== 'object' || v === null) return false
  const s = v as Record<string, unknown>
  return (
    optionalText(s.name) &&
    optionalText(s.description) &&
    typeof s.fallback === 'boolean' &&
    typeof s.bytes === 'number' &&
    Array.isArray(s.problems) &&
    s.problems.every(isProblem)
  )
}

const lstatOrNone = (path: string): BigIntStats | undefined => {
  try {
    return lstatSync(path, {bigint: true, throwIfNoEntry: false})
  } catch {
    return undefined
  }
}

/** The memo of SKILL.md files read and checked, by dialect and path (kernel/fs/stat-memo.ts). */
export const openSkillMemo = (env: Environment): StatMemo<RememberedSkill> => openStatMemo(env, 'skill-md', isRememberedSkill)

/**
 * `readSkillDir` for a listing: a folder known not to be a link whose SKILL.md is a regular file
 * with the metadata `memo` remembers is not read again (one lstat instead of open, fstat, read and
 * close, and no parse); what is read is remembered. The metadata is taken before the read, so a
 * change while reading only makes the next run read the file again.
 */
export const readSkillSummary = (dir: string, dialect: SkillDialect, known: {link?: boolean}, memo: StatMemo<RememberedSkill>): SkillSummary => {
  const file = join(dir, SKILL_FILE)
  const key = `${dialect}:${file}`
  const stat = known.link === false ? lstatOrNone(file) : undefined
  const remembered = stat?.isFile() ? memo.recall(key, stat) : undefined
  if (remembered) return {...remembered, dir, file}
  const {body: _body, frontmatter: _frontmatter, ...summary} = readSkillDir(dir, dialect, known)
  // a file that could not be opened is read again next time (its folder's permissions may change, not its own metadata)
  if (stat?.isFile() && summary.bytes !== undefined && !summary.problems.some((p) => p.code === 'skill-unreadable')) {
    const {name, description, fallback, problems, bytes} = summary
    memo.remember(key, stat, {...(name === undefined ? {} : {name}), ...(description === undefined ? {} : {description}), fallback, problems, bytes})
  }
  return summary
}

export interface ShippedFile {
  path: string
  bytes: number
  kind: 'file' | 'link' | 'other'
}

/** The files a skill folder ships, relative to it, without following links; at most `limit`. */
export const listSkillFiles = (dir: string, limit = 2000): {files: ShippedFile[]; truncated: boolean} => {
  const files: ShippedFile[] = []
  const walk = (current: string): boolean => {
    let entries
    try {
      entries = readdirSync(current, {withFileTypes: true})
    } catch {
      return true
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(current, entry.name)
      if (entry.isDirectory()) {
        if (!walk(full)) return false
        continue
      }
      if (files.length >= limit) return false
      let bytes = 0
      try {
        bytes = lstatSync(full).size
      } catch {
        // listed with size 0
      }
      files.push({path: relative(dir, full), bytes, kind: entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'link' : 'other'})
    }
    return true
  }
  const complete = walk(dir)
  return {files, truncated: !complete}
}

/** A CHARACTOID skill is a `.yaml`/`.yml` file. */
export const isYamlName = (name: string): boolean => ['.yaml', '.yml'].includes(extname(name).toLowerCase())
