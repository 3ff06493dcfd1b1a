import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The installed package's root (dist/core/ is two levels below it). */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const REGISTRY_DIR = join(PACKAGE_ROOT, 'registry')
export const TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates')
