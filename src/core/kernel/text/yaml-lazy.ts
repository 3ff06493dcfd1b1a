import {createRequire} from 'node:module'

let loaded: typeof import('yaml') | undefined

/**
 * The `yaml` package, loaded on first need (~25 ms of start-up): most frontmatter is flat
 * `key: text` lines read without it, and most installs write no YAML.
 */
export const yaml = (): typeof import('yaml') => (loaded ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'))
