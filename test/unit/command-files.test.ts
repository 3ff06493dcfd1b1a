/**
 * Which words of an installed MCP server's or hook's command name plugin files that must exist here:
 * `${CLAUDE_PROJECT_DIR}/...`, `.loadout/...` and absolute paths into an installed copy (another
 * machine's HOME included); everything else (`npx`, flags, system paths) is not loadout's to check.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {missingCommandFiles} from '../../src/core/ops/install/command-files.js'
import type {InstallRecord, RecordedConfigEdit} from '../../src/core/kernel/state/records.js'

let project: string
const REV = '0123456789abcdef'

const edit = (value: unknown, hooks = false): RecordedConfigEdit => ({
  component: 'kit@team/mcp/x',
  file: join(project, '.mcp.json'),
  format: 'json',
  path: ['mcpServers'],
  key: 'kit-x',
  value,
  ...(hooks ? {addedHooks: value as never} : {}),
  undo: {path: ['mcpServers'], key: 'kit-x', createdParents: 0},
  createdFile: false,
})

const record = (config: RecordedConfigEdit[]): InstallRecord => ({
  plugin: 'kit@team',
  target: 'claude-code',
  scope: 'project',
  source: './kit',
  integrity: 'sha256-x',
  pluginRoot: join(project, '.loadout', 'plugins', 'kit@team', REV),
  enabled: true,
  components: [],
  skipped: [],
  files: [],
  dirs: [],
  config,
})

beforeAll(() => {
  project = join(realpathSync(mkdtempSync(join(tmpdir(), 'loadout-cmdf-'))), 'project')
  mkdirSync(join(project, '.loadout', 'plugins', 'kit@team', REV, 'bin'), {recursive: true})
  writeFileSync(join(project, '.loadout', 'plugins', 'kit@team', REV, 'bin', 'run'), '#!/bin/sh\n')
})
afterAll(() => rmSync(join(project, '..'), {recursive: true, force: true}))

describe('missingCommandFiles', () => {
  it('finds nothing missing when the commands name the copy that is there', () => {
    expect(missingCommandFiles(record([edit({command: `\${CLAUDE_PROJECT_DIR}/.loadout/plugins/kit@team/${REV}/bin/run`, args: ['--stdio']})]))).toEqual([])
    expect(missingCommandFiles(record([edit({command: 'node', args: [`.loadout/plugins/kit@team/${REV}/bin/run`]})]))).toEqual([])
    expect(missingCommandFiles(record([edit({command: 'npx', args: ['-y', '@acme/server', '/usr/bin/definitely-not-here']})]))).toEqual([])
  })

  it('reports a command into another HOME, another revision, or a quoted hook path that is not there', () => {
    const other = `/home/someone-else/.local/share/loadout/plugins/team/kit/${REV}/bin/run`
    expect(missingCommandFiles(record([edit({command: other})])).join()).toContain(`runs ${other}, which does not exist`)
    expect(missingCommandFiles(record([edit({command: `\${CLAUDE_PROJECT_DIR}/.loadout/plugins/kit@team/ffffffffffffffff/bin/run`})]))).toHaveLength(1)
    const hooks = {PreToolUse: [{hooks: [{type: 'command', command: `"\${CLAUDE_PROJECT_DIR}/.loadout/plugins/kit@team/${REV}/bin/gone" --quiet`}]}]}
    expect(missingCommandFiles(record([edit(hooks, true)])).join()).toMatch(/bin\/gone, which does not exist/)
  })
})
