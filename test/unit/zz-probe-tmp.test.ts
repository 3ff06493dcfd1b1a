import {mkdtempSync, writeFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {it} from 'vitest'
import {Parser, create} from 'tar'
import {extractTarGz} from '../../src/core/fetch/archive.js'
it('probe', async () => {
  const base = mkdtempSync(join(tmpdir(), 'probe-'))
  // tar-made archive of 10000 dirs
  const src = join(base, 'src'); const {mkdirSync} = await import('node:fs'); mkdirSync(src)
  const names: string[] = []
  for (let i = 0; i < 10000; i++) { mkdirSync(join(src, `d${i}`)); names.push(`d${i}`) }
  const a = join(base, 'a.tgz')
  let t = performance.now()
  await create({gzip: true, file: a, cwd: src, portable: true}, names)
  console.log('create', performance.now() - t)
  t = performance.now()
  await extractTarGz(a, join(base, 'out'))
  console.log('extract 10k dirs', performance.now() - t)
  // parse only
  t = performance.now()
  await new Promise<void>((res) => { const p = new Parser({}); p.on('entry', (e: any) => e.resume()); p.on('end', () => res()); const {createReadStream} = require('node:fs'); createReadStream(a).pipe(p) })
  console.log('parse only', performance.now() - t)
  rmSync(base, {recursive: true, force: true})
})
