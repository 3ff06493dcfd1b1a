import {createRequire} from 'node:module'

// `jsonc-parser` is CommonJS: an ESM import of it is first scanned for export names, on every run
// of every command that imports a JSON reader. Required on first use instead (the same instance an
// import would give); its const enums are inlined by tsc, so importing those costs nothing.
let loaded: typeof import('jsonc-parser') | undefined
export const jsonc = (): typeof import('jsonc-parser') => (loaded ??= createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser'))
