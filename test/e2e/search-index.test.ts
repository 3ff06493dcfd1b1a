/**
 * `search` reads a compact index of each catalog (under the cache) rather than re-reading and
 * re-validating the catalog; the index must never answer for a catalog that changed, and a damaged
 * index is only a slower search.
 */
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

const writeMarket = (dir: string, plugins: Array<Record<string, unknown>>) => {
  mkdirSync(join(dir, '.claude-plugin'), {recursive: true})
  writeFileSync(join(dir, '.claude-plugin', 'marketplace.json'), JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins}, null, 2))
}

const search = async (sb: ReturnType<typeof sandbox>, query: string) => {
  const result = await loadout(sb, ['search', query, '--marketplace', 'acme', '--json'])
  expect(result.status, result.stderr).toBe(0)
  return result.json().hits as Array<{name: string; id: string; description?: string; problems: unknown[]}>
}

const indexDir = (sb: ReturnType<typeof sandbox>) => join(sb.home, '.cache', 'loadout', 'search-index')

describe('search index', () => {
  it('is written on the first search, follows a catalog that changed, and survives being damaged', async () => {
    const sb = sandbox()
    const market = join(sb.dir, 'market')
    writeMarket(market, [
      {name: 'review', source: './plugins/review', description: 'Reviews code', keywords: ['lint']},
      {name: 'broken-one', source: {source: 'pip', package: 'x'}, description: 'Reviews with an unsupported source'},
    ])
    expect((await loadout(sb, ['marketplace', 'add', market, '--json'])).status).toBe(0)

    const first = await search(sb, 'review')
    expect(first.map((h) => h.id).sort()).toEqual(['broken-one@acme', 'review@acme'])
    const files = readdirSync(indexDir(sb))
    expect(files).toHaveLength(1)
    // the second search answers from the index, with exactly what the catalog gave
    expect(await search(sb, 'review')).toEqual(first)

    // the catalog edited in place: the index is stale and not used
    writeMarket(market, [{name: 'review', source: './plugins/review', description: 'Reviews code, now faster'}])
    const changed = await search(sb, 'review')
    expect(changed.map((h) => [h.id, h.description])).toEqual([['review@acme', 'Reviews code, now faster']])

    // damaged index files: the catalog is read instead
    // (not an index; an entry that is not what the header says; an entry that is not one; a file cut short)
    const good = readFileSync(join(indexDir(sb), files[0]!), 'utf8')
    expect(good).toContain('"name":"review"')
    const lastEntry = good.lastIndexOf('{"name"')
    for (const junk of [
      'not json',
      good.replace('"name":"review"', '"name":"reviev"'),
      `${good.slice(0, lastEntry)}{"name":7}${' '.repeat(good.length - lastEntry - 11)}\n`,
      good.slice(0, -5),
    ]) {
      writeFileSync(join(indexDir(sb), files[0]!), junk)
      expect(await search(sb, 'review')).toEqual(changed)
    }
  })
})
