import {lazyRequire} from '../env/lazy.js'

// `jsonc-parser` is CommonJS: an ESM import of it is first scanned for export names, on every run
// of every command that imports a JSON reader. Required on first use instead (the same instance an
// import would give); its const enums are inlined by tsc, so importing those costs nothing.
export const jsonc = lazyRequire<typeof import('jsonc-parser')>('jsonc-parser')
