// The benchmark scenarios. Each is a plain object:
//
//   {
//     name: 'short-id',                  // used by --only and in results/latest.json
//     description: 'what it measures',
//     setup(ctx) {},                     // optional, once, untimed: build fixtures under ctx.temp
//     beforeEach(ctx, {kind, index}) {}, // optional, untimed, before every run of either side
//                                        //   (kind: 'command' | 'baseline'), e.g. to empty a target
//     command: (ctx) => step | step[],   // the loadout side
//     baseline: (ctx) => step | step[],  // the yardstick, measured in the same run
//     baselineLabel: 'node -e 0',        // optional; otherwise derived from the step
//     check(ctx, {command, baseline}) {},// optional: sanity check of an untimed first round, given
//                                        //   {stdout, stderr, status} of each side's last step;
//                                        //   throw if wrong and the scenario fails untimed
//     teardown(ctx) {},                  // optional, once; the temp folder is removed anyway
//   }
//
// A step is {cmd, args, cwd?, env?}: one process, spawned and timed whole. A list of steps is run
// in order and timed as one sample (e.g. `git clone` then `cp -r`). Unless a step says otherwise it
// runs in ctx.temp.project with ctx.temp.env (HOME and XDG paths inside the temp folder, NO_COLOR=1).
// Use the helpers below rather than building steps by hand.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {makeSkillsFixture} from './fixtures.js'

/** A process step. */
export const step = (cmd, args = [], options = {}) => ({cmd, args, ...options})

/** `loadout <args…>`, run as `node bin/run.js` from the repository under test. */
export const loadout = (ctx, ...args) => step(process.execPath, [ctx.bin, ...args])

/** `node <args…>` with the same Node binary that runs loadout. */
export const node = (ctx, ...args) => step(process.execPath, args)

/** `node -e <script> <args…>`; the script finds its arguments in process.argv.slice(1). */
export const nodeEval = (ctx, script, ...args) => step(process.execPath, ['-e', script, ...args])

// The raw I/O that `skills list` cannot avoid: list each folder, read each SKILL.md.
const WALK_AND_READ = `
const fs = require('node:fs'), path = require('node:path')
let n = 0, bytes = 0
for (const dir of process.argv.slice(1)) {
  let entries
  try { entries = fs.readdirSync(dir, {withFileTypes: true}) } catch { continue }
  for (const e of entries) {
    if (!e.isDirectory()) continue
    try { bytes += fs.readFileSync(path.join(dir, e.name, 'SKILL.md'), 'utf8').length; n++ } catch {}
  }
}
process.stdout.write(JSON.stringify({skills: n, bytes}) + '\\n')
`

const expectStatusZero = (side, out) => {
  if (out.status !== 0) throw new Error(`${side} exited ${out.status}: ${out.stderr.trim().split('\n')[0] ?? ''}`)
}

export const scenarios = [
  {
    name: 'version',
    description: 'start-up: `loadout --version` against `node -e 0` (the cost of starting Node at all)',
    command: (ctx) => loadout(ctx, '--version'),
    baseline: (ctx) => nodeEval(ctx, '0'),
    baselineLabel: 'node -e 0',
    check(ctx, {command}) {
      expectStatusZero('command', command)
      const {version} = JSON.parse(readFileSync(join(ctx.repo, 'package.json'), 'utf8'))
      if (!command.stdout.includes(version)) throw new Error(`--version printed ${JSON.stringify(command.stdout.trim())}`)
    },
  },
  {
    name: 'help',
    description: 'start-up: `loadout --help` (reads the manifest, renders every topic) against `node -e 0`',
    command: (ctx) => loadout(ctx, '--help'),
    baseline: (ctx) => nodeEval(ctx, '0'),
    baselineLabel: 'node -e 0',
    check(ctx, {command}) {
      expectStatusZero('command', command)
      if (!/skills/.test(command.stdout)) throw new Error('--help does not mention the skills topic')
    },
  },
  {
    name: 'skills-list-500',
    description:
      '`loadout skills list --agent claude-code,codex --json` over 500 skills in 3 folders (200 project ' +
      '.claude/skills, 150 project .agents/skills, 150 ~/.claude/skills; ~2 KB each) against a Node ' +
      'script that only lists the same folders and reads every SKILL.md',
    setup(ctx) {
      ctx.fixture = makeSkillsFixture(ctx.temp)
    },
    command: (ctx) => loadout(ctx, 'skills', 'list', '--agent', 'claude-code,codex', '--json'),
    baseline: (ctx) => nodeEval(ctx, WALK_AND_READ, ...ctx.fixture.folders),
    baselineLabel: 'node -e <readdir + read every SKILL.md>',
    check(ctx, {command, baseline}) {
      expectStatusZero('command', command)
      expectStatusZero('baseline', baseline)
      const listed = JSON.parse(command.stdout)
      const skills = listed.skills ?? listed.result?.skills
      if (!Array.isArray(skills) || skills.length !== ctx.fixture.total) {
        throw new Error(`skills list returned ${Array.isArray(skills) ? skills.length : 'no'} skills, expected ${ctx.fixture.total}`)
      }
      const read = JSON.parse(baseline.stdout)
      if (read.skills !== ctx.fixture.total) throw new Error(`baseline read ${read.skills} SKILL.md files, expected ${ctx.fixture.total}`)
    },
  },
]
