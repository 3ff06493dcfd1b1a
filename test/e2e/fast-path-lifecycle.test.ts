/**
 * The lifecycle of what is installed (update, enable, disable, outdated, prune) and its upkeep take
 * the fast path. Two sandboxes made alike run the same steps, one through the fast path and one
 * through oclif (LOADOUT_NO_FAST=1): every step must print the same (sandbox paths and times aside)
 * and exit the same, and each must have taken the path expected (the modules loaded).
 */
import {appendFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'vitest'
import {sandboxes, type Sandbox} from './helpers.js'
import {writeKit} from './tx-support.js'
import {bothWays, fast, oclif} from './both-ways.js'

const sandbox = sandboxes()
const holdsEqual = bothWays()

const kit = (sb: Sandbox) => join(sb.dir, 'kit')
const setUp = (): Sandbox => {
  const sb = sandbox({git: true})
  writeKit(sb.dir, 'kit')
  return sb
}

describe('the fast path of the lifecycle commands', () => {
  const quick = setUp()
  const slow = setUp()

  it('update, enable, disable, outdated and prune print and exit as oclif does', {timeout: 600_000}, async () => {
    await holdsEqual(
      [quick, slow],
      [
        fast((sb) => ['install', '--loose', kit(sb), '--agent', 'codex', '--scope', 'user', '--yes']),
        fast(() => ['outdated']),
        fast(() => ['outdated', '--json']),
        fast(() => ['outdated', 'nothing@here']),
        oclif(() => ['outdated', '--bogus']),
        fast(() => ['update', '--scope', 'user', '--json']),
        {act: (sb) => writeKit(sb.dir, 'kit', 'v2')},
        fast(() => ['outdated', 'kit@direct', '--json']),
        fast(() => ['update', '--scope', 'user', '--dry-run']),
        // what it runs changed (v2's hook): off a terminal that needs --yes
        fast(() => ['update', 'kit@direct', '--scope', 'user'], 8),
        fast(() => ['update', 'kit@direct', '--scope', 'user', '--yes']),
        fast(() => ['update', 'nothing@here', '--scope', 'user', '--json']),
        fast(() => ['update', '--auto', 'kit@direct'], 2),
        oclif(() => ['update', '--auto', '--yes']),
        oclif(() => ['update', '--scope', 'everywhere']),
        fast(() => ['disable', 'kit@direct', '--scope', 'user', '--dry-run', '--json']),
        fast(() => ['disable', 'kit@direct', '--scope', 'user']),
        fast(() => ['disable', 'kit@direct', '--scope', 'user', '--json']),
        fast(() => ['enable', 'kit@direct', '--scope', 'user', '--json']),
        fast(() => ['enable', 'nothing@here', '--scope', 'user'], 3),
        oclif(() => ['enable']),
        oclif(() => ['disable', 'kit@direct', 'other@here']),
        // a repeatable part flag is greedy in oclif (it takes the words after it): oclif reads it
        oclif(() => ['disable', 'kit@direct', '--scope', 'user', '--skill', 'kit-alpha'], 0),
        oclif(() => ['enable', 'kit@direct', '--scope', 'user', '--skill', 'kit-alpha', '--json'], 0),
        fast(() => ['prune', '--scope', 'user', '--dry-run', '--json']),
        fast(() => ['prune', '--scope', 'user', '--yes']),
        oclif(() => ['prune', 'extra']),
        fast(() => ['list', '--json']),
      ],
    )
  })

  it('doctor, diff, audit, sbom, budget, configure, cache and policy show print and exit as oclif does', {timeout: 600_000}, async () => {
    await holdsEqual(
      [quick, slow],
      [
        fast(() => ['doctor']),
        fast(() => ['doctor', '--json']),
        oclif(() => ['doctor', 'extra']),
        fast(() => ['diff', 'kit@direct', '--scope', 'user']),
        fast(() => ['diff', 'kit@direct', '--json']),
        fast(() => ['diff', 'nothing@here'], 3),
        oclif(() => ['diff']),
        fast(() => ['audit']),
        fast(() => ['audit', '--scope', 'user', '--json']),
        fast(() => ['audit', '--format', 'sarif']),
        fast(() => ['audit', '--format', 'sarif', '--json'], 2),
        oclif(() => ['audit', '--format', 'xml']),
        // an installed file changed: audit and doctor fail, with the report on stderr
        {act: (sb) => appendFileSync(join(sb.home, '.agents', 'skills', 'kit-alpha', 'SKILL.md'), 'changed\n')},
        fast(() => ['audit'], 7),
        fast(() => ['audit', '--json'], 7),
        fast(() => ['doctor']),
        fast(() => ['sbom', '--format', 'cyclonedx', '--scope', 'user']),
        fast(() => ['sbom', '-f', 'spdx', '--json']),
        fast((sb) => ['sbom', '-f', 'spdx', '--out', join(sb.dir, 'sbom.json')]),
        oclif(() => ['sbom']),
        oclif(() => ['sbom', '--format', 'xml']),
        fast(() => ['budget']),
        fast(() => ['budget', '--agent', 'codex', '--scope', 'user', '--json']),
        fast(() => ['budget', '--agent', 'nope'], 2),
        oclif(() => ['budget', '--scope', 'everywhere']),
        fast(() => ['configure', 'kit@direct', '--scope', 'user']),
        fast(() => ['configure', 'kit@direct', '--scope', 'user', '--export', '--json']),
        fast(() => ['configure', 'nothing@here', '--json'], 3),
        oclif(() => ['configure']),
        oclif(() => ['configure', 'kit@direct', '--scope', 'user', '--set', 'A=1']),
        // the stat memo keeps only files unchanged for 3 s (src/core/kernel/fs/stat-memo.ts): whether the
        // steps above wrote one depends on the clock, and the two sandboxes run seconds apart
        {act: (sb) => rmSync(join(sb.home, '.cache', 'loadout', 'stat-memo'), {recursive: true, force: true})},
        fast(() => ['cache', 'list']),
        fast(() => ['cache', 'list', '--json']),
        oclif(() => ['cache', 'list', 'extra']),
        fast(() => ['cache', 'clean', '--dry-run', '--json']),
        fast(() => ['cache', 'clean']),
        oclif(() => ['cache', 'clean', 'extra']),
        fast(() => ['policy', 'show']),
        fast(() => ['policy', 'show', '--json']),
        oclif(() => ['policy', 'show', 'extra']),
      ],
    )
  })
})
