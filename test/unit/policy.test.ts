/** The pure parts of the policy chain: globs over hosts, the tighten-only merge, the checks, and hidden-text detection. */
import {describe, expect, it} from 'vitest'
import {findHiddenText} from '../../src/core/kernel/text/hidden-text.js'
import {checkMcpServer, checkParts, checkPinned, checkSourceHost} from '../../src/core/kernel/policy/enforce.js'
import {hostMatches, hostOfSource, hostOfUrl, LOCAL_HOST} from '../../src/core/kernel/policy/hosts.js'
import {mergePolicy} from '../../src/core/kernel/policy/merge.js'
import {describeAge, emptyPolicy, releaseAgeMs, type Policy} from '../../src/core/model/policy.js'
import type {PluginModel} from '../../src/core/model/plugin.js'

const chain = (...files: Array<[string, Parameters<typeof mergePolicy>[1]]>): Policy =>
  files.reduce((p, [from, file]) => mergePolicy(p, file, from), emptyPolicy())
const model = (parts: Partial<PluginModel>): PluginModel => ({
  name: 'p',
  root: '/x',
  manifests: [],
  skills: [],
  subagents: [],
  mcpServers: [],
  hooks: [],
  commands: [],
  tools: [],
  problems: [],
  ...parts,
})
const refusal = (fn: () => void) => {
  try {
    fn()
  } catch (error) {
    return (error as {details?: unknown; exitStatus?: number}).details
  }
  return undefined
}

describe('hosts of sources', () => {
  it('reads host and port from https, ssh and scp forms, and treats folders as "local"', () => {
    expect(hostOfUrl('https://GitHub.com/o/r.git')).toMatchObject({host: 'github.com', explicitPort: false, subject: 'github.com'})
    expect(hostOfUrl('https://127.0.0.1:8443/git/x.git')).toMatchObject({subject: '127.0.0.1:8443', port: '8443'})
    expect(hostOfUrl('https://example.com:443/x')).toMatchObject({subject: 'example.com', explicitPort: false})
    expect(hostOfUrl('git@git.corp.example:team/repo.git')).toMatchObject({subject: 'git.corp.example'})
    expect(hostOfUrl('ssh://git@git.corp.example:2222/team/repo')).toMatchObject({subject: 'git.corp.example:2222'})
    expect(hostOfSource({kind: 'github', owner: 'o', repo: 'r'}, {})).toMatchObject({subject: 'github.com'})
    expect(hostOfSource({kind: 'github', owner: 'o', repo: 'r'}, {LOADOUT_GITHUB_URL: 'https://ghe.corp.example'})).toMatchObject({subject: 'ghe.corp.example'})
    expect(hostOfSource({kind: 'local', path: '/tmp/x'}, {})).toBe(LOCAL_HOST)
  })

  it('a glob without a port matches the default port only; host:* any port', () => {
    expect(hostMatches('github.com', hostOfUrl('https://github.com/o/r'))).toBe(true)
    expect(hostMatches('github.com', hostOfUrl('https://github.com:8443/o/r'))).toBe(false)
    expect(hostMatches('*.corp.example', hostOfUrl('https://git.eu.corp.example/x'))).toBe(true)
    expect(hostMatches('*.corp.example', hostOfUrl('https://corp.example.evil.test/x'))).toBe(false)
    expect(hostMatches('127.0.0.1:*', hostOfUrl('https://127.0.0.1:9999/x'))).toBe(true)
    expect(hostMatches('127.0.0.1:*', hostOfUrl('https://127.0.0.1/x'))).toBe(true)
    expect(hostMatches('127.0.0.1:9999', hostOfUrl('https://127.0.0.1:9998/x'))).toBe(false)
    expect(hostMatches('local', LOCAL_HOST)).toBe(true)
  })
})

describe('the tighten-only merge', () => {
  it('a later allow list may narrow, never widen; a widening one is ignored with a warning', () => {
    const narrowed = chain(['/etc', {sources: {allow: ['*.example']}}], ['/user', {sources: {allow: ['git.corp.example']}}])
    expect(narrowed.sources.allow.map((l) => l.from)).toEqual(['/etc', '/user'])
    expect(narrowed.warnings).toEqual([])
    const widened = chain(['/etc', {sources: {allow: ['github.com']}}], ['/proj', {sources: {allow: ['github.com', '*']}}])
    expect(widened.sources.allow.map((l) => l.from)).toEqual(['/etc'])
    expect(widened.warnings).toEqual([expect.objectContaining({file: '/proj', rule: 'sources.allow'})])
  })

  it('blocks add up, false for hooks/tools/mcp.stdio and true for requirePinned stick', () => {
    const p = chain(
      ['/etc', {sources: {block: ['a.test']}, hooks: false, requirePinned: true}],
      ['/user', {sources: {block: ['b.test']}, hooks: true, tools: false, requirePinned: false, mcp: {stdio: false}}],
    )
    expect(p.sources.block).toEqual([
      {pattern: 'a.test', from: '/etc'},
      {pattern: 'b.test', from: '/user'},
    ])
    expect(p.hooks).toEqual({from: '/etc'})
    expect(p.tools).toEqual({from: '/user'})
    expect(p.mcp.stdio).toEqual({from: '/user'})
    expect(p.requirePinned).toEqual({from: '/etc'})
    expect(p.warnings.map((w) => w.rule).sort()).toEqual(['hooks', 'requirePinned'])
  })
})

describe('cool-down, no-downgrade and require in the merge', () => {
  it('keeps the longest minimumReleaseAge: a shorter later one is ignored with a warning', () => {
    const policy = chain(['/etc', {minimumReleaseAge: '7d'}], ['/user', {minimumReleaseAge: '12h'}], ['/project', {minimumReleaseAge: '2w'}])
    expect(policy.minimumReleaseAge).toEqual({text: '2w', ms: 14 * 86_400_000, from: '/project'})
    expect(policy.warnings).toEqual([
      expect.objectContaining({file: '/user', rule: 'minimumReleaseAge', message: expect.stringMatching(/12h is shorter than 7d/)}),
    ])
  })

  it('noDowngrade true sticks; require lists add up, each with its file', () => {
    const policy = chain(
      ['/etc', {noDowngrade: true, require: [{plugin: 'guard@acme', version: '>=1.2.0'}]}],
      ['/project', {noDowngrade: false, require: [{plugin: 'lint@acme'}]}],
    )
    expect(policy.noDowngrade).toEqual({from: '/etc'})
    expect(policy.warnings.map((w) => w.rule)).toEqual(['noDowngrade'])
    expect(policy.require).toEqual([
      {plugin: 'guard@acme', version: '>=1.2.0', from: '/etc'},
      {plugin: 'lint@acme', from: '/project'},
    ])
  })

  it('reads ages in minutes, hours, days and weeks, and nothing else', () => {
    expect(['30m', '12h', '7d', '1w', '7', 'd', '1y', '-1d'].map(releaseAgeMs)).toEqual([
      1_800_000,
      43_200_000,
      604_800_000,
      604_800_000,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    expect(describeAge(3 * 86_400_000 + 4 * 3_600_000)).toBe('3d 4h')
    expect(describeAge(59 * 60_000)).toBe('59m')
  })
})

describe('the checks', () => {
  it('a block wins over an allow and names its file', () => {
    const p = chain(['/etc', {sources: {allow: ['*.corp.example'], block: ['legacy.corp.example']}}])
    expect(refusal(() => checkSourceHost(p, hostOfUrl('https://legacy.corp.example/x'), 'x'))).toEqual({
      rule: 'sources.block',
      file: '/etc',
      subject: 'legacy.corp.example',
    })
    expect(refusal(() => checkSourceHost(p, hostOfUrl('https://git.corp.example/x'), 'x'))).toBeUndefined()
    expect(refusal(() => checkSourceHost(p, LOCAL_HOST, 'x'))).toMatchObject({rule: 'sources.allow', subject: 'local'})
  })

  it('requirePinned wants a commit, a full-sha ref or an archive sha256', () => {
    const p = chain(['/etc', {requirePinned: true}])
    expect(refusal(() => checkPinned(p, {kind: 'git', url: 'https://h/x.git', ref: 'main', label: 'x'}, 'x'))).toMatchObject({rule: 'requirePinned'})
    expect(refusal(() => checkPinned(p, {kind: 'git', url: 'https://h/x.git', ref: 'a'.repeat(40), label: 'x'}, 'x'))).toBeUndefined()
    expect(refusal(() => checkPinned(p, {kind: 'archive', url: 'https://h/x.tgz', sha256: 'b'.repeat(64), label: 'x'}, 'x'))).toBeUndefined()
    expect(refusal(() => checkPinned(p, {kind: 'folder', path: '/x', label: 'x'}, 'x'))).toMatchObject({rule: 'requirePinned'})
  })

  it('parts: hooks, tools, local MCP servers, and MCP servers outside mcp.allow', () => {
    const hooks = model({hooks: [{kind: 'hooks', name: 'hooks', events: {PreToolUse: []}}]})
    expect(refusal(() => checkParts(chain(['/u', {hooks: false}]), hooks, 'p@m'))).toMatchObject({rule: 'hooks', file: '/u'})
    expect(refusal(() => checkParts(chain(['/u', {tools: false}]), hooks, 'p@m'))).toBeUndefined()
    const stdio = {command: 'npx', args: ['-y', '@acme/server']}
    expect(refusal(() => checkMcpServer(chain(['/u', {mcp: {stdio: false}}]), 's', stdio, 'p'))).toMatchObject({rule: 'mcp.stdio'})
    expect(refusal(() => checkMcpServer(chain(['/u', {mcp: {stdio: false}}]), 's', {type: 'http', url: 'https://mcp.corp.example/x'}, 'p'))).toBeUndefined()
    const allow = chain(['/u', {mcp: {allow: ['npx -y @acme/*', 'https://mcp.corp.example/*']}}])
    expect(refusal(() => checkMcpServer(allow, 's', stdio, 'p'))).toBeUndefined()
    expect(refusal(() => checkMcpServer(allow, 's', {command: 'npx', args: ['-y', 'evil']}, 'p'))).toMatchObject({rule: 'mcp.allow', subject: 'npx -y evil'})
    expect(refusal(() => checkMcpServer(allow, 's', {type: 'http', url: 'https://mcp.corp.example/a'}, 'p'))).toBeUndefined()
  })
})

describe('hidden text', () => {
  const points = (text: string) => findHiddenText(text).map((f) => f.codePoint)
  it('finds tags, bidi controls, zero-width and other format characters, with line and column', () => {
    expect(findHiddenText('ok\nab\u{E0041}')).toEqual([{line: 2, column: 3, codePoint: 'U+E0041', name: 'TAG "A"'}])
    expect(points('\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C')).toHaveLength(12)
    expect(points('a\u200Bb\u200Cc\u2060d\u00ADe')).toEqual(['U+200B', 'U+200C', 'U+2060', 'U+00AD'])
    expect(points('x\uFEFF')).toEqual(['U+FEFF'])
    expect(points('a\u200Db')).toEqual(['U+200D'])
  })

  it('lets emoji joiners, a leading BOM and subdivision flags through', () => {
    expect(points('\uFEFF# title 👩‍👩‍👧 ❤️‍🔥 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}')).toEqual([])
    // a tag run that is not a flag (upper-case letters, or no black flag before it) is hidden text
    expect(points('🏴\u{E0041}\u{E007F}')).toEqual(['U+E0041', 'U+E007F'])
  })
})
