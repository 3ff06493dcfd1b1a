import {parse} from 'smol-toml'
import {describe, expect, it} from 'vitest'
import {editTomlTable, removeTomlTable, setTomlTable, undoTomlEdit, type TomlEntries} from '../../src/core/kernel/agent-config/toml-edit.js'
import {getTomlTable, parseTomlText, tomlKey, tomlString} from '../../src/core/kernel/agent-config/toml-read.js'
import {LoadoutError} from '../../src/core/model/errors.js'

const FILE = '/home/u/.codex/config.toml'

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

const SERVER: TomlEntries = {command: 'npx', args: ['-y', '@acme/review-lint'], env: {TOKEN: 'x'}}
const PATH = ['mcp_servers', 'review-lint']

/** A Codex config with comments everywhere, existing servers, dotted keys, strings and arrays that look like headers. */
const CONFIG = `# Codex config, kept by hand
model = "o3"  # the default model
approval_policy = "on-request"
profiles.fast.model = "gpt-4.1"   # dotted keys
"key with spaces" = 'literal'

# Sandbox settings
[sandbox_workspace_write]
network_access = false # no network
writable_roots = [
  "/tmp",   # scratch
  "[not.a.table]",
]
quotes = ["""one quote after"""", '''two after''''', "[x]"]

[mcp_servers.existing]   # an existing server
command = "node"
args = ["server.js", "--flag=[x]"]
env = { API_KEY = "k" }

# about the docs server
[mcp_servers.docs]
url = "https://example.com/mcp"
description = """
[mcp_servers.fake]
not a header \\"""
"""
literal = '''
[mcp_servers.also_fake]
'''

[mcp_servers.docs.env]
TOKEN = "t"

# the projects
[[projects]]
path = "/a"
matrix = [
  ["a"],
  ["b"]
]

[[projects]]
path = "/b" # last
`

/** The parsed data with the table at `path` set to `entries`. */
const withTable = (text: string, path: string[], entries: TomlEntries): unknown => {
  const data = structuredClone(parse(text)) as Record<string, unknown>
  let t = data
  for (const k of path.slice(0, -1)) {
    t[k] ??= {}
    t = t[k] as Record<string, unknown>
  }
  t[path[path.length - 1] as string] = entries
  return data
}

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe('setTomlTable then removeTomlTable gives the original back', () => {
  const SHAPES: Array<[string, string, boolean]> = [
    ['empty file', '', true],
    ['only a line break', '\n', true],
    ['one line, no line break at the end', 'model = "o3"', false],
    ['one line', 'model = "o3"\n', true],
    ['ends with a blank line', 'model = "o3"\n\n', false],
    ['ends with a comment, no line break', 'model = "o3"\n# the end', false],
    ['ends with spaces', 'model = "o3"\n  ', false],
    ['CRLF', 'model = "o3"\r\n\r\n[mcp_servers.a]\r\ncommand = "a"\r\n', true],
    ['byte-order mark', '\uFEFFmodel = "o3"\n', true],
    ['byte-order mark only', '\uFEFF', true],
    ['comments everywhere, tables, dotted keys, arrays of tables', CONFIG, true],
    ['a [mcp_servers] table with keys', '[mcp_servers]\n# nothing yet\n', true],
  ]
  for (const [name, text, exactWithoutUndo] of SHAPES) {
    for (const path of [PATH, ['mcp_servers', 'my.server ü "q"']]) {
      it(`${name}: ${tomlKey(path[1] as string)}`, () => {
        const edit = editTomlTable(text, path, SERVER, FILE)
        expect(edit.text.startsWith(text)).toBe(true)
        expect(getTomlTable(edit.text, path, FILE)).toEqual(SERVER)
        expect(plain(parse(edit.text.replace(/^\uFEFF/, '')))).toEqual(plain(withTable(text.replace(/^\uFEFF/, ''), path, SERVER)))
        const undo = JSON.parse(JSON.stringify(edit.undo)) as typeof edit.undo
        expect(removeTomlTable(edit.text, path, FILE, undo)).toBe(text)
        expect(undoTomlEdit(edit.text, undo, FILE)).toBe(text)
        const noUndo = removeTomlTable(edit.text, path, FILE)
        if (exactWithoutUndo) expect(noUndo).toBe(text)
        expect(getTomlTable(noUndo, path, FILE)).toBeUndefined()
      })
    }
  }

  it('undoes several tables in reverse order', () => {
    const a = editTomlTable(CONFIG, ['mcp_servers', 'a'], {url: 'https://a.example/mcp'}, FILE)
    const b = editTomlTable(a.text, ['mcp_servers', 'b'], {command: 'b'}, FILE)
    expect(removeTomlTable(removeTomlTable(b.text, ['mcp_servers', 'b'], FILE, b.undo), ['mcp_servers', 'a'], FILE, a.undo)).toBe(CONFIG)
    // Out of order, the table that stays keeps its blank line.
    expect(removeTomlTable(b.text, ['mcp_servers', 'a'], FILE, a.undo)).toBe(`${CONFIG}\n[mcp_servers.b]\ncommand = "b"\n`)
  })
})

describe('setTomlTable writes', () => {
  it('a new table at the end, with one blank line before it', () => {
    expect(setTomlTable('model = "o3"\n', PATH, SERVER, FILE)).toBe(
      'model = "o3"\n\n[mcp_servers.review-lint]\ncommand = "npx"\nargs = ["-y", "@acme/review-lint"]\nenv = { TOKEN = "x" }\n',
    )
    expect(setTomlTable('', ['mcp_servers', 'docs'], {url: 'https://example.com/mcp'}, FILE)).toBe('[mcp_servers.docs]\nurl = "https://example.com/mcp"\n')
    expect(setTomlTable('a = 1', ['t'], {b: 2}, FILE)).toBe('a = 1\n\n[t]\nb = 2\n')
    expect(setTomlTable('a = 1\n\n', ['t'], {b: 2}, FILE)).toBe('a = 1\n\n[t]\nb = 2\n')
  })

  it('with the file’s CRLF line breaks', () => {
    expect(setTomlTable('a = 1\r\n', ['t'], {b: 2, c: true}, FILE)).toBe('a = 1\r\n\r\n[t]\r\nb = 2\r\nc = true\r\n')
  })

  it('quoting keys that are not bare', () => {
    const out = setTomlTable('', ['mcp_servers', 'my.server'], {command: 'x', env: {'A.B': '1', 'with space': '2', plain_KEY: '3', '': '4'}}, FILE)
    expect(out).toBe('[mcp_servers."my.server"]\ncommand = "x"\nenv = { "A.B" = "1", "with space" = "2", plain_KEY = "3", "" = "4" }\n')
    expect(getTomlTable(out, ['mcp_servers', 'my.server'], FILE)).toEqual({command: 'x', env: {'A.B': '1', 'with space': '2', plain_KEY: '3', '': '4'}})
  })

  it('escaping strings: quotes, backslashes, control characters; unicode as it is', () => {
    const tricky = 'say "hi" \\ C:\\path\ttab\nnew\rret\b\f\u0001\u001f\u007f é 😀 \u2028'
    const out = setTomlTable('', ['t'], {s: tricky, args: [tricky, ''], env: {K: tricky}}, FILE)
    expect(out.split('\n')[1]).toBe('s = "say \\"hi\\" \\\\ C:\\\\path\\ttab\\nnew\\rret\\b\\f\\u0001\\u001f\\u007f é 😀 \u2028"')
    expect(getTomlTable(out, ['t'], FILE)).toEqual({s: tricky, args: [tricky, ''], env: {K: tricky}})
  })

  it('numbers, booleans and empty collections', () => {
    const entries = {startup_timeout_sec: 20, ratio: 0.5, tiny: 1.5e-7, big: 1e21, negative: -3, enabled: false, args: [], env: {}}
    const out = setTomlTable('', ['t'], entries, FILE)
    expect(out).toBe('[t]\nstartup_timeout_sec = 20\nratio = 0.5\ntiny = 1.5e-7\nbig = 1e+21\nnegative = -3\nenabled = false\nargs = []\nenv = {}\n')
    expect(getTomlTable(out, ['t'], FILE)).toEqual(entries)
  })

  it('refuses values TOML cannot hold', () => {
    expect(() => setTomlTable('', ['t'], {n: Number.NaN}, FILE)).toThrow(TypeError)
    expect(() => setTomlTable('', ['t'], {n: Number.POSITIVE_INFINITY}, FILE)).toThrow(TypeError)
    expect(() => setTomlTable('', ['t'], {s: 'a\ud800b'}, FILE)).toThrow(/lone surrogate/)
    expect(() => setTomlTable('', ['t'], {a: [1] as unknown as string[]}, FILE)).toThrow(TypeError)
    expect(() => setTomlTable('', ['t'], {e: {k: 1} as unknown as Record<string, string>}, FILE)).toThrow(TypeError)
    expect(() => setTomlTable('', ['t'], {x: null as unknown as string}, FILE)).toThrow(TypeError)
    expect(() => setTomlTable('', [], {x: 'a'}, FILE)).toThrow(TypeError)
  })

  it('does not take a header inside a string for the table', () => {
    const out = setTomlTable(CONFIG, ['mcp_servers', 'fake'], {command: 'real'}, FILE)
    expect(out).toBe(`${CONFIG}\n[mcp_servers.fake]\ncommand = "real"\n`)
    expect((getTomlTable(out, ['mcp_servers', 'docs'], FILE) as {description: string}).description).toBe('[mcp_servers.fake]\nnot a header """\n')
  })
})

describe('replacing an existing table', () => {
  it('rewrites its header and body only; the comment on the next table stays', () => {
    const edit = editTomlTable(CONFIG, ['mcp_servers', 'existing'], {url: 'https://new.example/mcp'}, FILE)
    expect(edit.text).toBe(
      CONFIG.replace(
        '[mcp_servers.existing]   # an existing server\ncommand = "node"\nargs = ["server.js", "--flag=[x]"]\nenv = { API_KEY = "k" }\n',
        '[mcp_servers.existing]\nurl = "https://new.example/mcp"\n',
      ),
    )
    expect(edit.text).toContain('\n\n# about the docs server\n[mcp_servers.docs]')
    expect(edit.undo.previous).toBe(
      '[mcp_servers.existing]   # an existing server\ncommand = "node"\nargs = ["server.js", "--flag=[x]"]\nenv = { API_KEY = "k" }\n',
    )
    expect(undoTomlEdit(edit.text, edit.undo, FILE)).toBe(CONFIG)
  })

  it('takes its sub-tables and multi-line strings with it', () => {
    const edit = editTomlTable(CONFIG, ['mcp_servers', 'docs'], {command: 'docs', env: {TOKEN: 'new'}}, FILE)
    expect(getTomlTable(edit.text, ['mcp_servers', 'docs'], FILE)).toEqual({command: 'docs', env: {TOKEN: 'new'}})
    expect(edit.text).not.toContain('also_fake')
    expect(edit.text).toContain('[mcp_servers.docs]\ncommand = "docs"\nenv = { TOKEN = "new" }\n\n# the projects\n[[projects]]')
    expect(undoTomlEdit(edit.text, edit.undo, FILE)).toBe(CONFIG)
    // Everything else reads as before.
    const before = plain(parse(CONFIG)) as {mcp_servers: Record<string, unknown>}
    const after = plain(parse(edit.text)) as {mcp_servers: Record<string, unknown>}
    delete before.mcp_servers.docs
    delete after.mcp_servers.docs
    expect(after).toEqual(before)
  })

  it('setting the old entries back gives the original when they were written the same way', () => {
    const text = 'a = 1\n\n[mcp_servers.x]\ncommand = "old"\nargs = ["a"]\n\n# next\n[z]\nb = 2\n'
    const changed = setTomlTable(text, ['mcp_servers', 'x'], {command: 'new'}, FILE)
    expect(changed).toBe('a = 1\n\n[mcp_servers.x]\ncommand = "new"\n\n# next\n[z]\nb = 2\n')
    expect(setTomlTable(changed, ['mcp_servers', 'x'], {command: 'old', args: ['a']}, FILE)).toBe(text)
  })

  it('at the end of a file without a final line break', () => {
    const text = '[mcp_servers.x]\ncommand = "old"'
    const edit = editTomlTable(text, ['mcp_servers', 'x'], {command: 'new'}, FILE)
    expect(edit.text).toBe('[mcp_servers.x]\ncommand = "new"\n')
    expect(undoTomlEdit(edit.text, edit.undo, FILE)).toBe(text)
  })
})

describe('headers written differently', () => {
  it('finds a header with spaces, quoted and escaped keys', () => {
    for (const header of ["[ mcp_servers . 'my.server' ]", '[mcp_servers."my\\u002Eserver"]', '["mcp_servers"."my.server"] # c']) {
      const text = `a = 1\n\n${header}\ncommand = "old"\n\n[z]\n`
      const edit = editTomlTable(text, ['mcp_servers', 'my.server'], {command: 'new'}, FILE)
      expect(edit.text).toBe('a = 1\n\n[mcp_servers."my.server"]\ncommand = "new"\n\n[z]\n')
      expect(undoTomlEdit(edit.text, edit.undo, FILE)).toBe(text)
      expect(removeTomlTable(text, ['mcp_servers', 'my.server'], FILE)).toBe('a = 1\n\n[z]\n')
    }
  })

  it('does not take a line of a multi-line array or inline table for a header', () => {
    const text = 'a = 1\n\n[mcp_servers.x]\nmatrix = [\n  ["mcp_servers"],\n  ["z"]\n]\nenv = {\n  K = "[z]",\n}\ncommand = "old"\n\n[z]\nb = 2\n'
    const edit = editTomlTable(text, ['mcp_servers', 'x'], {command: 'new'}, FILE)
    expect(edit.text).toBe('a = 1\n\n[mcp_servers.x]\ncommand = "new"\n\n[z]\nb = 2\n')
    expect(undoTomlEdit(edit.text, edit.undo, FILE)).toBe(text)
    expect(removeTomlTable(text, ['mcp_servers', 'x'], FILE)).toBe('a = 1\n\n[z]\nb = 2\n')
  })

  it('keeps a key named __proto__ as data', () => {
    const edit = editTomlTable('', ['mcp_servers', '__proto__'], {command: 'x', env: {__proto__: 'y'} as Record<string, string>}, FILE)
    expect(edit.text).toBe('[mcp_servers.__proto__]\ncommand = "x"\nenv = {}\n')
    expect(getTomlTable(edit.text, ['mcp_servers', '__proto__'], FILE)).toEqual({command: 'x', env: {}})
    expect(removeTomlTable(edit.text, ['mcp_servers', '__proto__'], FILE, edit.undo)).toBe('')
  })
})

describe('removeTomlTable', () => {
  it('removes a table in the middle with its blank lines, keeping the comment on the next one', () => {
    expect(removeTomlTable(CONFIG, ['mcp_servers', 'existing'], FILE)).toBe(
      CONFIG.replace('[mcp_servers.existing]   # an existing server\ncommand = "node"\nargs = ["server.js", "--flag=[x]"]\nenv = { API_KEY = "k" }\n\n', ''),
    )
  })

  it('removes a table with its sub-tables', () => {
    const out = removeTomlTable(CONFIG, ['mcp_servers', 'docs'], FILE)
    expect(out).not.toContain('TOKEN')
    expect(out).toContain('env = { API_KEY = "k" }\n\n# about the docs server\n# the projects\n[[projects]]')
    expect(getTomlTable(out, ['mcp_servers', 'docs'], FILE)).toBeUndefined()
  })

  it('leaves the text alone when there is no such table', () => {
    expect(removeTomlTable(CONFIG, ['mcp_servers', 'nope'], FILE)).toBe(CONFIG)
    expect(removeTomlTable(CONFIG, ['mcp_servers', 'fake'], FILE)).toBe(CONFIG)
    expect(removeTomlTable('', ['mcp_servers', 'x'], FILE)).toBe('')
  })
})

describe('refusals', () => {
  it('refuses text that is not TOML, naming the file, line and column', () => {
    const text = 'model = "o3"\n[mcp_servers.x\ncommand = "a"\n'
    for (const fn of [
      () => setTomlTable(text, PATH, SERVER, FILE),
      () => removeTomlTable(text, PATH, FILE),
      () => getTomlTable(text, PATH, FILE),
      () => parseTomlText(text, FILE),
    ]) {
      const error = thrown(fn)
      expect(error.code).toBe('config-not-toml')
      expect(error.message).toMatch(/^\/home\/u\/\.codex\/config\.toml: not valid TOML: .+ at line 2, column \d+$/)
      expect(error.details).toMatchObject({file: FILE, line: 2})
    }
    expect(thrown(() => parseTomlText('a = 1\na = 2\n', FILE)).message).toContain('line 2')
    expect(thrown(() => parseTomlText('a = "unterminated\n', FILE)).code).toBe('config-not-toml')
  })

  it('refuses a table defined with dotted keys or inline', () => {
    for (const text of ['mcp_servers.x.command = "a"\n', '[mcp_servers]\nx = { command = "a" }\n', '[mcp_servers.x.env]\nA = "1"\n']) {
      for (const fn of [() => setTomlTable(text, ['mcp_servers', 'x'], {command: 'b'}, FILE), () => removeTomlTable(text, ['mcp_servers', 'x'], FILE)]) {
        const error = thrown(fn)
        expect(error.code).toBe('config-toml-shape')
        expect(error.message).toBe(
          `${FILE}: [mcp_servers.x] is defined without a header of its own (with dotted keys or an inline table), so loadout cannot edit it`,
        )
      }
    }
  })

  it('refuses an array of tables in the way', () => {
    const error = thrown(() => setTomlTable('[[mcp_servers]]\nname = "a"\n', ['mcp_servers', 'x'], {command: 'b'}, FILE))
    expect(error.code).toBe('config-toml-shape')
    expect(error.message).toContain('mcp_servers is not a table')
    expect(thrown(() => setTomlTable('[[mcp_servers.x]]\nname = "a"\n', ['mcp_servers', 'x'], {command: 'b'}, FILE)).message).toContain(
      '[[mcp_servers.x]] is an array of tables',
    )
  })

  it('refuses a sub-table that stands apart from its table', () => {
    const text = '[mcp_servers.x]\ncommand = "a"\n\n[other]\n\n[mcp_servers.x.env]\nA = "1"\n'
    expect(thrown(() => setTomlTable(text, ['mcp_servers', 'x'], {command: 'b'}, FILE)).message).toContain(
      '[mcp_servers.x.env] stands apart from [mcp_servers.x]',
    )
    expect(thrown(() => removeTomlTable(text, ['mcp_servers', 'x'], FILE)).code).toBe('config-toml-shape')
  })

  it('refuses an edit that would clash with an inline table, naming the file', () => {
    const error = thrown(() => setTomlTable('mcp_servers = {}\n', ['mcp_servers', 'x'], {command: 'b'}, FILE))
    expect(error.code).toBe('config-toml-conflict')
    expect(error.message).toMatch(/^\/home\/u\/\.codex\/config\.toml: writing \[mcp_servers\.x\] would clash with what the file already has/)
  })
})

describe('reading', () => {
  it('reads a table, or nothing', () => {
    expect(getTomlTable(CONFIG, ['mcp_servers', 'existing'], FILE)).toEqual({command: 'node', args: ['server.js', '--flag=[x]'], env: {API_KEY: 'k'}})
    expect(getTomlTable(CONFIG, ['mcp_servers', 'nope'], FILE)).toBeUndefined()
    expect(getTomlTable(CONFIG, ['nope', 'x'], FILE)).toBeUndefined()
    expect(getTomlTable('', ['mcp_servers'], FILE)).toBeUndefined()
    expect(thrown(() => getTomlTable(CONFIG, ['model'], FILE)).code).toBe('config-not-table')
    expect(thrown(() => getTomlTable(CONFIG, ['projects'], FILE)).code).toBe('config-not-table')
  })

  it('formats keys and strings', () => {
    expect(tomlKey('review-lint_2')).toBe('review-lint_2')
    expect(tomlKey('my.server')).toBe('"my.server"')
    expect(tomlKey('ü')).toBe('"ü"')
    expect(tomlString('a"b\\c\u0000')).toBe('"a\\"b\\\\c\\u0000"')
  })
})
