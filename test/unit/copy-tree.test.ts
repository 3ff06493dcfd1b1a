import {createHash} from 'node:crypto'
import {chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {copyTree} from '../../src/core/kernel/fs/copy.js'
import {treeIntegrity} from '../../src/core/kernel/fs/integrity.js'
import {entriesOf} from '../../src/core/ops/install/plugin-copy.js'
import {integrityOf} from '../../src/core/kernel/fs/integrity.js'

const base = mkdtempSync(join(tmpdir(), 'loadout-copy-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

let count = 0
const fresh = (): string => join(base, `t${++count}`)

const put = (root: string, path: string, content: string | Buffer, mode = 0o644): void => {
  const full = join(root, path)
  mkdirSync(dirname(full), {recursive: true})
  writeFileSync(full, content)
  chmodSync(full, mode)
}

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

describe('copyTree', () => {
  it('copies files, links and empty folders, hashing the bytes it writes, and leaves .git out', () => {
    const from = fresh()
    // larger than the copy's 1 MiB chunk, so it is written in several pieces
    const big = Buffer.alloc(2.5 * 1024 * 1024 + 7, 'x')
    put(from, 'SKILL.md', '---\nname: a\n---\nbody\n')
    put(from, 'scripts/run.sh', '#!/bin/sh\necho hi\n', 0o775)
    put(from, 'data/big.bin', big, 0o664)
    put(from, '.git/config', '[core]\n')
    mkdirSync(join(from, 'empty'))
    symlinkSync('SKILL.md', join(from, 'alias.md'))
    const to = fresh()
    const copied = copyTree(from, to)

    const byPath = new Map(copied.map((c) => [c.path, c]))
    expect([...byPath.keys()].sort()).toEqual(['SKILL.md', 'alias.md', 'data/big.bin', 'scripts/run.sh'])
    expect(readFileSync(join(to, 'data/big.bin')).equals(big)).toBe(true)
    expect(byPath.get('data/big.bin')!.sha256).toBe(sha(big))
    expect(byPath.get('SKILL.md')!.sha256).toBe(sha(readFileSync(join(to, 'SKILL.md'))))
    expect(byPath.get('alias.md')).toMatchObject({mode: 0o120000, sha256: sha('SKILL.md')})
    expect(readlinkSync(join(to, 'alias.md'))).toBe('SKILL.md')
    // git's two modes, whatever the group bits of the source
    expect(statSync(join(to, 'scripts/run.sh')).mode & 0o777).toBe(0o755)
    expect(statSync(join(to, 'data/big.bin')).mode & 0o777).toBe(0o644)
    expect(lstatSync(join(to, 'empty')).isDirectory()).toBe(true)
    expect(existsSync(join(to, '.git'))).toBe(false)
  })

  it('gives the integrity a second hashing pass over the copy would give', async () => {
    const from = fresh()
    put(from, 'b/one.md', 'one\n')
    put(from, 'B/two.md', 'two\n')
    put(from, 'émoji-☃.txt', 'non-ASCII name\n')
    put(from, 'bin/tool', '#!/bin/sh\n', 0o755)
    symlinkSync('b/one.md', join(from, 'link'))
    const to = fresh()
    expect(integrityOf(entriesOf(copyTree(from, to)))).toBe(await treeIntegrity(to))
  })

  it('sets the modes itself under a umask that would strip them', () => {
    const from = fresh()
    put(from, 'run.sh', '#!/bin/sh\n', 0o755)
    put(from, 'notes.md', 'notes\n')
    const to = fresh()
    const before = process.umask(0o077)
    try {
      copyTree(from, to)
    } finally {
      process.umask(before)
    }
    expect(statSync(join(to, 'run.sh')).mode & 0o777).toBe(0o755)
    expect(statSync(join(to, 'notes.md')).mode & 0o777).toBe(0o644)
  })

  it('refuses a link that leaves the tree', () => {
    const from = fresh()
    put(from, 'ok.md', 'ok\n')
    symlinkSync('/etc/passwd', join(from, 'escape'))
    expect(() => copyTree(from, fresh())).toThrow(/links outside/)
  })
})
