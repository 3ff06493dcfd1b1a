import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join} from 'node:path'

/** The end-to-end tests run the built CLI: build once when dist/ is missing or LOADOUT_TEST_BUILD=1. */
export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..')
  if (process.env.LOADOUT_TEST_BUILD === '1' || !existsSync(join(root, 'dist', 'commands'))) {
    execFileSync(process.execPath, [join(root, 'bin', 'build.mjs')], {cwd: root, stdio: 'inherit'})
  }
}
