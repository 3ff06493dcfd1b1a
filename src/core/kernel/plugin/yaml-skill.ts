import {basename} from 'node:path'
import {closeSync, constants, fstatSync, openSync} from 'node:fs'
import {readCharacteroidSkill} from './characteroid.js'
import {errnoCode} from '../../model/errors.js'
import {readOpenFile} from '../fs/read.js'
import {problem, type Problem} from '../../model/problems.js'
import {MAX_SKILL_FILE_BYTES} from '../skills/read.js'

// apart from validate-paths.ts so that listing skills loads the YAML parser only for YAML skills

/** A CHARACTOID skill YAML read without trusting it: a regular file of at most 10 MB. */
export const readYamlSkill = (file: string): {name?: string; description?: string; problems: Problem[]} => {
  const failed = (code: string, message: string) => ({problems: [problem('error', code, message, {file})]})
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    const code = errnoCode(error)
    return failed('skill-unreadable', `cannot read ${file}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error))}`)
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return failed('skill-file-not-regular', `${file} is not a regular file`)
    if (info.size > MAX_SKILL_FILE_BYTES)
      return failed('skill-file-too-large', `${basename(file)} is ${(info.size / 1048576).toFixed(1)} MB; the limit is 10 MB`)
    const bytes = readOpenFile(fd, info.size)
    return readCharacteroidSkill(bytes.toString('utf8'), file)
  } catch (error) {
    return failed('skill-unreadable', `cannot read ${file}: ${errnoCode(error) ?? String(error)}`)
  } finally {
    closeSync(fd)
  }
}
