// A registry server.json as one server entry: pinned commands per package type, arguments and
// variables filled from defaults, secrets only as references; and how each agent spells a reference.
import {describe, expect, it} from 'vitest'
import {isLoadoutError} from '../../src/core/model/errors.js'
import {codexPassThrough, spellEnvReferences} from '../../src/core/kernel/writers/env-refs.js'
import {renderMcpEntry} from '../../src/core/kernel/writers/mcp.js'
import type {RegistryServer} from '../../src/core/kernel/mcp/registry.js'
import {specFromServerJson} from '../../src/core/kernel/mcp/server-json.js'
import {localServerSpec} from '../../src/core/kernel/mcp/spec.js'

const REGISTRY = 'https://registry.example'

const server = (fields: Partial<RegistryServer>): RegistryServer => ({name: 'io.github.acme/thing', version: '1.2.3', description: 'A thing', ...fields})

const errorCode = (fn: () => unknown): string => {
  try {
    fn()
  } catch (error) {
    if (isLoadoutError(error)) return error.code
    throw error
  }
  throw new Error('expected a LoadoutError')
}

describe('specFromServerJson', () => {
  it('runs a pypi package with uvx, pinned, runtime arguments before it and package arguments after', () => {
    const spec = specFromServerJson(
      server({
        packages: [
          {
            registryType: 'pypi',
            identifier: 'acme-thing',
            version: '1.2.3',
            runtimeArguments: [{type: 'named', name: '--python', value: '3.12'}],
            packageArguments: [
              {type: 'positional', valueHint: 'workspace', default: '/work'},
              {type: 'named', name: '--verbose', isRequired: false},
              {type: 'named', name: '--stdio', isRequired: true},
              {type: 'named', name: '--api-key', isSecret: true, isRequired: true},
              {type: 'named', name: '--base', valueHint: 'base_url', isRequired: true},
            ],
          },
        ],
      }),
      REGISTRY,
    )
    expect(spec.name).toBe('thing')
    expect(spec.config).toEqual({
      command: 'uvx',
      args: ['--python=3.12', 'acme-thing==1.2.3', '/work', '--stdio', '--api-key', '${API_KEY}', '--base', '${BASE_URL}'],
    })
    expect(spec.requiredEnv).toEqual(['API_KEY', 'BASE_URL'])
    expect(spec.origin).toEqual({kind: 'registry', registry: REGISTRY, server: 'io.github.acme/thing', version: '1.2.3'})
  })

  it('runs an oci image with docker, passing each variable into the container by name', () => {
    const spec = specFromServerJson(
      server({
        packages: [
          {
            registryType: 'oci',
            identifier: 'ghcr.io/acme/thing',
            version: '1.2.3',
            environmentVariables: [
              {name: 'THING_TOKEN', isSecret: true, isRequired: true},
              {name: 'THING_MODE', default: 'fast'},
            ],
          },
        ],
      }),
      REGISTRY,
    )
    expect(spec.config).toEqual({
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'THING_TOKEN', '-e', 'THING_MODE', 'ghcr.io/acme/thing:1.2.3'],
      env: {THING_TOKEN: '${THING_TOKEN}', THING_MODE: 'fast'},
    })
    expect(spec.requiredEnv).toEqual(['THING_TOKEN'])
    // an identifier that already carries its tag keeps it
    expect(specFromServerJson(server({packages: [{registryType: 'oci', identifier: 'ghcr.io/acme/thing:2.0.0'}]}), REGISTRY).config.args).toContain(
      'ghcr.io/acme/thing:2.0.0',
    )
  })

  it('writes a required variable without a default as a reference and says so', () => {
    const spec = specFromServerJson(
      server({packages: [{registryType: 'npm', identifier: 'thing', version: '1.2.3', environmentVariables: [{name: 'THING_URL', isRequired: true}]}]}),
      REGISTRY,
    )
    expect(spec.config.env).toEqual({THING_URL: '${THING_URL}'})
    expect(spec.requiredEnv).toEqual(['THING_URL'])
    expect(spec.notes.join(' ')).toContain('THING_URL')
  })

  it('takes the remote with --remote, and a package otherwise', () => {
    const both = server({packages: [{registryType: 'npm', identifier: 'thing', version: '1.2.3'}], remotes: [{type: 'sse', url: 'https://thing.example/sse'}]})
    expect(specFromServerJson(both, REGISTRY).config.command).toBe('npx')
    expect(specFromServerJson(both, REGISTRY, {remote: true}).config).toEqual({type: 'sse', url: 'https://thing.example/sse'})
  })

  it('refuses what cannot be made safe', () => {
    expect(errorCode(() => specFromServerJson(server({packages: [{registryType: 'npm', identifier: '--require=/tmp/x', version: '1.0.0'}]}), REGISTRY))).toBe(
      'registry-server-unusable',
    )
    expect(errorCode(() => specFromServerJson(server({packages: [{registryType: 'npm', identifier: 'thing', version: 'latest'}]}), REGISTRY))).toBe(
      'registry-server-unusable',
    )
    expect(errorCode(() => specFromServerJson(server({packages: [{registryType: 'nuget', identifier: 'Thing', version: '1.0.0'}]}), REGISTRY))).toBe(
      'registry-server-unusable',
    )
    expect(errorCode(() => specFromServerJson(server({remotes: [{type: 'streamable-http', url: 'https://user:pw@thing.example/mcp'}]}), REGISTRY))).toBe(
      'credentials-in-url',
    )
    expect(errorCode(() => specFromServerJson(server({remotes: [{type: 'streamable-http', url: 'http://thing.example/mcp'}]}), REGISTRY))).toBe('insecure-url')
    expect(errorCode(() => specFromServerJson(server({name: 'io.github.acme/..'}), REGISTRY))).toBe('bad-server-name')
  })
})

describe('references to environment variables, per agent', () => {
  const spec = localServerSpec({name: 'thing', command: ['thing', '--token', '${THING_TOKEN}'], env: ['THING_TOKEN', 'MODE=fast']})

  it('are spelled as Cursor expands them', () => {
    expect(spellEnvReferences(spec.config, '${env:VAR}')).toEqual({
      command: 'thing',
      args: ['--token', '${env:THING_TOKEN}'],
      env: {THING_TOKEN: '${env:THING_TOKEN}', MODE: 'fast'},
    })
  })

  it('become names Codex passes through, and a server Codex cannot pass them to is not written, saying what would be lost', () => {
    // Codex expands no ${...}: "--token ${THING_TOKEN}" would reach the server as literal text
    expect(renderMcpEntry(spec.config, 'codex')).toEqual({
      unsupported: expect.stringContaining('Codex does not expand ${VAR}: the argument "${THING_TOKEN}" would reach the server as literal text'),
    })
    const passed = renderMcpEntry({command: 'thing', env: {THING_TOKEN: '${THING_TOKEN}', MODE: 'fast'}}, 'codex')
    expect(passed).toEqual({value: {command: 'thing', env: {MODE: 'fast'}, env_vars: ['THING_TOKEN']}, notes: []})
    const notes: string[] = []
    expect(codexPassThrough({url: 'https://x.example', http_headers: {Authorization: 'Bearer ${A}', 'X-Key': '${B}', 'X-Mixed': 'id ${C}'}}, notes)).toEqual({
      url: 'https://x.example',
      bearer_token_env_var: 'A',
      env_http_headers: {'X-Key': 'B'},
      http_headers: {'X-Mixed': 'id ${C}'},
    })
    expect(notes).toEqual(['header X-Mixed: Codex does not expand ${...} references; written as is'])
  })
})
