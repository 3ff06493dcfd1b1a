import {createHash} from 'node:crypto'
import {chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {fileSha256, integrityOf, treeEntries, treeIntegrity} from '../../src/core/kernel/fs/integrity.js'

const base = mkdtempSync(join(tmpdir(), 'loadout-integrity-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

let count = 0
const fresh = (): string => {
  const dir = join(base, `t${++count}`)
  mkdirSync(dir)
  return dir
}

type Spec = string | {content: string; mode?: number} | {symlink: string} | {dir: true}

const write = (root: string, path: string, spec: Spec): void => {
  const full = join(root, path)
  mkdirSync(dirname(full), {recursive: true})
  if (typeof spec === 'string') writeFileSync(full, spec)
  else if ('symlink' in spec) symlinkSync(spec.symlink, full)
  else if ('dir' in spec) mkdirSync(full, {recursive: true})
  else {
    writeFileSync(full, spec.content)
    chmodSync(full, spec.mode ?? 0o644)
  }
}

const TREE: Record<string, Spec> = {
  'README.md': '# demo\n',
  'skills/review/SKILL.md': '---\nname: review\n---\nReview.\n',
  'skills/review/scripts/run.sh': {content: '#!/bin/sh\necho hi\n', mode: 0o755},
  'agents/a.md': 'agent\n',
  'link-to-readme': {symlink: 'README.md'},
  'Zeta.txt': 'capital Z sorts before lower case\n',
  'émoji-☃.txt': 'non-ASCII name\n',
}

const build = (entries: Array<[string, Spec]>): string => {
  const root = fresh()
  for (const [path, spec] of entries) write(root, path, spec)
  return root
}

describe('treeIntegrity', () => {
  it('is sha256-<hex> and the same whatever order the tree was created in', async () => {
    const forward = Object.entries(TREE)
    const a = build(forward)
    const b = build([...forward].reverse())
    const shuffled = [...forward].sort(() => 0.5 - Math.random())
    const c = build(shuffled)
    const hash = await treeIntegrity(a)
    expect(hash).toMatch(/^sha256-[0-9a-f]{64}$/)
    expect(await treeIntegrity(b)).toBe(hash)
    expect(await treeIntegrity(c)).toBe(hash)
  })

  it('follows the documented format (length-prefixed path, mode, content hash, in byte order)', async () => {
    const root = build(Object.entries(TREE))
    const sha = (s: string): string => createHash('sha256').update(s).digest('hex')
    const rows: Array<[string, string, string]> = [
      ['README.md', '100644', sha('# demo\n')],
      ['Zeta.txt', '100644', sha('capital Z sorts before lower case\n')],
      ['agents/a.md', '100644', sha('agent\n')],
      ['link-to-readme', '120000', sha('README.md')],
      ['skills/review/SKILL.md', '100644', sha('---\nname: review\n---\nReview.\n')],
      ['skills/review/scripts/run.sh', '100755', sha('#!/bin/sh\necho hi\n')],
      ['émoji-☃.txt', '100644', sha('non-ASCII name\n')],
    ]
    const field = (s: string): string => `${Buffer.byteLength(s)}:${s}`
    const expected = `sha256-${sha(rows.map(([p, m, h]) => field(p) + field(m) + field(h)).join(''))}`
    expect((await treeEntries(root)).map((e) => [e.path, e.mode, e.hash])).toEqual(rows)
    expect(await treeIntegrity(root)).toBe(expected)
    expect(integrityOf(await treeEntries(root))).toBe(expected)
  })

  it('ignores mtime, group/other permission bits and empty folders', async () => {
    const a = build(Object.entries(TREE))
    const b = build(Object.entries(TREE))
    chmodSync(join(b, 'README.md'), 0o600)
    chmodSync(join(b, 'skills/review/scripts/run.sh'), 0o700)
    const past = new Date('2001-01-01')
    const {utimesSync} = await import('node:fs')
    utimesSync(join(b, 'agents/a.md'), past, past)
    mkdirSync(join(b, 'empty/deeper'), {recursive: true})
    expect(await treeIntegrity(b)).toBe(await treeIntegrity(a))
  })

  it('leaves .git out, at the top and nested', async () => {
    const a = build(Object.entries(TREE))
    const b = build(Object.entries(TREE))
    write(b, '.git/HEAD', 'ref: refs/heads/main\n')
    write(b, '.git/objects/ab/cdef', 'blob')
    write(b, 'vendor/sub/.git', 'gitdir: ../../.git/modules/sub\n')
    expect(await treeIntegrity(b)).toBe(await treeIntegrity(a))
    // but a file merely named like it is not git's
    write(b, '.gitignore', 'node_modules\n')
    expect(await treeIntegrity(b)).not.toBe(await treeIntegrity(a))
  })

  describe('changes with any change that matters', () => {
    const original = async (): Promise<{root: string; hash: string}> => {
      const root = build(Object.entries(TREE))
      return {root, hash: await treeIntegrity(root)}
    }

    it('a changed byte', async () => {
      const {root, hash} = await original()
      writeFileSync(join(root, 'agents/a.md'), 'agenT\n')
      expect(await treeIntegrity(root)).not.toBe(hash)
    })

    it('a changed executable bit', async () => {
      const {root, hash} = await original()
      chmodSync(join(root, 'README.md'), 0o755)
      expect(await treeIntegrity(root)).not.toBe(hash)
      chmodSync(join(root, 'README.md'), 0o644)
      expect(await treeIntegrity(root)).toBe(hash)
    })

    it('a renamed file, and a file moved to another folder', async () => {
      const {root, hash} = await original()
      renameSync(join(root, 'agents/a.md'), join(root, 'agents/b.md'))
      const renamed = await treeIntegrity(root)
      expect(renamed).not.toBe(hash)
      mkdirSync(join(root, 'agents2'))
      renameSync(join(root, 'agents/b.md'), join(root, 'agents2/b.md'))
      expect(await treeIntegrity(root)).not.toBe(renamed)
    })

    it('a changed symbolic link target, and a link replaced by a file with the target as content', async () => {
      const {root, hash} = await original()
      unlinkSync(join(root, 'link-to-readme'))
      symlinkSync('agents/a.md', join(root, 'link-to-readme'))
      expect(await treeIntegrity(root)).not.toBe(hash)
      unlinkSync(join(root, 'link-to-readme'))
      writeFileSync(join(root, 'link-to-readme'), 'README.md')
      expect(await treeIntegrity(root)).not.toBe(hash)
    })

    it('an added or removed file, even an empty one', async () => {
      const {root, hash} = await original()
      writeFileSync(join(root, 'skills/review/.keep'), '')
      expect(await treeIntegrity(root)).not.toBe(hash)
      unlinkSync(join(root, 'skills/review/.keep'))
      expect(await treeIntegrity(root)).toBe(hash)
    })

    it('a path boundary moved between path and content (length prefixes)', async () => {
      const a = fresh()
      const b = fresh()
      write(a, 'ab', 'c')
      write(b, 'a', 'bc')
      expect(await treeIntegrity(a)).not.toBe(await treeIntegrity(b))
    })
  })

  it('never follows a symbolic link out of the tree (a link to a folder is hashed as a link)', async () => {
    const outside = fresh()
    write(outside, 'secret.txt', 'do not read me\n')
    const root = build(Object.entries(TREE))
    symlinkSync(outside, join(root, 'out'))
    const entries = await treeEntries(root)
    expect(entries.find((e) => e.path === 'out')).toEqual({
      path: 'out',
      mode: '120000',
      hash: createHash('sha256').update(outside).digest('hex'),
    })
    expect(entries.some((e) => e.path.startsWith('out/'))).toBe(false)
  })

  it('hashes 5,000 files quickly', async () => {
    const root = fresh()
    for (let d = 0; d < 50; d++) {
      mkdirSync(join(root, `dir${d}`))
      for (let f = 0; f < 100; f++) writeFileSync(join(root, `dir${d}`, `file${f}.md`), `# ${d}/${f}\n${'x'.repeat(200 + f)}\n`)
    }
    const started = performance.now()
    const hash = await treeIntegrity(root)
    const elapsed = performance.now() - started
    expect(hash).toMatch(/^sha256-/)
    expect((await treeEntries(root)).length).toBe(5000)
    expect(elapsed).toBeLessThan(3000)
  })

  it('streams a large file to the same hash as reading it whole', async () => {
    const root = fresh()
    const big = Buffer.alloc(9 * 1024 * 1024 + 7, 'ab')
    writeFileSync(join(root, 'big.bin'), big)
    const expected = createHash('sha256').update(big).digest('hex')
    expect(await fileSha256(join(root, 'big.bin'))).toBe(expected)
    expect((await treeEntries(root))[0]!.hash).toBe(expected)
  })
})

describe('fileSha256', () => {
  it('is the hex sha256 of the bytes', async () => {
    const root = fresh()
    writeFileSync(join(root, 'f'), 'hello\n')
    expect(await fileSha256(join(root, 'f'))).toBe('5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03')
  })

  it('refuses a symbolic link', async () => {
    const root = fresh()
    writeFileSync(join(root, 'f'), 'x')
    symlinkSync('f', join(root, 'l'))
    await expect(fileSha256(join(root, 'l'))).rejects.toThrow()
  })
})
