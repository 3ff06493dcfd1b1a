import {it} from 'vitest'
import {editJsonMember, removeJsonMember, parseJsonText, getJsonMember} from '../../src/core/config/json-edit.js'
const time = (label: string, fn: () => unknown) => { const t = performance.now(); fn(); const ms = performance.now() - t; console.log(label, ms.toFixed(1), 'ms'); }
it('bench', () => {
  for (const depth of [1000, 10_000, 50_000, 100_000]) {
    const deep = `{"a": ${'['.repeat(depth)}${']'.repeat(depth)}}`
    time(`deep ${depth} get`, () => getJsonMember(deep, [], 'b', 'f'))
  }
  const flat = `{"a": [${Array.from({length: 100_000}, () => '[]').join(',')}]}`
  time('flat 100k get', () => getJsonMember(flat, [], 'b', 'f'))
})
