import {nodeRequire} from './node-require.js'

/** A value made on first need and kept: for what costs a run to make though most runs never use it. */
export const lazy = <T>(make: () => T): (() => T) => {
  let made: T | undefined
  return () => (made ??= make())
}

/**
 * A module required on first need (synchronously: a CommonJS package or one of Node's own), the same
 * instance an import would give. An ESM import of a CommonJS package is scanned for its export names
 * on every run that imports it, used or not.
 */
export const lazyRequire = <T>(specifier: string): (() => T) => lazy(() => nodeRequire(specifier) as T)
