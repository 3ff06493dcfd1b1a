import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

const PRELOAD = pathToFileURL(join(import.meta.dirname, 'module-trace.mjs')).href

/** An environment that makes the CLI list the modules it loads, and a reader of that list. */
export const moduleTrace = (): {env: NodeJS.ProcessEnv; loaded(): string[]; reset(): void; cleanup(): void} => {
  const dir = mkdtempSync(join(tmpdir(), 'loadout-trace-'))
  const file = join(dir, 'modules.txt')
  return {
    env: {NODE_OPTIONS: `--import ${PRELOAD}`, LOADOUT_TRACE_MODULES: file},
    loaded: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []),
    reset: () => rmSync(file, {force: true}),
    cleanup: () => rmSync(dir, {recursive: true, force: true}),
  }
}

/**
 * Whether a package was loaded: by its folder under node_modules, or the fast path's chunk that
 * bundles it (`dist/fast/vendor-<package>-<hash>.cjs`, bin/build.mjs).
 */
export const loadedPackage = (modules: readonly string[], pkg: string): boolean =>
  modules.some((m) => m.includes(`/node_modules/${pkg}/`) || m.includes(`/dist/fast/vendor-${pkg}-`))
