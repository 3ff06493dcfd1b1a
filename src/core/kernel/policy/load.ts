import {closeSync, fstatSync, openSync, constants} from 'node:fs'
import {surelyMissing} from '../fs/exists.js'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {EXIT, errnoCode, LoadoutError} from '../../model/errors.js'
import {readOpenFile} from '../fs/read.js'
import {PACKAGE_ROOT} from '../env/package-root.js'
import {nodeRequire} from '../env/node-require.js'
import type {CompiledValidator} from '../json/schemas.js'
import {describeSchemaErrors} from '../json/schemas.js'
import {mergePolicy} from './merge.js'
import {emptyPolicy, type Policy, type PolicyFile, type PolicyLevel, type PolicySourceFile} from '../../model/policy.js'

export const SYSTEM_POLICY = '/etc/loadout/policy.json'
export const PROJECT_POLICY = 'loadout-policy.json'
const MAX_POLICY_BYTES = 1024 * 1024

/** The policy files in the order they apply: system ($LOADOUT_POLICY, else /etc), user, project. */
export const policyFiles = (env: Environment, projectRoot: string): Array<{level: PolicyLevel; path: string}> => [
  {level: 'system', path: env.vars.LOADOUT_POLICY?.trim() ? env.vars.LOADOUT_POLICY : SYSTEM_POLICY},
  {level: 'user', path: join(loadoutPaths(env).config, 'policy.json')},
  {level: 'project', path: join(projectRoot, PROJECT_POLICY)},
]

const broken = (path: string, why: string) =>
  new LoadoutError('policy-invalid', EXIT.policy, `policy file ${path} ${why}; nothing is fetched or written until it is fixed`, {
    suggestions: ['fix it against registry/schemas/policy.schema.json (see the README, "Policy"), or ask whoever manages it'],
  })

/** The file's text, or undefined when there is none; anything else unreadable fails closed. */
const readBounded = (path: string): string | undefined => {
  let fd: number
  // most of the three policy files are absent: asked, not thrown (ENOENT only; anything else is opened and fails closed)
  if (surelyMissing(path)) return undefined
  try {
    // O_NONBLOCK: a FIFO (or a device) named as the policy must not hang the command until a writer appears
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined
    throw broken(path, `cannot be read (${errnoCode(error) ?? (error as Error).message})`)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw broken(path, 'is not a file')
    if (stat.size > MAX_POLICY_BYTES) throw broken(path, `is larger than ${MAX_POLICY_BYTES} bytes`)
    return readOpenFile(fd, stat.size).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

let validator: CompiledValidator | undefined
/** The compiled schema, loaded synchronously so that the install pipeline stays synchronous. */
const policyValidator = (): CompiledValidator => {
  if (!validator) {
    const mod = nodeRequire(join(PACKAGE_ROOT, 'dist', 'schemas', 'policy.cjs')) as CompiledValidator & {default?: CompiledValidator}
    validator = mod.default ?? mod
  }
  return validator
}

export const parsePolicyFile = (text: string, path: string): PolicyFile => {
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw broken(path, `is not valid JSON (${(error as Error).message})`)
  }
  const validate = policyValidator()
  if (!validate(value)) throw broken(path, `breaks the policy schema: ${describeSchemaErrors(validate).slice(0, 3).join('; ')}`)
  return value as PolicyFile
}

/**
 * The policy each environment (one per command) read, by the files it names: a run judges every
 * request, source and plugin by the same files, read once (an install asked five times, three opens each).
 */
const readFor = new WeakMap<Environment, Map<string, Policy>>()

/** The effective policy for commands run in `projectRoot`. */
export const loadPolicy = (env: Environment, projectRoot: string): Policy => {
  const files = policyFiles(env, projectRoot)
  const key = files.map((f) => f.path).join('\0')
  let read = readFor.get(env)
  if (!read) readFor.set(env, (read = new Map()))
  const known = read.get(key)
  if (known) return known
  const policy = readPolicy(files)
  read.set(key, policy)
  return policy
}

const readPolicy = (named: ReturnType<typeof policyFiles>): Policy => {
  const files: PolicySourceFile[] = []
  let policy = emptyPolicy()
  for (const {level, path} of named) {
    const text = readBounded(path)
    files.push({level, path, present: text !== undefined})
    if (text !== undefined) policy = mergePolicy(policy, parsePolicyFile(text, path), path)
  }
  return {...policy, files}
}
