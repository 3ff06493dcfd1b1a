import {createRequire} from 'node:module'

let loaded: typeof import('smol-toml') | undefined

/**
 * The `smol-toml` package, loaded on first need (its CommonJS build, so synchronously): `list`,
 * `verify`, an install's budget check and most installs meet no TOML (a Codex config or subagent).
 */
export const smolToml = (): typeof import('smol-toml') => (loaded ??= createRequire(import.meta.url)('smol-toml') as typeof import('smol-toml'))
