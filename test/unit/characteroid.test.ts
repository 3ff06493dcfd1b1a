import {describe, expect, it} from 'vitest'
import {readCharacteroidSkill, validateCharacteroidMcp, validateCharacteroidSkill} from '../../src/core/kernel/plugin/characteroid.js'
import type {Problem} from '../../src/core/model/problems.js'

const FILE = '/skills/s.yaml'

const GOOD_SKILL = {name: 'pdf-tools', description: 'Reads PDF files.', instructions: 'Open the PDF and summarise it.', tool_names: ['read_file', 'search']}

/** A skill YAML from an object (JSON is YAML), with `change` applied: a key set to undefined is dropped. */
const skillYaml = (change: Record<string, unknown> = {}): string => JSON.stringify({...GOOD_SKILL, ...change}, null, 2)

const brief = (problems: Problem[]) => problems.map((p) => ({severity: p.severity, code: p.code, path: p.path, message: p.message}))

describe('CHARACTOID skill YAML', () => {
  it('accepts a good skill, written as block YAML, and reads its name', () => {
    const text = 'name: pdf-tools\ndescription: Reads PDF files.\ninstructions: |\n  Open the PDF.\n  Summarise it.\ntool_names:\n  - read_file\n  - search\n'
    expect(readCharacteroidSkill(text, FILE)).toEqual({name: 'pdf-tools', description: 'Reads PDF files.', problems: []})
    expect(validateCharacteroidSkill(skillYaml({tool_names: undefined}), FILE)).toEqual([])
  })

  it('reports YAML that does not parse, with its line', () => {
    const [p] = validateCharacteroidSkill('name: [unclosed\n', FILE)
    expect(p).toMatchObject({severity: 'error', code: 'yaml-invalid', file: FILE})
    expect(p?.message).toMatch(/^Flow sequence in block collection must be sufficiently indented and end with a \] at line \d+, column \d+$/)
  })

  it('reports a key written twice', () => {
    const problems = validateCharacteroidSkill('name: a\nname: b\ndescription: d\ninstructions: i\n', FILE)
    expect(brief(problems)).toEqual([{severity: 'error', code: 'yaml-duplicate-key', path: undefined, message: 'Map keys must be unique at line 2, column 1'}])
  })

  it('requires a mapping at the top', () => {
    expect(brief(validateCharacteroidSkill('', FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-type', path: undefined, message: '"the file" must be an object, not null'},
    ])
    expect(validateCharacteroidSkill('- a\n- b\n', FILE)[0]?.message).toBe('"the file" must be an object, not a list')
  })

  it.each(['name', 'description', 'instructions'])('requires %s', (field) => {
    expect(brief(validateCharacteroidSkill(skillYaml({[field]: undefined}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-missing', path: field, message: `the required field "${field}" is missing`},
    ])
  })

  it('applies the skill-name rule to name', () => {
    const cases: Array<[string, string, string]> = [
      ['PDF', 'name-uppercase', 'name "PDF" has upper-case letters; use lowercase letters, digits and hyphens'],
      ['a b', 'name-invalid-characters', 'name "a b" may hold only lowercase letters, digits and hyphens'],
      ['../x', 'name-has-separator', 'name "../x" contains a path separator (/ or \\)'],
      ['-x', 'name-edge-hyphen', 'name "-x" starts or ends with a hyphen'],
      ['a--b', 'name-double-hyphen', 'name "a--b" has two hyphens in a row'],
      ['', 'name-empty', 'name "" is empty'],
      ['a'.repeat(65), 'name-too-long', `name "${'a'.repeat(65)}" is 65 characters; the limit is 64`],
    ]
    for (const [name, code, message] of cases) {
      expect(brief(validateCharacteroidSkill(skillYaml({name}), FILE)), name).toEqual([{severity: 'error', code, path: 'name', message}])
    }
    expect(brief(validateCharacteroidSkill(skillYaml({name: 7}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-type', path: 'name', message: '"name" must be a string, not a number'},
    ])
  })

  it('limits description to 1-1024 characters', () => {
    expect(brief(validateCharacteroidSkill(skillYaml({description: ''}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-empty', path: 'description', message: '"description" is empty'},
    ])
    expect(brief(validateCharacteroidSkill(skillYaml({description: 'd'.repeat(1025)}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-too-long', path: 'description', message: '"description" is 1025 characters; the limit is 1024'},
    ])
    expect(validateCharacteroidSkill(skillYaml({description: 'd'.repeat(1024)}), FILE)).toEqual([])
  })

  it('needs non-empty string instructions', () => {
    expect(brief(validateCharacteroidSkill(skillYaml({instructions: ''}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-empty', path: 'instructions', message: '"instructions" is empty'},
    ])
    expect(validateCharacteroidSkill(skillYaml({instructions: ['a']}), FILE)[0]?.message).toBe('"instructions" must be a string, not a list')
  })

  it('needs tool_names to be a list of strings', () => {
    expect(brief(validateCharacteroidSkill(skillYaml({tool_names: 'read_file'}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-type', path: 'tool_names', message: '"tool_names" must be a list, not a string'},
    ])
    expect(brief(validateCharacteroidSkill(skillYaml({tool_names: ['ok', 3]}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-type', path: 'tool_names[1]', message: '"tool_names[1]" must be a string, not a number'},
    ])
  })

  it('warns about unknown fields', () => {
    expect(brief(validateCharacteroidSkill(skillYaml({colour: 'blue'}), FILE))).toEqual([
      {severity: 'warning', code: 'characteroid-field-unknown', path: 'colour', message: 'unknown field "colour"; CHARACTOID does not read it'},
    ])
  })
})

const mcp = (servers: Record<string, unknown>, wrapped = true): string => JSON.stringify(wrapped ? {mcp_servers: servers} : servers)

describe('CHARACTOID MCP servers', () => {
  it('accepts each transport, wrapped in mcp_servers or as a bare map', () => {
    const servers = {
      files: {transport: 'stdio', command: 'npx', args: ['-y', 'server-files'], env: {ROOT: '/tmp'}, cwd: '/srv'},
      remote: {transport: 'streamable_http', url: 'https://mcp.example.com/mcp', headers: {Authorization: 'Bearer x'}},
      events: {transport: 'sse', url: 'http://127.0.0.1:8080/sse'},
      local: {transport: 'sse', url: 'http://localhost/sse'},
    }
    expect(validateCharacteroidMcp(mcp(servers), FILE)).toEqual([])
    expect(validateCharacteroidMcp(mcp(servers, false), FILE)).toEqual([])
    expect(validateCharacteroidMcp('{}', FILE)).toEqual([])
  })

  it('reports text that is not JSON and keys written twice', () => {
    expect(validateCharacteroidMcp('{"a":', FILE)[0]).toMatchObject({severity: 'error', code: 'json-invalid'})
    expect(brief(validateCharacteroidMcp('{"a": {"transport": "stdio", "command": "x"}, "a": {"transport": "stdio", "command": "y"}}', FILE))).toEqual([
      {severity: 'error', code: 'json-duplicate-key', path: undefined, message: expect.stringContaining('Map keys must be unique') as unknown as string},
    ])
  })

  it('needs an object of entries', () => {
    expect(validateCharacteroidMcp('[]', FILE)[0]?.message).toBe('"the file" must be an object, not a list')
    expect(brief(validateCharacteroidMcp(JSON.stringify({mcp_servers: []}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-type', path: 'mcp_servers', message: '"mcp_servers" must be an object, not a list'},
    ])
    expect(validateCharacteroidMcp(mcp({a: 'stdio'}), FILE)[0]?.message).toBe('"mcp_servers.a" must be an object, not a string')
  })

  it('requires a known transport', () => {
    expect(brief(validateCharacteroidMcp(mcp({a: {command: 'x'}}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-missing', path: 'mcp_servers.a.transport', message: 'the required field "transport" is missing'},
    ])
    expect(brief(validateCharacteroidMcp(mcp({a: {transport: 'websocket', url: 'https://x.test'}}), FILE))).toEqual([
      {
        severity: 'error',
        code: 'characteroid-field-enum',
        path: 'mcp_servers.a.transport',
        message: '"mcp_servers.a.transport" is "websocket"; use one of "stdio", "streamable_http", "sse"',
      },
    ])
  })

  it('needs a command for stdio, with args a list of strings, env a map of strings and cwd a string', () => {
    expect(brief(validateCharacteroidMcp(mcp({a: {transport: 'stdio'}}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-missing', path: 'mcp_servers.a.command', message: 'the required field "command" is missing'},
    ])
    expect(validateCharacteroidMcp(mcp({a: {transport: 'stdio', command: ['npx']}}), FILE)[0]?.message).toBe(
      '"mcp_servers.a.command" must be a string, not a list',
    )
    expect(validateCharacteroidMcp(mcp({a: {transport: 'stdio', command: 'x', args: '-y'}}), FILE)[0]?.message).toBe(
      '"mcp_servers.a.args" must be a list, not a string',
    )
    expect(validateCharacteroidMcp(mcp({a: {transport: 'stdio', command: 'x', args: [1]}}), FILE)[0]?.message).toBe(
      '"mcp_servers.a.args[0]" must be a string, not a number',
    )
    expect(validateCharacteroidMcp(mcp({a: {transport: 'stdio', command: 'x', env: {PORT: 80}}}), FILE)[0]?.message).toBe(
      '"mcp_servers.a.env.PORT" must be a string, not a number',
    )
    expect(validateCharacteroidMcp(mcp({a: {transport: 'stdio', command: 'x', cwd: 1}}), FILE)[0]?.message).toBe(
      '"mcp_servers.a.cwd" must be a string, not a number',
    )
  })

  it.each(['streamable_http', 'sse'])('needs a url for %s, with headers a map of strings', (transport) => {
    expect(brief(validateCharacteroidMcp(mcp({a: {transport}}), FILE))).toEqual([
      {severity: 'error', code: 'characteroid-field-missing', path: 'mcp_servers.a.url', message: 'the required field "url" is missing'},
    ])
    expect(validateCharacteroidMcp(mcp({a: {transport, url: 'https://x.test', headers: {N: 1}}}), FILE)[0]?.message).toBe(
      '"mcp_servers.a.headers.N" must be a string, not a number',
    )
    expect(validateCharacteroidMcp(mcp({a: {transport, url: 'https://x.test', headers: ['a']}}), FILE)[0]?.message).toBe(
      '"mcp_servers.a.headers" must be an object, not a list',
    )
  })

  it('checks the url: https, http only for 127.0.0.1 and localhost, no user info', () => {
    const urlMessage = (url: string) => validateCharacteroidMcp(mcp({a: {transport: 'sse', url}}), FILE).map((p) => [p.code, p.path, p.message])
    expect(urlMessage('http://example.com/sse')).toEqual([
      ['characteroid-mcp-url', 'mcp_servers.a.url', '"url" uses http:// for example.com; only 127.0.0.1 and localhost may use http, anything else needs https'],
    ])
    expect(urlMessage('https://user:pw@example.com/sse')).toEqual([
      ['characteroid-mcp-url', 'mcp_servers.a.url', '"url" has user info (user:password@) in it; pass credentials in "headers" instead'],
    ])
    expect(urlMessage('http://me@localhost/sse')[0]?.[2]).toBe('"url" has user info (user:password@) in it; pass credentials in "headers" instead')
    expect(urlMessage('ftp://example.com')).toEqual([
      ['characteroid-mcp-url', 'mcp_servers.a.url', '"url" uses ftp:; use https (or http for 127.0.0.1 and localhost)'],
    ])
    expect(urlMessage('not a url')).toEqual([['characteroid-mcp-url', 'mcp_servers.a.url', '"url" "not a url" is not a valid URL']])
    expect(urlMessage('http://127.0.0.2/sse')[0]?.[2]).toContain('only 127.0.0.1 and localhost may use http')
  })

  it("reports the other transport's fields as errors", () => {
    expect(brief(validateCharacteroidMcp(mcp({a: {transport: 'stdio', command: 'x', url: 'https://x.test', headers: {}}}), FILE))).toEqual([
      {
        severity: 'error',
        code: 'characteroid-mcp-wrong-transport-field',
        path: 'mcp_servers.a.url',
        message: '"url" belongs to the streamable_http and sse transports, not stdio',
      },
      {
        severity: 'error',
        code: 'characteroid-mcp-wrong-transport-field',
        path: 'mcp_servers.a.headers',
        message: '"headers" belongs to the streamable_http and sse transports, not stdio',
      },
    ])
    expect(
      brief(validateCharacteroidMcp(mcp({a: {transport: 'streamable_http', url: 'https://x.test', command: 'x', args: [], env: {}, cwd: '/'}}), FILE)).map(
        (p) => p.message,
      ),
    ).toEqual([
      '"command" belongs to the stdio transport, not streamable_http',
      '"args" belongs to the stdio transport, not streamable_http',
      '"env" belongs to the stdio transport, not streamable_http',
      '"cwd" belongs to the stdio transport, not streamable_http',
    ])
  })

  it('warns about unknown fields, in an entry and beside mcp_servers', () => {
    expect(brief(validateCharacteroidMcp(JSON.stringify({version: 1, mcp_servers: {a: {transport: 'stdio', command: 'x', disabled: true}}}), FILE))).toEqual([
      {severity: 'warning', code: 'characteroid-field-unknown', path: 'version', message: 'unknown field "version"; CHARACTOID reads only "mcp_servers"'},
      {
        severity: 'warning',
        code: 'characteroid-field-unknown',
        path: 'mcp_servers.a.disabled',
        message: 'unknown field "disabled"; CHARACTOID does not read it',
      },
    ])
  })
})
