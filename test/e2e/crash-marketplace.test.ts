/**
 * Kill -9 at any moment of `marketplace add`, `update` and `remove` of a marketplace served over HTTPS
 * git (a real clone into the cache, killed mid-way): after every kill `marketplace list` answers and
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
import {runAndSignal, tempNames, timedRun} from './tx-support.js'

const KILLS = 25
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

describe('SIGKILL at 25 moments of marketplace add, update and remove', () => {
  it('always leaves the marketplace added or not, at one commit, and the command runs again', {timeout: 600_000}, async () => {
    const sb = sandbox()
    const env = {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`, LOADOUT_GIT_TIMEOUT: '20'}
    const run = (s: Sandbox, args: string[]) => loadout(s, args, {env})
    const add = ['marketplace', 'add', 'acme/plugins', '--scope', 'user']
    const update = ['marketplace', 'update', 'acme']
    const remove = ['marketplace', 'remove', 'acme', '--yes']
    let commits = [acme.sha]
    let version = '1.0.0'

    /** What the next command sees: the commit acme is at, or undefined when it is not added. */
    const check = async (label: string): Promise<string | undefined> => {
      const list = await run(sb, ['marketplace', 'list', '--json'])
      expect(list.status, `${label}: ${list.stderr}`).toBe(0)
      expect(tempNames(sb.home), label).toEqual([])
      const row = (list.json().marketplaces as Array<{name: string; commit?: string}>).find((m) => m.name === 'acme')
      if (!row) return undefined
      expect(commits, label).toContain(row.commit)
      return row.commit
    }
    /** The marketplace is usable: search reads its catalog at the version of that commit. */
    const works = async (label: string) => {
      const found = await run(sb, ['search', 'review', '--json'])
      expect(found.status, `${label}: ${found.stderr}`).toBe(0)
      expect(JSON.stringify(found.json()), label).toContain(`"version":"${version}"`)
    }
    const timed = (args: string[]) => timedRun(sb, args, env)
    const span = {add: await timed(add), update: 0, remove: 0}
    await works('after an unkilled add')
    span.remove = await timed(remove)
    expect(await check('after an unkilled remove')).toBeUndefined()

    const killAt = async (command: 'add' | 'update' | 'remove', args: string[], i: number) => {
      const delay = Math.floor(((i + Math.random()) / KILLS) * Math.max(span[command], 50) * 1.1)
      await runAndSignal(sb, args, delay, 'SIGKILL', env)
      const label = `${command} killed at ${delay} ms (kill ${i + 1})`
      return {seen: await check(label), label}
    }

    for (let i = 0; i < KILLS; i++) {
      let {seen, label} = await killAt('add', add, i)
      if (seen === undefined) {
        const again = await run(sb, add)
        expect(again.status, `${label}, then again: ${again.stderr}`).toBe(0)
      }
      expect(await check(`${label}, re-run`)).toBe(commits.at(-1))
      await works(label)

      // a new commit upstream: update moves to it, or stays at the old one
      version = `1.${i + 1}.0`
      commits = [...commits, commitFiles(acme.repo, files(version))]
      syncServedRepo(acme.bare)
      if (span.update === 0) {
        span.update = await timed(update)
        version = `1.${i + 1}.1`
        commits = [...commits, commitFiles(acme.repo, files(version))]
        syncServedRepo(acme.bare)
      }
      ;({seen, label} = await killAt('update', update, i))
      expect(seen, label).toBeDefined()
      if (seen !== commits.at(-1)) {
        const again = await run(sb, update)
        expect(again.status, `${label}, then again: ${again.stderr}`).toBe(0)
      }
      expect(await check(`${label}, re-run`)).toBe(commits.at(-1))
      await works(label)

      ;({seen, label} = await killAt('remove', remove, i))
      if (seen !== undefined) {
        const again = await run(sb, remove)
        expect(again.status, `${label}, then again: ${again.stderr}`).toBe(0)
      }
      expect(await check(`${label}, re-run`)).toBeUndefined()
    }
    console.log(`unkilled runs took ${JSON.stringify(span)} ms`)
  })
})
