#!/usr/bin/env node
// Runs the CLI from a fresh build of src/ (no ts-node: `npm run build` is fast enough).
import {execFileSync} from 'node:child_process'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
execFileSync(process.execPath, [join(root, 'bin', 'build.mjs')], {stdio: ['ignore', 'ignore', 'inherit']})
const {execute} = await import('@oclif/core')
await execute({dir: import.meta.url})
