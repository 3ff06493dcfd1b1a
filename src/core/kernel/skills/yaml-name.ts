import {extname} from 'node:path'

/** A CHARACTOID skill is a `.yaml`/`.yml` file. */
export const isYamlName = (name: string): boolean => ['.yaml', '.yml'].includes(extname(name).toLowerCase())
