import {describe, expect, it} from 'vitest'
import {editJsonMember, getJsonMember, parseJsonText, removeJsonMember, setJsonMember, undoJsonEdit} from '../../src/core/kernel/agent-config/json-edit.js'
import {LoadoutError} from '../../src/core/model/errors.js'
import {SHAPES} from '../support/json-shapes.js'

const FILE = '/home/u/.claude.json'

/** The error a function throws (fails the test when it throws nothing). */
const thrown = (fn: () => unknown): LoadoutError => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(LoadoutError)
    return error as LoadoutError
  }
  throw new Error('expected a LoadoutError, nothing was thrown')
}

const SERVER = {command: 'npx', args: ['-y', '@acme/review-lint'], env: {TOKEN: '${TOKEN}'}}

/** `data` with `value` set at path/key, as a plain object (what the edited text must parse to). */
const withMember = (data: unknown, path: string[], key: string, value: unknown): unknown => {
  const copy = structuredClone(data ?? {}) as Record<string, unknown>
  let obj = copy
  for (const p of path) {
    if (!(p in obj)) obj[p] = {}
    obj = obj[p] as Record<string, unknown>
  }
  obj[key] = value
  return copy
}

describe('setJsonMember then removeJsonMember gives the original back', () => {
  for (const shape of SHAPES) {
    for (const [key, value] of [
      ['review-lint', SERVER],
      ['ünï "q" \\ \u2028 😀', {command: 'a\tb', args: ['\u0000', '"', '\\'], n: -1.5e-7, ok: true, none: null}],
    ] as Array<[string, unknown]>) {
      it(`${shape.name}: ${JSON.stringify(key)}`, () => {
        const before = shape.text.trim() === '' || shape.text === '\uFEFF' ? {} : parseJsonText(shape.text, FILE)
        const edit = editJsonMember(shape.text, shape.path, key, value, FILE)
        expect(edit.text).not.toBe(shape.text)
        expect(getJsonMember(edit.text, shape.path, key, FILE)).toEqual(value)
        expect(parseJsonText(edit.text, FILE)).toEqual(withMember(before, shape.path, key, value))
        // The record is plain data: it survives a trip through the install record's JSON.
        const undo = JSON.parse(JSON.stringify(edit.undo)) as typeof edit.undo
        expect(removeJsonMember(edit.text, shape.path, key, FILE, undo)).toBe(shape.text)
        expect(undoJsonEdit(edit.text, undo, FILE)).toBe(shape.text)
        const plain = removeJsonMember(edit.text, shape.path, key, FILE)
        if (shape.exactWithoutUndo) expect(plain).toBe(shape.text)
        expect(getJsonMember(plain, shape.path, key, FILE)).toBeUndefined()
      })
    }
  }
})

describe('strict JSON and JSONC are read alike', () => {
  // Strict JSON goes through JSON.parse and a fast walk, JSONC through the validating scanner: a
  // comment after the document sends the same text down the other road, and the edit must match.
  for (const shape of SHAPES.filter((s) => s.text.trim() !== '' && s.text !== '\uFEFF')) {
    it(shape.name, () => {
      const jsonc = `${shape.text}/* c */`
      const edit = editJsonMember(shape.text, shape.path, 'k', SERVER, FILE)
      const editc = editJsonMember(jsonc, shape.path, 'k', SERVER, FILE)
      expect(editc.text).toBe(`${edit.text}/* c */`)
      expect(removeJsonMember(editc.text, shape.path, 'k', FILE, editc.undo)).toBe(jsonc)
      expect(removeJsonMember(editc.text, shape.path, 'k', FILE)).toBe(removeJsonMember(edit.text, shape.path, 'k', FILE) + '/* c */')
    })
  }
})

describe('setJsonMember writes in the file’s own style', () => {
  it('appends after the last member with the same indentation (2 spaces)', () => {
    const text = '{\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    }\n  }\n}\n'
    expect(setJsonMember(text, ['mcpServers'], 'review-lint', {command: 'npx', args: ['-y']}, FILE)).toBe(
      '{\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    },\n    "review-lint": {\n      "command": "npx",\n      "args": [\n        "-y"\n      ]\n    }\n  }\n}\n',
    )
  })

  it('keeps CRLF line breaks and tab indentation', () => {
    const text = '{\r\n\t"mcpServers": {\r\n\t\t"other": 1\r\n\t}\r\n}\r\n'
    expect(setJsonMember(text, ['mcpServers'], 'x', {command: 'a'}, FILE)).toBe(
      '{\r\n\t"mcpServers": {\r\n\t\t"other": 1,\r\n\t\t"x": {\r\n\t\t\t"command": "a"\r\n\t\t}\r\n\t}\r\n}\r\n',
    )
  })

  it('uses 4 spaces when the file does', () => {
    const text = '{\n    "a": 1\n}\n'
    expect(setJsonMember(text, ['mcpServers'], 'x', {command: 'a'}, FILE)).toBe(
      '{\n    "a": 1,\n    "mcpServers": {\n        "x": {\n            "command": "a"\n        }\n    }\n}\n',
    )
  })

  it('writes minified into a minified file', () => {
    expect(setJsonMember('{"a":1,"mcpServers":{"o":{}}}', ['mcpServers'], 'x', {command: 'a', args: ['b']}, FILE)).toBe(
      '{"a":1,"mcpServers":{"o":{},"x":{"command":"a","args":["b"]}}}',
    )
  })

  it('fills an empty object of a pretty file on lines of its own', () => {
    const text = '{\n  "mcpServers": {},\n  "theme": "dark"\n}\n'
    expect(setJsonMember(text, ['mcpServers'], 'x', {command: 'a'}, FILE)).toBe(
      '{\n  "mcpServers": {\n    "x": {\n      "command": "a"\n    }\n  },\n  "theme": "dark"\n}\n',
    )
  })

  it('makes a new document out of an empty file', () => {
    expect(setJsonMember('', ['mcpServers'], 'x', {command: 'a'}, FILE)).toBe('{\n  "mcpServers": {\n    "x": {\n      "command": "a"\n    }\n  }\n}\n')
    expect(setJsonMember('  \r\n', [], 'hooks', {}, FILE)).toBe('{\r\n  "hooks": {}\r\n}\r\n')
  })

  it('puts a new member after a comment that ends the last member’s line, and the comma before the comment', () => {
    const text = '{\n  "a": 1 // one\n}\n'
    expect(setJsonMember(text, [], 'b', 2, FILE)).toBe('{\n  "a": 1, // one\n  "b": 2\n}\n')
  })

  it('follows trailing commas when the object uses them', () => {
    expect(setJsonMember('{\n  "a": 1,\n}\n', [], 'b', 2, FILE)).toBe('{\n  "a": 1,\n  "b": 2,\n}\n')
    expect(setJsonMember('{"a": 1, "b": 2,}', [], 'c', 3, FILE)).toBe('{"a": 1, "b": 2, "c": 3,}')
  })

  it('keeps a comment-only empty object’s comments', () => {
    expect(setJsonMember('{\n  "s": {\n    // add here\n  }\n}', ['s'], 'x', 1, FILE)).toBe('{\n  "s": {\n    "x": 1\n    // add here\n  }\n}')
  })

  it('escapes keys and values as JSON', () => {
    const out = setJsonMember('{}', [], 'a"b\\c\u0001', 'x\ny\u2028', FILE)
    expect(out).toBe('{"a\\"b\\\\c\\u0001":"x\\ny\u2028"}')
    expect(getJsonMember(out, [], 'a"b\\c\u0001', FILE)).toBe('x\ny\u2028')
  })

  it('creates a member named __proto__ as data', () => {
    const out = setJsonMember('{}\n', ['__proto__'], 'x', 1, FILE)
    expect(out).toBe('{\n  "__proto__": {\n    "x": 1\n  }\n}\n')
    expect(getJsonMember(out, ['__proto__'], 'x', FILE)).toBe(1)
  })

  it('matches keys by their decoded value', () => {
    const text = '{"mcp\\u0053ervers": {"\\u0061": 1}}'
    expect(setJsonMember(text, ['mcpServers'], 'a', 2, FILE)).toBe('{"mcp\\u0053ervers": {"\\u0061": 2}}')
  })
})

describe('a key that already exists', () => {
  it('replaces only the value text, then the undo record puts the old text back', () => {
    const text = '{\n  "mcpServers": {\n    "x": { "command":"old" , /* keep me */ "args": [ ] },\n    "y": 1\n  }\n}\n'
    const edit = editJsonMember(text, ['mcpServers'], 'x', {command: 'new'}, FILE)
    expect(edit.text).toBe('{\n  "mcpServers": {\n    "x": {\n      "command": "new"\n    },\n    "y": 1\n  }\n}\n')
    expect(edit.undo.previous).toBe('{ "command":"old" , /* keep me */ "args": [ ] }')
    expect(undoJsonEdit(edit.text, edit.undo, FILE)).toBe(text)
  })

  it('setting the old value back gives the original when it was written the same way', () => {
    const text = '{\n  "mcpServers": {\n    "x": {\n      "command": "old",\n      "args": [\n        "a"\n      ]\n    }\n  },\n  "z": 0\n}\n'
    const old = getJsonMember(text, ['mcpServers'], 'x', FILE)
    const changed = setJsonMember(text, ['mcpServers'], 'x', {command: 'new'}, FILE)
    expect(changed).not.toBe(text)
    expect(setJsonMember(changed, ['mcpServers'], 'x', old, FILE)).toBe(text)
  })

  it('replaces the last of duplicate keys, as JSON.parse reads it', () => {
    expect(setJsonMember('{"a": 1, "a": 2}', [], 'a', 3, FILE)).toBe('{"a": 1, "a": 3}')
  })
})

describe('removeJsonMember', () => {
  it('leaves the text alone when there is nothing to remove', () => {
    const text = '{\n  "mcpServers": {"a": 1},\n  "s": "x"\n}\n'
    expect(removeJsonMember(text, ['mcpServers'], 'b', FILE)).toBe(text)
    expect(removeJsonMember(text, ['nope'], 'a', FILE)).toBe(text)
    expect(removeJsonMember(text, ['s'], 'a', FILE)).toBe(text)
    expect(removeJsonMember('', ['mcpServers'], 'a', FILE)).toBe('')
  })

  it('removes a first or middle member with its line, or with its comma on one line', () => {
    const text = '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n'
    expect(removeJsonMember(text, [], 'a', FILE)).toBe('{\n  "b": 2,\n  "c": 3\n}\n')
    expect(removeJsonMember(text, [], 'b', FILE)).toBe('{\n  "a": 1,\n  "c": 3\n}\n')
    expect(removeJsonMember(text, [], 'c', FILE)).toBe('{\n  "a": 1,\n  "b": 2\n}\n')
    expect(removeJsonMember('{"a": 1, "b": 2, "c": 3}', [], 'b', FILE)).toBe('{"a": 1, "c": 3}')
    expect(removeJsonMember('{"a":1,"b":2}', [], 'a', FILE)).toBe('{"b":2}')
  })

  it('takes a member’s own comment with it and leaves the others', () => {
    const text = '{\n  // servers\n  "a": 1, // the a server\n  "b": 2\n}\n'
    expect(removeJsonMember(text, [], 'a', FILE)).toBe('{\n  // servers\n  "b": 2\n}\n')
  })

  it('keeps a created parent that has gained other members since', () => {
    const first = editJsonMember('{\n  "a": 1\n}\n', ['mcpServers'], 'x', 1, FILE)
    const second = editJsonMember(first.text, ['mcpServers'], 'y', 2, FILE)
    expect(second.undo.createdParents).toBe(0)
    // Undone in reverse order, the file comes back exactly.
    expect(removeJsonMember(removeJsonMember(second.text, ['mcpServers'], 'y', FILE, second.undo), ['mcpServers'], 'x', FILE, first.undo)).toBe(
      '{\n  "a": 1\n}\n',
    )
    // Out of order, the first removal keeps the parent, which still holds "y".
    expect(removeJsonMember(second.text, ['mcpServers'], 'x', FILE, first.undo)).toBe('{\n  "a": 1,\n  "mcpServers": {\n    "y": 2\n  }\n}\n')
  })

  it('removes the last of duplicate keys, leaving the earlier one', () => {
    expect(removeJsonMember('{"a": 1, "a": 2}', [], 'a', FILE)).toBe('{"a": 1}')
    expect(removeJsonMember('{\n  "a": 1,\n  "b": 0,\n  "a": 2\n}', [], 'a', FILE)).toBe('{\n  "a": 1,\n  "b": 0\n}')
  })

  it('keeps a created parent the user has written a comment into', () => {
    const edit = editJsonMember('{\n  "a": 1\n}\n', ['mcpServers'], 'x', 1, FILE)
    const commented = edit.text.replace('"x": 1', '// mine\n    "x": 1')
    expect(removeJsonMember(commented, ['mcpServers'], 'x', FILE, edit.undo)).toBe('{\n  "a": 1,\n  "mcpServers": {\n    // mine\n  }\n}\n')
  })

  it('keeps edits made elsewhere in the file meanwhile', () => {
    const text = '{\n  "numStartups": 1,\n  "mcpServers": {\n    "o": 1\n  }\n}\n'
    const edit = editJsonMember(text, ['mcpServers'], 'x', SERVER, FILE)
    const meanwhile = edit.text.replace('"numStartups": 1', '"numStartups": 2')
    expect(removeJsonMember(meanwhile, ['mcpServers'], 'x', FILE, edit.undo)).toBe(text.replace('"numStartups": 1', '"numStartups": 2'))
  })
})

describe('refusals', () => {
  const BAD: Array<[string, string, number, number]> = [
    ['missing colon', '{\n  "a": 1,\n  "b" 2\n}', 3, 7],
    ['missing comma', '{"a": 1 "b": 2}', 1, 9],
    ['unclosed', '{\n  "a": [1, 2}', 2, 13],
    ['single quotes', "{'a': 1}", 1, 2],
    ['bad escape', '{"a": "\\x"}', 1, 8],
    ['raw newline in a string', '{"a": "x\ny"}', 1, 9],
    ['unterminated string', '{"a": "xy', 1, 7],
    ['unterminated comment', '{"a": 1 /* x', 1, 9],
    ['leading comma', '{,}', 1, 2],
    ['two commas', '[1,,2]', 1, 4],
    ['text after', '{} x', 1, 4],
    ['bad literal', '{"a": tru}', 1, 7],
    ['bad number', '{"a": -x}', 1, 7],
    ['empty', '', 1, 1],
  ]
  for (const [name, text, line, column] of BAD) {
    it(`refuses ${name}, naming the file, line and column`, () => {
      const error = thrown(() => parseJsonText(text, FILE))
      expect(error.code).toBe('config-not-json')
      expect(error.message).toContain(FILE)
      expect(error.message).toContain(`line ${line}, column ${column}`)
      expect(error.details).toEqual({file: FILE, line, column})
    })
  }

  it('refuses to set, remove or read in a file that is not JSON', () => {
    const text = '{\n  "mcpServers": {\n    "a": 1\n  \n'
    for (const fn of [
      () => setJsonMember(text, ['mcpServers'], 'x', 1, FILE),
      () => removeJsonMember(text, ['mcpServers'], 'a', FILE),
      () => getJsonMember(text, ['mcpServers'], 'a', FILE),
    ]) {
      const error = thrown(fn)
      expect(error.code).toBe('config-not-json')
      expect(error.message).toMatch(/^\/home\/u\/\.claude\.json: not valid JSON: .* at line 5, column 1$/)
    }
  })

  it('refuses a top level that is not an object', () => {
    const error = thrown(() => setJsonMember('[1, 2]', ['mcpServers'], 'x', 1, FILE))
    expect(error.code).toBe('config-not-object')
    expect(error.message).toBe(`${FILE}: the top level is an array, not a JSON object, so loadout cannot add "mcpServers" to it`)
  })

  it('refuses a value on the path that is not an object, naming it', () => {
    const error = thrown(() => setJsonMember('{"projects": {"/p": {"mcpServers": "none"}}}', ['projects', '/p', 'mcpServers'], 'x', 1, FILE))
    expect(error.code).toBe('config-not-object')
    expect(error.message).toBe(`${FILE}: projects["/p"].mcpServers is a string, not an object, so loadout cannot add "x" under it`)
    expect(error.details).toEqual({file: FILE, path: ['projects', '/p', 'mcpServers']})
    expect(thrown(() => setJsonMember('{"mcpServers": null}', ['mcpServers'], 'x', 1, FILE)).message).toContain('mcpServers is null')
  })

  it('refuses a value that JSON cannot hold', () => {
    expect(() => setJsonMember('{}', [], 'x', undefined, FILE)).toThrow(TypeError)
    expect(() => setJsonMember('{}', [], 'x', () => 1, FILE)).toThrow(TypeError)
  })
})

describe('reading', () => {
  it('parses JSONC with comments and trailing commas, and plain JSON as JSON.parse does', () => {
    expect(parseJsonText('// c\n{"a": [1, 2,], /* b */ "b": {"c": "//not a comment",},}', FILE)).toEqual({a: [1, 2], b: {c: '//not a comment'}})
    const plain = '{"a": [1, -2.5e3, true, false, null, "a\\"\\u00e9"], "b": {}}'
    expect(parseJsonText(plain, FILE)).toEqual(JSON.parse(plain))
    expect(parseJsonText('\uFEFF{"a": 1}', FILE)).toEqual({a: 1})
    expect(parseJsonText('"just a string"', FILE)).toBe('just a string')
  })

  it('reads a member, or nothing', () => {
    const text = '{"mcpServers": {"a": {"command": "x" /* c */,}}, "s": 1}'
    expect(getJsonMember(text, ['mcpServers'], 'a', FILE)).toEqual({command: 'x'})
    expect(getJsonMember(text, ['mcpServers'], 'b', FILE)).toBeUndefined()
    expect(getJsonMember(text, ['s'], 'a', FILE)).toBeUndefined()
    expect(getJsonMember(text, [], 's', FILE)).toBe(1)
    expect(getJsonMember('', [], 's', FILE)).toBeUndefined()
    expect(getJsonMember('[1]', [], 's', FILE)).toBeUndefined()
  })

  it('parses very deep nesting without overflowing the stack', () => {
    const deep = `{"a": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    expect(getJsonMember(setJsonMember(deep, [], 'b', 1, FILE), [], 'b', FILE)).toBe(1)
  })
})

/** A ~/.claude.json of about 5 MB: many projects with histories, the way Claude Code writes it. */
const bigClaudeJson = (withServers: boolean): string => {
  const projects: Record<string, unknown> = {}
  for (let p = 0; p < 2700; p++) {
    projects[`/home/u/src/project-${p}`] = {
      allowedTools: ['Bash(git status)', `Edit(src/${p}/**)`],
      history: Array.from({length: 12}, (_, h) => ({
        display: `fix the "thing" in file_${h}.ts \\ ü 😀 \u2028 line\nnext`,
        pastedContents: {},
      })),
      mcpContextUris: [],
      mcpServers: {},
      enabledMcpjsonServers: [],
      hasTrustDialogAccepted: p % 2 === 0,
      lastCost: p * 0.0137,
      lastDuration: p * 1000,
    }
  }
  const data: Record<string, unknown> = {
    numStartups: 412,
    installMethod: 'native',
    autoUpdates: false,
    tipsHistory: {'new-user-warmup': 7, 'shift-enter': 12},
    ...(withServers ? {mcpServers: {existing: {command: 'node', args: ['server.js'], env: {}}}} : {}),
    projects,
    userID: 'f'.repeat(64),
    oauthAccount: {emailAddress: 'u@example.com', organizationRole: 'admin'},
  }
  return `${JSON.stringify(data, null, 2)}\n`
}

describe('a 5 MB ~/.claude.json', () => {
  for (const withServers of [true, false]) {
    it(`adds a server keeping every other byte, and removes it exactly (${withServers ? 'servers exist' : 'no mcpServers yet'})`, () => {
      const text = bigClaudeJson(withServers)
      expect(Buffer.byteLength(text)).toBeGreaterThan(5_000_000)
      const edit = editJsonMember(text, ['mcpServers'], 'review-lint', SERVER, FILE)
      // A pure insertion: the edited text is the original with one block added at one place.
      let p = 0
      while (edit.text.charCodeAt(p) === text.charCodeAt(p)) p++
      const added = edit.text.length - text.length
      expect(edit.text.slice(0, p)).toBe(text.slice(0, p))
      expect(edit.text.slice(p + added)).toBe(text.slice(p))
      const block = edit.text.slice(p, p + added)
      expect(block).toBe(
        withServers
          ? ',\n    "review-lint": {\n      "command": "npx",\n      "args": [\n        "-y",\n        "@acme/review-lint"\n      ],\n      "env": {\n        "TOKEN": "${TOKEN}"\n      }\n    }'
          : ',\n  "mcpServers": {\n    "review-lint": {\n      "command": "npx",\n      "args": [\n        "-y",\n        "@acme/review-lint"\n      ],\n      "env": {\n        "TOKEN": "${TOKEN}"\n      }\n    }\n  }',
      )
      expect(JSON.parse(edit.text)).toEqual(withMember(JSON.parse(text), ['mcpServers'], 'review-lint', SERVER))
      expect(removeJsonMember(edit.text, ['mcpServers'], 'review-lint', FILE, edit.undo)).toBe(text)
    })
  }

  it('edits a project-level key deep in the file', () => {
    const text = bigClaudeJson(true)
    const path = ['projects', '/home/u/src/project-1234', 'mcpServers']
    const edit = editJsonMember(text, path, 'x', {command: 'a'}, FILE)
    expect(getJsonMember(edit.text, path, 'x', FILE)).toEqual({command: 'a'})
    expect(removeJsonMember(edit.text, path, 'x', FILE, edit.undo)).toBe(text)
    expect(removeJsonMember(edit.text, path, 'x', FILE)).toBe(text)
  })
})

describe('undo gives back the exact bytes, whatever the file looks like', () => {
  /** Sets several members, then undoes the edits in reverse order: the original must come back byte for byte. */
  const roundTrip = (text: string, edits: Array<[string[], string, unknown]>): void => {
    let current = text
    const undos = []
    for (const [path, key, value] of edits) {
      const edit = editJsonMember(current, path, key, value, FILE)
      expect(getJsonMember(edit.text, path, key, FILE)).toEqual(value)
      undos.push(JSON.parse(JSON.stringify(edit.undo)) as typeof edit.undo)
      current = edit.text
    }
    expect(current).not.toBe(text)
    for (const undo of undos.reverse()) current = undoJsonEdit(current, undo, FILE)
    expect(current).toBe(text)
  }
  const EDITS: Array<[string[], string, unknown]> = [
    [['mcpServers'], 'review-lint', SERVER],
    [['mcpServers'], 'other', {command: 'replaced'}],
    [['projects', '/home/u/p', 'mcpServers'], 'x', {command: 'a', args: []}],
    [[], 'theme', 'light'],
  ]

  it('CRLF line breaks with tab indentation', () => {
    roundTrip('{\r\n\t"theme": "dark",\r\n\t"mcpServers": {\r\n\t\t"other": {\r\n\t\t\t"command": "x"\r\n\t\t}\r\n\t}\r\n}\r\n', EDITS)
  })

  it('minified', () => {
    roundTrip('{"theme":"dark","mcpServers":{"other":{"command":"x"}},"z":[1,2,{"a":null}]}', EDITS)
  })

  it('JSONC with comments and trailing commas, on CRLF lines', () => {
    const text = [
      '// settings',
      '{',
      '  "theme": "dark", /* the look */',
      '  "mcpServers": {',
      '    "other": {"command": "x",}, // keep me',
      '    /* a comment after the last member */',
      '  },',
      '  "z": [1, 2,],',
      '}',
      '',
    ].join('\r\n')
    roundTrip(text, EDITS)
  })

  it('a multi-MB ~/.claude.json, pretty, CRLF with tabs and minified', () => {
    const data = JSON.parse(bigClaudeJson(true)) as unknown
    const pretty = bigClaudeJson(true)
    const crlfTabs = `${JSON.stringify(data, null, '\t').replace(/\n/g, '\r\n')}\r\n`
    const minified = JSON.stringify(data)
    for (const text of [pretty, crlfTabs, minified]) {
      expect(Buffer.byteLength(text)).toBeGreaterThan(3_000_000)
      roundTrip(text, [...EDITS, [['projects', '/home/u/src/project-2000', 'mcpServers'], 'deep', SERVER]])
    }
  })

  it('strict JSON nested deeper than the scanner walks, beside the edited object', () => {
    const text = `{\n  "mcpServers": {\n    "deep": ${'['.repeat(20_000)}${']'.repeat(20_000)}\n  },\n  "z": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}\n}\n`
    roundTrip(text, EDITS)
  })

  it('refuses JSONC nested deeper than it can read, with a message instead of a stack overflow', () => {
    const error = thrown(() => setJsonMember(`{"a": ${'['.repeat(20_000)}${']'.repeat(20_000)}} // c`, [], 'b', 1, FILE))
    expect(error.code).toBe('config-not-json')
    expect(error.message).toMatch(/nests more than \d+ levels deep at line 1, column \d+$/)
  })
})

describe('undo is exact on generated documents', () => {
  // A seeded generator of JSONC objects: every mix of spaces, tabs, LF and CRLF, block and line
  // comments between tokens, trailing commas, nested arrays and objects, repeated keys.
  let seed = 11
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T
  const ws = () => pick(['', ' ', '  ', '\n', '\r\n', '\n  ', '\t', ' /* c */ ', ' // x\n', '\r\n\t\t'])
  const trailing = (n: number) => (n > 0 && rnd() < 0.2 ? `,${ws()}` : '')
  const value = (depth: number): string => {
    const r = rnd()
    if (depth > 2 || r < 0.3) return pick(['1', '"s"', 'true', 'null', '-2.5e3', '"a\\"b"', '[]', '{}'])
    if (r < 0.6) {
      const items = Array.from({length: Math.floor(rnd() * 3)}, () => ws() + value(depth + 1) + ws())
      return `[${items.join(',')}${trailing(items.length)}${ws()}]`
    }
    return object(depth + 1)
  }
  const object = (depth: number): string => {
    const members = Array.from(
      {length: Math.floor(rnd() * 4)},
      () => `${ws()}${JSON.stringify(pick(['mcpServers', 'a', 'projects', '/p']))}${ws()}:${ws()}${value(depth)}${ws()}`,
    )
    return `{${members.join(',')}${trailing(members.length)}${ws()}}`
  }

  it('gives back every generated document byte for byte after an edit', () => {
    let edits = 0
    for (let i = 0; i < 3000; i++) {
      const text = ws() + object(0) + ws()
      const path = pick([[], ['mcpServers'], ['projects', '/p'], ['a']])
      const key = pick(['mcpServers', 'k', 'a'])
      let edit
      try {
        edit = editJsonMember(text, path, key, SERVER, FILE)
      } catch (error) {
        // only a value on the path that is not an object stops an edit
        expect((error as LoadoutError).code, text).toBe('config-not-object')
        continue
      }
      edits++
      expect(getJsonMember(edit.text, path, key, FILE), text).toEqual(SERVER)
      expect(undoJsonEdit(edit.text, edit.undo, FILE), text).toBe(text)
    }
    expect(edits).toBeGreaterThan(2000)
  })
})
