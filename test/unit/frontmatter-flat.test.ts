import {describe, expect, it} from 'vitest'
import {parseYamlLeniently, parseYamlLenientlyByParser, readFlatMapping} from '../../src/core/kernel/text/frontmatter.js'

// readFlatMapping is a shortcut past the YAML parser: wherever it answers, it must answer exactly
// what the parser would, and it must step aside for anything the parser reads differently.
const taken = [
  'name: pdf-tools\ndescription: Reads PDF files',
  'name: pdf-tools\ndescription: Use when: a task mentions PDF files.',
  'name: pdf-tools\n\ndescription: Text with "quotes", commas, [brackets] and {braces}   \r\nlicense: MIT',
  'name: a\ndescription: colon:inside and a#hash',
  'name: a\ndescription: Yes',
  'description: Text é ünïcode 😀',
]
const declined = [
  'name: a\ndescription: "quoted"',
  'name: a\ndescription: text # a comment',
  'name: a\nname: b',
  'name: a\ndescription: ends with:',
  'name: a\nversion: 1.0',
  'name: a\ndisable-model-invocation: true',
  'name: a\ndisable-model-invocation: NULL',
  'name: a\nmetadata:\n  x: y',
  'name: a\nallowed-tools:\n- Read',
  'name: a\ndescription: >\n  folded',
  'name: a\ndescription: two\n  lines',
  '# comment\nname: a',
  '__proto__: polluted',
  'name: a\ndescription: tab\there',
  'name: a\ndescription: nul\u0000here',
  '',
  '   ',
  'name: &anchor a',
  'name: *alias',
  '- a list',
]

describe('frontmatter shortcut', () => {
  it.each(taken)('reads %j as the YAML parser does', (yaml) => {
    const flat = readFlatMapping(yaml)
    expect(flat).toBeDefined()
    expect(flat).toEqual(parseYamlLenientlyByParser(yaml))
    expect(parseYamlLeniently(yaml)).toEqual(flat)
  })

  it.each(declined)('leaves %j to the YAML parser', (yaml) => {
    expect(readFlatMapping(yaml)).toBeUndefined()
    expect(parseYamlLeniently(yaml)).toEqual(parseYamlLenientlyByParser(yaml))
  })

  it('marks a value with ": " as read leniently', () => {
    expect(readFlatMapping('name: a\ndescription: Use when: x')).toEqual({
      ok: true,
      value: {name: 'a', description: 'Use when: x'},
      lenientKeys: ['description'],
    })
  })
})
