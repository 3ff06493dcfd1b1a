import {describe, expect, it} from 'vitest'
import {ownershipFrom, type InstallRecord} from '../../src/core/kernel/state/records.js'

const record = (plugin: string, files: string[], dirs: string[] = []): InstallRecord =>
  ({plugin, files: files.map((path) => ({path, sha256: 'x'})), dirs}) as unknown as InstallRecord

describe('ownership', () => {
  const own = ownershipFrom([
    record('review@acme', ['/h/.claude/skills/review/SKILL.md', '/h/.claude/skills/review/ref/a.md'], ['/h/.claude/skills/review']),
    record('docs@acme', ['/h/.claude/skills/docs/SKILL.md'], ['/h/.claude/skills/docs', '/h/.claude/skills']),
    record('late@acme', ['/h/.claude/skills/review/SKILL.md']),
  ])

  it('names the plugin that recorded a path, or the first one with a path below a folder', () => {
    // the first path below it is SKILL.md, which the later record wrote again
    expect(own.ownerOf('/h/.claude/skills/review')).toBe('late@acme')
    expect(own.ownerOf('/h/.claude/skills/review/ref')).toBe('review@acme')
    expect(own.ownerOf('/h/.claude/skills/docs/')).toBe('docs@acme')
    expect(own.ownerOf('/h/.claude/skills/docs/SKILL.md')).toBe('docs@acme')
    // a path recorded twice belongs to the last record that wrote it
    expect(own.ownerOf('/h/.claude/skills/review/SKILL.md')).toBe('late@acme')
    // the shared folder: the first path at or below it in record order
    expect(own.ownerOf('/h/.claude/skills')).toBe('late@acme')
  })

  it('owns nothing outside what was recorded, nor a sibling sharing a prefix, nor the root', () => {
    expect(own.ownerOf('/h/.claude/skills/review-two')).toBeUndefined()
    expect(own.ownerOf('/h/.claude/skills/reviewer/SKILL.md')).toBeUndefined()
    expect(own.ownerOf('/elsewhere')).toBeUndefined()
    expect(own.ownerOf('/')).toBeUndefined()
  })
})
