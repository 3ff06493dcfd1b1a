import {join} from 'node:path'
import {PACKAGE_ROOT} from '../env/package-root.js'
import {nodeRequire} from '../env/node-require.js'

// required, not imported: an ESM import of a CommonJS file first scans it for its export names,
// which costs more than loading it (the read-only commands load agent-target on every run)
const require = nodeRequire

/** A validator compiled at build time by ajv standalone (see bin/build.mjs). */
export interface CompiledValidator {
  (data: unknown): boolean
  errors?: Array<{instancePath: string; message?: string; params?: Record<string, unknown>}> | null
}

const loaded = new Map<string, Promise<CompiledValidator>>()

export const loadValidator = (name: string): Promise<CompiledValidator> => {
  let validator = loaded.get(name)
  if (!validator) {
    try {
      validator = Promise.resolve(require(join(PACKAGE_ROOT, 'dist', 'schemas', `${name}.cjs`)) as CompiledValidator)
    } catch (error) {
      validator = Promise.reject(error)
    }
    loaded.set(name, validator)
  }
  return validator
}

export const describeSchemaErrors = (validator: CompiledValidator): string[] =>
  (validator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
