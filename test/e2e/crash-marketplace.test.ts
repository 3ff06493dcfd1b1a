/**
 * Kill -9 at every step of `marketplace add`, `update` and `remove` of a marketplace served over HTTPS
 * git (a real clone into the cache). Each command runs once with LOADOUT_FAILPOINT_TRACE, which lists
 * the failpoints it passes (today add passes 7: the mutex made and taken, the clone made, the mirror
 * renamed in, the tree checked out, the record staged and renamed in; update 6; remove 5), then is
 * killed once at each, and SOAK more times at a random moment (a clone killed mid-way). After every kill `marketplace list` answers and
 * has the marketplace or not, at one commit; the same command run again succeeds and the marketplace
 * works (search finds its plugins); no temporary name is left outside loadout's cache.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, makeServedRepo, syncServedRepo, type FileMap} from '../support/git-repos.js'
import {loadout, sandboxes} from './helpers.js'
import * as run from './in-process.js'
import {killLabel, killPlan, killRun, tempNames, tracePoints, type Kill} from './tx-support.js'

const SOAK = 4
const catalog = (version: string) =>
  JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: [{name: 'review', source: './plugins/review', description: 'Reviews code', version}]}, null, 2)
const files = (version: string): FileMap => ({
  '.claude-plugin/marketplace.json': catalog(version),
  'plugins/review/skills/review/SKILL.md': `---\nname: review\ndescription: Reviews code (${version})\n---\n\nReview the diff.\n`,
  // enough to make the clone take a while
  ...Object.fromEntries(Array.from({length: 40}, (_, i) => [`docs/page-${i}.md`, `page ${i} ${version}\n${'lorem ipsum '.repeat(400)}`])),
})

let work: string
let server: GitHttpsServer
let acme: {repo: string; bare: string; sha: string}
const sandbox = sandboxes()

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-mkt-crash-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  acme = makeServedRepo(join(work, 'src'), root, 'acme/plugins', files('1.0.0'))
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('SIGKILL at every step of marketplace add, update and remove', () => {
  it('always leaves the marketplace added or not, at one commit, and the command runs again', {timeout: 1_200_000}, async () => {
    const sb = sandbox()
    const env = {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`, LOADOUT_GIT_TIMEOUT: '20'}
    const inside = run.sandboxEnv(sb, env)
    const cli = (s: Sandbox, args: string[]) => loadout(s, args, {env})
    const add = ['marketplace', 'add', 'acme/plugins', '--scope', 'user']
    const update = ['marketplace', 'update', 'acme']
    const remove = ['marketplace', 'remove', 'acme', '--yes']
    const again = {
      add: () => run.marketplaceAdd(inside, 'acme/plugins'),
      update: () => run.marketplaceUpdate(inside, 'acme'),
      remove: () => run.marketplaceRemove(inside, 'acme'),
    }
    let commits = [acme.sha]
    let version = '1.0.0'
    /** A new commit upstream, which update moves to (or stays at the old one). */
    const publish = (next: string) => {
      version = next
      commits = [...commits, commitFiles(acme.repo, files(version))]
      syncServedRepo(acme.bare)
    }

    /** What the next command sees: the commit acme is at, or undefined when it is not added. */
    const check = async (label: string): Promise<string | undefined> => {
      const list = await run.marketplaceList(inside)
      expect(tempNames(sb.home), label).toEqual([])
      const row = list.marketplaces.find((m) => m.name === 'acme')
      if (!row) return undefined
      expect(commits, label).toContain(row.commit)
      return row.commit
    }
    /** The marketplace is usable: search reads its catalog at the version of that commit. */
    const works = async (label: string) => {
      const found = await run.search(inside, ['review'])
      expect(JSON.stringify(found), label).toContain(`"version":"${version}"`)
    }

    // one unkilled round through the CLI, then a traced one that names the points each command passes
    expect((await cli(sb, add)).status).toBe(0)
    await works('after an unkilled add')
    publish('1.0.1')
    expect((await cli(sb, update)).status).toBe(0)
    expect(await check('after an unkilled update')).toBe(commits.at(-1))
    expect((await cli(sb, remove)).status).toBe(0)
    expect(await check('after an unkilled remove')).toBeUndefined()
    const tracedAdd = await tracePoints(sb, add, env)
    publish('1.0.2')
    const traced = {add: tracedAdd, update: await tracePoints(sb, update, env), remove: await tracePoints(sb, remove, env)}
    expect(await check('after a traced add, update and remove')).toBeUndefined()
    console.log(`failpoints passed: add ${traced.add.points.length}, update ${traced.update.points.length}, remove ${traced.remove.points.length}`)
    for (const t of Object.values(traced)) expect(t.points.length).toBeGreaterThan(4)

    /** Kills one run; the same command again succeeds (in-process after a failpoint, through the CLI after a random kill). */
    const killOnce = async (command: 'add' | 'update' | 'remove', args: string[], kill: Kill | undefined, done: (seen: string | undefined) => boolean) => {
      if (!kill) return void (await again[command]())
      const label = killLabel(`marketplace ${command}`, kill)
      await killRun(sb, args, kill, env)
      const seen = await check(label)
      if (command === 'update') expect(seen, label).toBeDefined()
      if (!done(seen)) {
        if ('point' in kill) await again[command]()
        else {
          const result = await cli(sb, args)
          expect(result.status, `${label}, then again: ${result.stderr}`).toBe(0)
        }
      }
      return label
    }

    const adds = killPlan(traced.add, SOAK)
    const updates = killPlan(traced.update, SOAK)
    const removes = killPlan(traced.remove, SOAK)
    for (let i = 0; i < Math.max(adds.length, updates.length, removes.length); i++) {
      // add starts from no copy in the cache, as traced: a remove killed between its record and its cache leaves one (loadout's own, harmless)
      rmSync(join(sb.home, '.cache', 'loadout', 'git'), {recursive: true, force: true})
      let label = (await killOnce('add', add, adds[i], (seen) => seen !== undefined)) ?? 'add'
      expect(await check(`${label}, re-run`)).toBe(commits.at(-1))
      await works(label)

      publish(`1.${i + 1}.0`)
      label = (await killOnce('update', update, updates[i], (seen) => seen === commits.at(-1))) ?? 'update'
      expect(await check(`${label}, re-run`)).toBe(commits.at(-1))
      await works(label)

      label = (await killOnce('remove', remove, removes[i], (seen) => seen === undefined)) ?? 'remove'
      expect(await check(`${label}, re-run`)).toBeUndefined()
    }
  })
})
