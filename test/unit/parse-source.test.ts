import {describe, expect, it} from 'vitest'

import {EXIT, LoadoutError} from '../../src/core/model/errors.js'
import {
  ACCEPTED_SOURCE_FORMS,
  acceptedSourceFormLines,
  cloneUrl,
  normalizeGitUrl,
  parseSource,
  sourceLabel,
  type ParseSourceOptions,
} from '../../src/core/kernel/sources/parse.js'
import {hasCredentials, redactSecrets, redactUrl} from '../../src/core/kernel/sources/redact.js'
import type {Source} from '../../src/core/model/source.js'

const CWD = '/work/project'
const HOME = '/home/user'
const options: ParseSourceOptions = {cwd: CWD, home: HOME}
const parse = (input: string, extra: Partial<ParseSourceOptions> = {}) => parseSource(input, {...options, ...extra})

/** The LoadoutError `fn` throws; fails the test when it throws nothing or something else. */
const thrown = (fn: () => unknown): LoadoutError => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(LoadoutError)
    return error as LoadoutError
  }
  throw new Error('expected a LoadoutError, nothing was thrown')
}

/** Everything a user could see of an error: message, suggestions, details. */
const shown = (error: LoadoutError): string => JSON.stringify(error.toJSON())

const SHA = 'ab'.repeat(32)

describe('parseSource: accepted forms', () => {
  const accepted: Array<[input: string, expected: Source]> = [
    // GitHub shorthand
    ['owner/repo', {kind: 'github', owner: 'owner', repo: 'repo'}],
    ['owner/repo@v1.2.0', {kind: 'github', owner: 'owner', repo: 'repo', ref: 'v1.2.0'}],
    ['owner/repo#main', {kind: 'github', owner: 'owner', repo: 'repo', ref: 'main'}],
    ['owner/repo#feature/x', {kind: 'github', owner: 'owner', repo: 'repo', ref: 'feature/x'}],
    ['owner/repo.git', {kind: 'github', owner: 'owner', repo: 'repo'}],
    ['owner/repo.git@v2', {kind: 'github', owner: 'owner', repo: 'repo', ref: 'v2'}],
    ['Acme-Corp/my.repo_name-2', {kind: 'github', owner: 'Acme-Corp', repo: 'my.repo_name-2'}],
    ['acme/.github', {kind: 'github', owner: 'acme', repo: '.github'}],
    [`o/r@${'c'.repeat(40)}`, {kind: 'github', owner: 'o', repo: 'r', ref: 'c'.repeat(40)}],
    ['  owner/repo  ', {kind: 'github', owner: 'owner', repo: 'repo'}],
    ['github:owner/repo', {kind: 'github', owner: 'owner', repo: 'repo'}],
    ['github:owner/repo@v1', {kind: 'github', owner: 'owner', repo: 'repo', ref: 'v1'}],
    ['github:owner/repo#dev', {kind: 'github', owner: 'owner', repo: 'repo', ref: 'dev'}],
    ['GitHub:owner/repo.git', {kind: 'github', owner: 'owner', repo: 'repo'}],
    // git over https
    ['https://host/path.git', {kind: 'git', url: 'https://host/path.git'}],
    ['https://host/o/r.git#v2', {kind: 'git', url: 'https://host/o/r.git', ref: 'v2'}],
    ['https://host/o/r.git#feature%2Fx', {kind: 'git', url: 'https://host/o/r.git', ref: 'feature/x'}],
    ['https://host:8443/team/r.git/', {kind: 'git', url: 'https://host:8443/team/r.git'}],
    ['https://github.com/o/r', {kind: 'git', url: 'https://github.com/o/r'}],
    ['https://github.com/o/r/', {kind: 'git', url: 'https://github.com/o/r'}],
    ['HTTPS://GitHub.com/o/r', {kind: 'git', url: 'https://github.com/o/r'}],
    ['https://github.com:443/o/r#main', {kind: 'git', url: 'https://github.com/o/r', ref: 'main'}],
    ['https://gitlab.com/o/r', {kind: 'git', url: 'https://gitlab.com/o/r'}],
    ['https://gitlab.com/group/sub/r', {kind: 'git', url: 'https://gitlab.com/group/sub/r'}],
    ['https://bitbucket.org/o/r', {kind: 'git', url: 'https://bitbucket.org/o/r'}],
    ['https://codeberg.org/o/r', {kind: 'git', url: 'https://codeberg.org/o/r'}],
    // git over ssh
    ['git@host:o/r.git', {kind: 'git', url: 'git@host:o/r.git'}],
    ['git@github.com:o/r', {kind: 'git', url: 'git@github.com:o/r'}],
    ['git@gitlab.com:group/sub/r.git', {kind: 'git', url: 'git@gitlab.com:group/sub/r.git'}],
    ['git@host:o/r.git#v2', {kind: 'git', url: 'git@host:o/r.git', ref: 'v2'}],
    ['git@host:/srv/git/r.git', {kind: 'git', url: 'git@host:/srv/git/r.git'}],
    ['ssh://host/o/r.git', {kind: 'git', url: 'ssh://host/o/r.git'}],
    ['ssh://git@host:2222/o/r.git', {kind: 'git', url: 'ssh://git@host:2222/o/r.git'}],
    ['ssh://git@host/o/r.git#release/1', {kind: 'git', url: 'ssh://git@host/o/r.git', ref: 'release/1'}],
    ['SSH://git@[::1]:22/r.git', {kind: 'git', url: 'ssh://git@[::1]:22/r.git'}],
    // archives
    ['https://example.com/tools-1.0.tar.gz', {kind: 'archive', url: 'https://example.com/tools-1.0.tar.gz'}],
    ['https://example.com/tools.tgz', {kind: 'archive', url: 'https://example.com/tools.tgz'}],
    [`https://example.com/t.tgz#sha256=${SHA.toUpperCase()}`, {kind: 'archive', url: 'https://example.com/t.tgz', sha256: SHA}],
    // catalog URLs
    ['https://example.com/marketplace.json', {kind: 'catalog-url', url: 'https://example.com/marketplace.json'}],
    [
      'https://raw.githubusercontent.com/o/r/main/.claude-plugin/marketplace.json',
      {kind: 'catalog-url', url: 'https://raw.githubusercontent.com/o/r/main/.claude-plugin/marketplace.json'},
    ],
    ['https://example.com/o/r', {kind: 'catalog-url', url: 'https://example.com/o/r'}],
    ['https://github.com/o/r/blob/main/catalog.json', {kind: 'catalog-url', url: 'https://github.com/o/r/blob/main/catalog.json'}],
    ['https://gitlab.com/g/r/-/raw/main/c.json', {kind: 'catalog-url', url: 'https://gitlab.com/g/r/-/raw/main/c.json'}],
    ['https://example.com/api?catalog=1', {kind: 'catalog-url', url: 'https://example.com/api?catalog=1'}],
    // local
    ['./dir', {kind: 'local', path: `${CWD}/dir`}],
    ['./dir/', {kind: 'local', path: `${CWD}/dir`}],
    ['../dir', {kind: 'local', path: '/work/dir'}],
    ['/abs/dir', {kind: 'local', path: '/abs/dir'}],
    ['/repo', {kind: 'local', path: '/repo'}],
    ['/', {kind: 'local', path: '/'}],
    ['~/dir', {kind: 'local', path: `${HOME}/dir`}],
    ['~', {kind: 'local', path: HOME}],
    ['.', {kind: 'local', path: CWD}],
    ['..', {kind: 'local', path: '/work'}],
    ['./catalog.json', {kind: 'local', path: `${CWD}/catalog.json`}],
    ['catalog.json', {kind: 'local', path: `${CWD}/catalog.json`}],
    ['some/where/catalog.JSON', {kind: 'local', path: `${CWD}/some/where/catalog.JSON`}],
    ['./owner/repo', {kind: 'local', path: `${CWD}/owner/repo`}],
    ['./-dash', {kind: 'local', path: `${CWD}/-dash`}],
    ['./My Plugins', {kind: 'local', path: `${CWD}/My Plugins`}],
  ]

  it.each(accepted)('%j', (input, expected) => {
    expect(parse(input)).toStrictEqual(expected)
  })

  it('treats a bare owner/repo as GitHub even though a folder of that name may exist; ./ forces local', () => {
    expect(parse('plugins/review').kind).toBe('github')
    expect(parse('./plugins/review')).toStrictEqual({kind: 'local', path: `${CWD}/plugins/review`})
  })

  it('accepts the longest GitHub names and no longer ones', () => {
    expect(parse(`${'a'.repeat(39)}/${'r'.repeat(100)}`)).toMatchObject({kind: 'github'})
    expect(thrown(() => parse(`${'a'.repeat(40)}/r`)).code).toBe('unrecognized-source')
    expect(thrown(() => parse(`o/${'r'.repeat(101)}`)).code).toBe('unrecognized-source')
  })

  it('treats the host of $LOADOUT_GITHUB_URL like github.com', () => {
    expect(parse('https://ghe.example.com/o/r').kind).toBe('catalog-url')
    expect(parse('https://ghe.example.com/o/r', {githubUrl: 'https://ghe.example.com/'})).toStrictEqual({kind: 'git', url: 'https://ghe.example.com/o/r'})
    expect(parse('https://127.0.0.1:8443/git/o/r', {githubUrl: 'https://127.0.0.1:8443/git'})).toStrictEqual({
      kind: 'git',
      url: 'https://127.0.0.1:8443/git/o/r',
    })
  })

  it('parses every example in the table to the kind the table says', () => {
    for (const form of ACCEPTED_SOURCE_FORMS) expect(parse(form.example).kind, form.example).toBe(form.kind)
  })
})

describe('parseSource: --ref', () => {
  it('overrides a ref written in a GitHub or git source', () => {
    expect(parse('owner/repo@v1', {ref: 'v2'})).toStrictEqual({kind: 'github', owner: 'owner', repo: 'repo', ref: 'v2'})
    expect(parse('owner/repo', {ref: 'main'})).toStrictEqual({kind: 'github', owner: 'owner', repo: 'repo', ref: 'main'})
    expect(parse('https://host/o/r.git#v1', {ref: 'feature/y'})).toStrictEqual({kind: 'git', url: 'https://host/o/r.git', ref: 'feature/y'})
    expect(parse('git@host:o/r.git', {ref: 'v3'})).toStrictEqual({kind: 'git', url: 'git@host:o/r.git', ref: 'v3'})
  })

  it('reads a folder through git at that ref (a repository given as a path)', () => {
    expect(parse('./dir', {ref: 'v1'})).toMatchObject({kind: 'git', url: expect.stringMatching(/^file:\/\/.*\/dir$/), ref: 'v1'})
  })

  it.each(['https://example.com/c.json', 'https://example.com/t.tgz', 'catalog.json'])('is a usage error for %j', (input) => {
    const error = thrown(() => parse(input, {ref: 'main'}))
    expect(error.code).toBe('ref-not-allowed')
    expect(error.exitStatus).toBe(EXIT.usage)
    expect(error.suggestions.length).toBeGreaterThan(0)
  })

  it.each(['', '-x', '--upload-pack=x', 'a b', 'a..b', 'a:b', 'x.lock', 'a//b', 'end/', '.hidden', 'a@{1}', 'a\nb'])('refuses the ref %j', (ref) => {
    expect(thrown(() => parse('owner/repo', {ref})).code).toBe('invalid-ref')
  })
})

describe('parseSource: refused forms', () => {
  const refused: Array<[input: string, code: string]> = [
    ['', 'source-empty'],
    [' ', 'source-empty'],
    ['\t\n', 'source-empty'],
    ['http://x/y.json', 'source-insecure-transport'],
    ['HTTP://github.com/o/r.git', 'source-insecure-transport'],
    ['-oProxyCommand=x', 'source-looks-like-option'],
    ['--upload-pack=touch /tmp/pwned', 'source-looks-like-option'],
    ['-', 'source-looks-like-option'],
    [' --help', 'source-looks-like-option'],
    ['ext::sh -c touch% /tmp/pwned', 'source-transport-not-allowed'],
    ['file::/etc', 'source-transport-not-allowed'],
    ['fd::3', 'source-transport-not-allowed'],
    ['file:///etc', 'source-transport-not-allowed'],
    ['git://host/r', 'source-transport-not-allowed'],
    ['ftp://host/c.json', 'source-transport-not-allowed'],
    ['git+ssh://host/r.git', 'source-transport-not-allowed'],
    ['owner/repo\n', 'source-control-characters'],
    ['owner/repo\nrm -rf /', 'source-control-characters'],
    ['owner/\u0000repo', 'source-control-characters'],
    ['owner/repo\u202e', 'source-control-characters'],
    ['https://host/r.git\r', 'source-control-characters'],
    ['a/b/c', 'unrecognized-source'],
    ['owner/', 'unrecognized-source'],
    ['owner', 'unrecognized-source'],
    ['o/.', 'unrecognized-source'],
    ['o/..', 'unrecognized-source'],
    ['o/.git', 'unrecognized-source'],
    ['o_x/r', 'unrecognized-source'],
    ['~someone/dir', 'unrecognized-source'],
    ['gitlab:o/r', 'unrecognized-source'],
    ['https:host/x.json', 'unrecognized-source'],
    ['owner/repo@', 'invalid-ref'],
    ['owner/repo#', 'invalid-ref'],
    ['owner/repo@-x', 'invalid-ref'],
    ['owner/repo@a..b', 'invalid-ref'],
    ['https://host/r.git#-x', 'invalid-ref'],
    ['https://host/r.git#%E0%A4%A', 'invalid-ref'],
    ['git@host:r.git#--upload-pack=x', 'invalid-ref'],
    ['github:-x/r', 'invalid-github-repository'],
    ['github:o/r/extra', 'invalid-github-repository'],
    ['github:', 'invalid-github-repository'],
    ['ssh://-oProxyCommand=x/r', 'invalid-url'],
    ['ssh://-oProxyCommand=x@host/r', 'invalid-url'],
    ['ssh://host', 'invalid-url'],
    ['ssh://host:port/r', 'invalid-url'],
    ['https://exa mple.com/c.json', 'invalid-url'],
    ['https://example.com/t.tgz#v1', 'invalid-archive-checksum'],
    ['https://example.com/t.tgz#sha256=abc', 'invalid-archive-checksum'],
  ]

  it.each(refused)('%j -> %s', (input, code) => {
    const error = thrown(() => parse(input))
    expect(error.code).toBe(code)
    expect(error.exitStatus).toBe(EXIT.usage)
    expect(error.message.length).toBeGreaterThan(0)
    expect(error.suggestions.length).toBeGreaterThan(0)
  })

  it('says what to use instead of http', () => {
    const error = thrown(() => parse('http://x/y.json'))
    expect(error.message).toContain('remote sources must use https')
    expect(error.suggestions.join('\n')).toContain('https://x/y.json')
  })

  it('names the refused transport and the allowed ones', () => {
    const error = thrown(() => parse('ext::sh -c touch% /tmp/pwned'))
    expect(error.message).toContain('ext::')
    expect(error.suggestions.join('\n')).toMatch(/https:\/\/.*ssh:\/\//)
    expect(thrown(() => parse('file:///etc')).suggestions.join('\n')).toContain('/abs/dir')
  })

  it('never echoes a raw control character', () => {
    const error = thrown(() => parse('owner/repo\u001b[31m'))
    expect(error.message).toContain('U+001B')
    expect(shown(error)).not.toContain('\u001b')
  })

  it('lists every accepted form when it cannot tell what a source is', () => {
    const error = thrown(() => parse('a/b/c'))
    expect(error.message).toContain('"a/b/c"')
    for (const form of ACCEPTED_SOURCE_FORMS) expect(error.suggestions.join('\n')).toContain(form.pattern)
    expect(error.suggestions).toContain('for a local folder or file, write "./a/b/c"')
    expect(thrown(() => parse('o_x/r')).suggestions[0]).toContain('owner "o_x"')
  })
})

describe('parseSource: credentials', () => {
  const withCredentials: Array<[input: string, secret: string]> = [
    ['https://user:secret@host/x.git', 'secret'],
    ['https://tok@host/c.json', 'tok'],
    ['https://ghp_abcdef0123456789@github.com/o/r', 'ghp_abcdef0123456789'],
    ['https://alice:@host/x.git', 'alice'],
    ['HTTPS://User:Secret@Host/x.git', 'Secret'],
    ['https://user:p@ss@host/x.git', 'p@ss'],
    ['https://user:pa ss@host/x.git', 'pa ss'],
    ['https:user:secret@host/x.git', 'secret'],
    ['https:\\\\user:secret@host/x.git', 'secret'],
    ['http://user:secret@host/x.json', 'secret'],
    ['ssh://git:secret@host/o/r.git', 'secret'],
    ['ssh://:secret@host/o/r.git', 'secret'],
    ['git://user:secret@host/r', 'secret'],
    ['git:secret@host:o/r.git', 'secret'],
    [' https://user:secret@host/x.git\n', 'secret'],
    ['https://us\ner:secret@host/x.git', 'secret'],
  ]

  it.each(withCredentials)('%j is refused before anything else, without echoing the credentials', (input, secret) => {
    const error = thrown(() => parse(input))
    expect(error.code).toBe('source-has-credentials')
    expect(error.exitStatus).toBe(EXIT.usage)
    expect(error.suggestions).toContain("remove the credentials from the URL; use LOADOUT_TOKEN or git's credential helper")
    expect(shown(error)).not.toContain(secret)
  })

  it('shows the rest of the URL so the user knows which one', () => {
    expect(thrown(() => parse('https://user:secret@host/x.git')).message).toContain('https://***@host/x.git')
  })

  it('allows an ssh login without a password', () => {
    expect(parse('ssh://git@host/o/r.git').kind).toBe('git')
    expect(parse('git@host:o/r.git').kind).toBe('git')
  })

  it('never echoes credentials from --ref errors or labels either', () => {
    const error = thrown(() => parse('https://example.com/c.json', {ref: 'main'}))
    expect(shown(error)).toContain('https://example.com/c.json')
  })
})

describe('sourceLabel', () => {
  const labels: Array<[Source, string]> = [
    [{kind: 'github', owner: 'o', repo: 'r'}, 'o/r'],
    [{kind: 'github', owner: 'o', repo: 'r', ref: 'v1', path: 'plugins/x'}, 'o/r@v1 (path plugins/x)'],
    [{kind: 'git', url: 'https://host/r.git', ref: 'v2'}, 'https://host/r.git#v2'],
    [{kind: 'git', url: 'https://tok@host/r.git'}, 'https://***@host/r.git'],
    [{kind: 'git', url: 'git@host:o/r.git'}, 'git@host:o/r.git'],
    [{kind: 'catalog-url', url: 'https://u:p@host/c.json'}, 'https://***@host/c.json'],
    [{kind: 'archive', url: 'https://host/t.tgz', sha256: SHA}, 'https://host/t.tgz'],
    [{kind: 'local', path: '/abs/dir'}, '/abs/dir'],
  ]
  it.each(labels)('%j -> %s', (source, label) => {
    expect(sourceLabel(source)).toBe(label)
  })

  it('gives labels of github and git sources that parse back to the same source', () => {
    for (const input of ['owner/repo@v1', 'https://host/o/r.git#v2', 'git@host:o/r.git#main', 'ssh://git@host:2222/o/r.git']) {
      const source = parse(input)
      expect(parse(sourceLabel(source))).toStrictEqual(source)
    }
  })
})

describe('cloneUrl', () => {
  it('builds the https clone URL of a GitHub source from the GitHub URL', () => {
    const source = parse('owner/repo@v1')
    expect(cloneUrl(source)).toBe('https://github.com/owner/repo.git')
    expect(cloneUrl(source, 'https://ghe.example.com')).toBe('https://ghe.example.com/owner/repo.git')
    expect(cloneUrl(source, 'https://ghe.example.com/')).toBe('https://ghe.example.com/owner/repo.git')
    expect(cloneUrl(source, 'https://127.0.0.1:8443/git/')).toBe('https://127.0.0.1:8443/git/owner/repo.git')
  })

  it('gives the URL of a git source and nothing for other kinds', () => {
    expect(cloneUrl(parse('git@host:o/r.git#v1'))).toBe('git@host:o/r.git')
    expect(cloneUrl(parse('https://host/o/r.git#v1'))).toBe('https://host/o/r.git')
    expect(cloneUrl(parse('https://host/c.json'))).toBeUndefined()
    expect(cloneUrl(parse('./dir'))).toBeUndefined()
  })
})

describe('normalizeGitUrl', () => {
  const cases: Array<[string, string]> = [
    ['HTTPS://GitHub.com/o/r.git', 'https://github.com/o/r'],
    ['https://github.com/o/r/', 'https://github.com/o/r'],
    ['https://github.com:443/o/r.git/', 'https://github.com/o/r'],
    ['https://host:8443/o/r.git', 'https://host:8443/o/r'],
    ['https://host/o/r.git#v2', 'https://host/o/r'],
    ['https://tok@host/o/r.git', 'https://host/o/r'],
    ['SSH://git@Host:22/o/r.git', 'ssh://git@host/o/r'],
    ['ssh://git@host:2222/o/r.git', 'ssh://git@host:2222/o/r'],
    ['git@GitHub.com:o/r.git', 'ssh://git@github.com/~/o/r'],
    ['git@host:/srv/r.git', 'ssh://git@host/srv/r'],
  ]
  it.each(cases)('%j -> %s', (url, key) => {
    expect(normalizeGitUrl(url)).toBe(key)
  })

  it('gives the same key to spellings of the same repository', () => {
    const keys = ['https://github.com/o/r', 'https://GITHUB.com/o/r.git', 'https://github.com/o/r/', cloneUrl(parse('o/r'))!].map(normalizeGitUrl)
    expect(new Set(keys).size).toBe(1)
  })
})

describe('acceptedSourceFormLines', () => {
  it('has one line per form, naming its pattern and example', () => {
    const lines = acceptedSourceFormLines()
    expect(lines).toHaveLength(ACCEPTED_SOURCE_FORMS.length)
    ACCEPTED_SOURCE_FORMS.forEach((form, i) => {
      expect(lines[i]).toContain(form.pattern)
      expect(lines[i]).toContain(form.example)
    })
  })
})

describe('redactUrl', () => {
  const cases: Array<[string, string]> = [
    ['https://user:pass@host/x.git', 'https://***@host/x.git'],
    ['https://token@host', 'https://***@host'],
    ['https://user:@host/x', 'https://***@host/x'],
    ['ssh://user:pw@host/o/r', 'ssh://***@host/o/r'],
    ['ssh://git@host/o/r', 'ssh://git@host/o/r'],
    ['git@host:o/r.git', 'git@host:o/r.git'],
    ['git:pw@host:o/r.git', 'git:***@host:o/r.git'],
    ['https://user:p@ss@host/x', 'https://***@host/x'],
    ['https:user:pass@host/x', 'https:***@host/x'],
    ['HTTP://U:P@host/x', 'HTTP://***@host/x'],
    ['https://host/path', 'https://host/path'],
    ['https://registry.npmjs.org/@scope/pkg', 'https://registry.npmjs.org/@scope/pkg'],
    ['https://unpkg.com/pkg@1.0.0/x', 'https://unpkg.com/pkg@1.0.0/x'],
    ['https://host/x?from=a@b', 'https://host/x?from=a@b'],
    ['mail me at someone@example.com', 'mail me at someone@example.com'],
    ["fatal: unable to access 'https://x-access-token:ghs_123@github.com/o/r.git/': 403", "fatal: unable to access 'https://***@github.com/o/r.git/': 403"],
    ['from https://a:b@h1/x to https://c@h2/y', 'from https://***@h1/x to https://***@h2/y'],
    ['url:https://tok@host/x', 'url:https://***@host/x'],
    ['(https://tok@host)', '(https://***@host)'],
  ]
  it.each(cases)('%j -> %j', (text, expected) => {
    expect(redactUrl(text)).toBe(expected)
  })

  it('takes time linear in the text, whatever the text holds', () => {
    const hostile = `@${'a:'.repeat(100_000)}`
    const started = performance.now()
    expect(redactUrl(hostile)).toBe(hostile)
    expect(redactUrl(`${hostile}@x`)).toContain('***@x')
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('hasCredentials', () => {
  const cases: Array<[URL | string, boolean]> = [
    ['https://user:pass@host/x', true],
    ['https://token@host/x', true],
    ['https://user:p w@host/x', true],
    ['https:u:p@host/x', true],
    ['ssh://user:pw@host/x', true],
    ['git:pw@host:o/r', true],
    [new URL('https://tok@host/'), true],
    [new URL('ssh://git:pw@host/r'), true],
    ['ssh://git@host/x', false],
    ['git@host:o/r.git', false],
    ['https://host/x', false],
    ['https://registry.npmjs.org/@scope/x', false],
    ['owner/repo@v1', false],
    ['github:owner/repo@v1', false],
    [new URL('ssh://git@host/r'), false],
    [new URL('https://host/r'), false],
  ]
  it.each(cases)('%s -> %s', (url, expected) => {
    expect(hasCredentials(url)).toBe(expected)
  })
})

describe('redactSecrets', () => {
  it('replaces every occurrence of every secret', () => {
    expect(redactSecrets('Authorization: Bearer tok123; again tok123 and other-9', ['tok123', 'other-9'])).toBe('Authorization: Bearer ***; again *** and ***')
  })

  it('replaces a secret that contains another one whole', () => {
    expect(redactSecrets('abc123xyz', ['abc', 'abc123xyz'])).toBe('***')
  })

  it('replaces the percent-encoded form of a secret', () => {
    expect(redactSecrets('https://host/?t=a%2Fb%3Dc', ['a/b=c'])).toBe('https://host/?t=***')
  })

  it('ignores empty and missing values and leaves text without secrets alone', () => {
    expect(redactSecrets('nothing to hide', ['', '   ', undefined])).toBe('nothing to hide')
    expect(redactSecrets('nothing to hide', [])).toBe('nothing to hide')
  })
})

describe('parseSource: npm packages', () => {
  it.each([
    ['npm:tools', {kind: 'npm', package: 'tools'}],
    ['npm:@acme/tools', {kind: 'npm', package: '@acme/tools'}],
    ['npm:@acme/tools@^1.2', {kind: 'npm', package: '@acme/tools', version: '^1.2'}],
    ['npm:tools@latest', {kind: 'npm', package: 'tools', version: 'latest'}],
  ])('reads %s', (input, expected) => {
    expect(parse(input)).toEqual(expected)
    expect(sourceLabel(parse(input))).toBe(input)
    expect(cloneUrl(parse(input))).toBeUndefined()
  })
  it.each(['npm:', 'npm:Bad Name', 'npm:../x', 'npm:@acme/tools@', 'npm:tools@-x'])('refuses %s', (input) => {
    expect(thrown(() => parse(input)).exitStatus).toBe(EXIT.usage)
  })
})

describe('parseSource: npm and credentials', () => {
  it('refuses npm:user:password@host without echoing the password', () => {
    const error = thrown(() => parse('npm:alice:s3cret@registry.test'))
    expect(error.message).not.toContain('s3cret')
  })
})
