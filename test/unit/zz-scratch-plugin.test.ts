import {mkdirSync, mkdtempSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {it} from 'vitest'
import {readPlugin, inspectPlugin} from '../../src/core/plugin/read.js'
it('show', () => {
  const t = mkdtempSync(join(tmpdir(), 'x-'))
  const root = join(t, 'demo'); mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, '.claude-plugin/plugin.json'), JSON.stringify({name: 'demo', skills: ['./skills/a', './vendor/a', '../x'], agents: './agents', hooks: './h.json'}))
  for (const d of ['skills/a', 'vendor/a']) { mkdirSync(join(root, d), {recursive: true}); writeFileSync(join(root, d, 'SKILL.md'), '---\nname: a\ndescription: d\n---\n') }
  symlinkSync('/etc/passwd', join(root, 'skills/a/pw'))
  symlinkSync('/etc', join(root, 'agents'))
  writeFileSync(join(root, 'h.json'), '{"hooks": 3')
  try { readPlugin(root) } catch (e: any) { console.log(e.code, '\n' + e.message, '\n', JSON.stringify(e.details, null, 1)) }
  const r2 = join(t, 'one'); mkdirSync(r2); writeFileSync(join(r2, 'plugin.json'), JSON.stringify({name: 'one', tools: [{name: 't', command: 'x', timeout: 601}]}))
  try { readPlugin(r2) } catch (e: any) { console.log(e.code, '\n' + e.message) }
})
