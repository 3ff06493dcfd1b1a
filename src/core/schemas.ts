import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {PACKAGE_ROOT} from './package-root.js'

/** A validator compiled at build time by ajv standalone (see bin/build.js). */
export interface CompiledValidator {
  (data: unknown): boolean
  errors?: Array<{instancePath: string; message?: string; params?: Record<string, unknown>}> | null
}

const loaded = new Map<string, Promise<CompiledValidator>>()

export const loadValidator = (name: string): Promise<CompiledValidator> => {
  let validator = loaded.get(name)
  if (!validator) {
    const url = pathToFileURL(join(PACKAGE_ROOT, 'dist', 'schemas', `${name}.cjs`)).href
    validator = import(url).then((mod: {default: CompiledValidator}) => mod.default)
    loaded.set(name, validator)
  }
  return validator
}

export const describeSchemaErrors = (validator: CompiledValidator): string[] =>
  (validator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
