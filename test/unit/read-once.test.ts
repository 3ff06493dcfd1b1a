// Inside one install each file of a plugin is read from disk once: the hash for consent, the
// installed copy and a copy of that copy use the bytes first read. Measured with the kernel's own
// count of bytes this process read (/proc/self/io `rchar`), and checked against files that change.
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, renameSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {copyTree} from '../../src/core/kernel/fs/copy.js'
import {readingOnce, readOnceTreeMoved} from '../../src/core/kernel/fs/read-once.js'
import {integrityOf, treeEntries} from '../../src/core/kernel/fs/integrity.js'
import {entriesOf} from '../../src/core/ops/install/plugin-copy.js'

const base = mkdtempSync(join(tmpdir(), 'loadout-kept-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

let count = 0
const fresh = (): string => join(base, `t${++count}`)

const FILES = 40
const SIZE = 64 * 1024

/** A tree of FILES files of SIZE bytes, each different. */
const plugin = (): string => {
  const root = fresh()
  mkdirSync(join(root, 'skills', 'a', 'references'), {recursive: true})
  for (let i = 0; i < FILES; i++) writeFileSync(join(root, 'skills', 'a', 'references', `r${i}.md`), Buffer.alloc(SIZE, `file ${i} `))
  return root
}

const hasProcIo = existsSync('/proc/self/io')
const bytesRead = (): number => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1])

describe.skipIf(!hasProcIo)('kept reads', () => {
  it('hashing, copying and copying the renamed copy read the files once', async () => {
    const from = plugin()
    const to = fresh()
    const again = fresh()
    const total = FILES * SIZE
    await readingOnce(async () => {
      const before = bytesRead()
      const hashed = integrityOf(await treeEntries(from))
      const afterHash = bytesRead()
      expect(integrityOf(entriesOf(copyTree(from, to)))).toBe(hashed)
      renameSync(to, `${to}-moved`)
      readOnceTreeMoved(to, `${to}-moved`)
      expect(integrityOf(entriesOf(copyTree(`${to}-moved`, again)))).toBe(hashed)
      expect(afterHash - before).toBeGreaterThanOrEqual(total)
      expect(bytesRead() - afterHash).toBeLessThan(total / 4)
    })
  })

  it('a copy of the copy written in the same install reads nothing from disk', async () => {
    const from = plugin()
    const to = fresh()
    const again = fresh()
    await readingOnce(async () => {
      await treeEntries(from)
      const before = bytesRead()
      copyTree(from, to)
      copyTree(to, again)
      expect(bytesRead() - before).toBeLessThan((FILES * SIZE) / 4)
    })
    expect(readFileSync(join(again, 'skills', 'a', 'references', 'r7.md'))).toEqual(Buffer.alloc(SIZE, 'file 7 '))
  })

  it('a file changed after it was read is read again: the copy holds the new bytes', async () => {
    const from = plugin()
    const to = fresh()
    const file = join(from, 'skills', 'a', 'references', 'r3.md')
    await readingOnce(async () => {
      await treeEntries(from)
      // same size, so only the inode's times tell: past the file system clock's tick (a few ms)
      await new Promise((r) => setTimeout(r, 30))
      writeFileSync(file, Buffer.alloc(SIZE, 'changed '))
      copyTree(from, to)
    })
    expect(readFileSync(join(to, 'skills', 'a', 'references', 'r3.md'))).toEqual(Buffer.alloc(SIZE, 'changed '))
  })

  it('outside an install nothing is kept', async () => {
    const from = plugin()
    await treeEntries(from)
    const before = bytesRead()
    copyTree(from, fresh())
    expect(bytesRead() - before).toBeGreaterThanOrEqual(FILES * SIZE)
  })
})
