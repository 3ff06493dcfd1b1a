import {lazyRequire} from '../env/lazy.js'

/**
 * The `smol-toml` package, loaded on first need (its CommonJS build, so synchronously): `list`,
 * `verify`, an install's budget check and most installs meet no TOML (a Codex config or subagent).
 */
export const smolToml = lazyRequire<typeof import('smol-toml')>('smol-toml')
