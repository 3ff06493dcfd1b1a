import {lazyRequire} from '../env/lazy.js'

/**
 * The `yaml` package, loaded on first need (~25 ms of start-up): most frontmatter is flat
 * `key: text` lines read without it, and most installs write no YAML.
 */
export const yaml = lazyRequire<typeof import('yaml')>('yaml')
