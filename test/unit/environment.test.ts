import {mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {environmentFromProcess, environmentWith, expandHome, loadoutPaths, type Environment} from '../../src/core/kernel/env/environment.js'
import {withRequestPolicy} from '../../src/core/kernel/policy/requests.js'
import {EXIT, isLoadoutError} from '../../src/core/model/errors.js'
import {findGitRoot, resolveScope} from '../../src/core/kernel/env/scope.js'

let sandbox: string
let home: string
let cwd: string

beforeAll(() => {
  sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-env-')))
  home = join(sandbox, 'home')
  cwd = join(sandbox, 'work')
  mkdirSync(home)
  mkdirSync(cwd)
})

afterAll(() => rmSync(sandbox, {recursive: true, force: true}))

const envWith = (vars: Record<string, string> = {}, at = cwd): Environment => ({vars, home, cwd: at, platform: 'linux', interactive: false})

describe('loadoutPaths', () => {
  it('defaults to ~/.config/loadout, ~/.cache/loadout and ~/.local/share/loadout under HOME', () => {
    expect(loadoutPaths(envWith())).toEqual({
      config: join(home, '.config', 'loadout'),
      cache: join(home, '.cache', 'loadout'),
      data: join(home, '.local', 'share', 'loadout'),
    })
  })

  it('takes config from XDG_CONFIG_HOME and cache from XDG_CACHE_HOME', () => {
    const paths = loadoutPaths(envWith({XDG_CONFIG_HOME: '/x/config', XDG_CACHE_HOME: '/x/cache', XDG_DATA_HOME: '/x/data'}))
    expect(paths).toEqual({config: '/x/config/loadout', cache: '/x/cache/loadout', data: '/x/data/loadout'})
  })

  it('lets LOADOUT_HOME win over XDG_CONFIG_HOME, and keeps data inside it', () => {
    const paths = loadoutPaths(envWith({LOADOUT_HOME: '/l/home', XDG_CONFIG_HOME: '/x/config', XDG_DATA_HOME: '/x/data'}))
    expect(paths.config).toBe('/l/home')
    expect(paths.data).toBe('/l/home/data')
    // LOADOUT_HOME does not move the cache
    expect(paths.cache).toBe(join(home, '.cache', 'loadout'))
  })

  it('lets LOADOUT_CACHE_DIR win over XDG_CACHE_HOME', () => {
    const paths = loadoutPaths(envWith({LOADOUT_CACHE_DIR: '/l/cache', XDG_CACHE_HOME: '/x/cache'}))
    expect(paths.cache).toBe('/l/cache')
    expect(paths.config).toBe(join(home, '.config', 'loadout'))
  })

  it('lets LOADOUT_DATA_DIR win over everything for data', () => {
    expect(loadoutPaths(envWith({LOADOUT_DATA_DIR: '/l/data', LOADOUT_HOME: '/l/home'})).data).toBe('/l/data')
  })

  it('ignores empty and blank variables', () => {
    const paths = loadoutPaths(envWith({LOADOUT_HOME: '', XDG_CONFIG_HOME: '  ', LOADOUT_CACHE_DIR: '', XDG_CACHE_HOME: ' '}))
    expect(paths).toEqual(loadoutPaths(envWith()))
  })

  it('expands ~ against the environment home and makes relative paths absolute against its cwd', () => {
    expect(loadoutPaths(envWith({LOADOUT_HOME: '~/lo'})).config).toBe(join(home, 'lo'))
    expect(loadoutPaths(envWith({LOADOUT_CACHE_DIR: 'rel/cache'})).cache).toBe(join(cwd, 'rel', 'cache'))
  })

  it('never looks at the real process environment', () => {
    const before = process.env.LOADOUT_HOME
    process.env.LOADOUT_HOME = '/from/the/process'
    try {
      expect(loadoutPaths(envWith()).config).toBe(join(home, '.config', 'loadout'))
    } finally {
      if (before === undefined) delete process.env.LOADOUT_HOME
      else process.env.LOADOUT_HOME = before
    }
  })
})

describe('expandHome', () => {
  it('expands a leading ~ only', () => {
    const env = envWith()
    expect(expandHome('~', env)).toBe(home)
    expect(expandHome('~/a/b', env)).toBe(join(home, 'a', 'b'))
    expect(expandHome('~user/a', env)).toBe('~user/a')
    expect(expandHome('/abs/~/x', env)).toBe('/abs/~/x')
    expect(expandHome('rel', env)).toBe('rel')
  })
})

describe('environmentFromProcess', () => {
  it('reads HOME, the working directory and the platform from the process', () => {
    const env = environmentFromProcess()
    expect(env.cwd).toBe(process.cwd())
    expect(env.platform).toBe(process.platform)
    expect(env.vars).toBe(process.env)
    expect(typeof env.interactive).toBe('boolean')
    if (process.env.HOME) expect(env.home).toBe(process.env.HOME)
  })

  it('derives an environment without asking whether it is interactive (that makes process.stdin), as the request policy does', () => {
    let asked = 0
    const base: Environment = {
      vars: {},
      home,
      cwd,
      platform: 'linux',
      get interactive() {
        asked++
        return true
      },
    }
    const moved = environmentWith(base, {cwd: home})
    const judged = withRequestPolicy(moved)
    expect(asked).toBe(0)
    expect([moved.cwd, judged.cwd, base.cwd]).toEqual([home, home, cwd])
    expect(typeof judged.judgeUrl).toBe('function')
    expect(judged.interactive).toBe(true)
    expect(asked).toBe(1)
  })
})

describe('findGitRoot', () => {
  let repo: string
  beforeAll(() => {
    repo = join(sandbox, 'repo')
    mkdirSync(join(repo, '.git'), {recursive: true})
    mkdirSync(join(repo, 'packages', 'app', 'src'), {recursive: true})
  })

  it('finds the folder holding .git from itself and from below', () => {
    expect(findGitRoot(repo)).toBe(repo)
    expect(findGitRoot(join(repo, 'packages', 'app', 'src'))).toBe(repo)
  })

  it('finds the nearest one when repositories nest', () => {
    const inner = join(repo, 'packages', 'app')
    mkdirSync(join(inner, '.git'))
    try {
      expect(findGitRoot(join(inner, 'src'))).toBe(inner)
    } finally {
      rmSync(join(inner, '.git'), {recursive: true})
    }
    expect(findGitRoot(join(inner, 'src'))).toBe(repo)
  })

  it('accepts a .git file, as a worktree or submodule has', () => {
    const worktree = join(sandbox, 'worktree')
    mkdirSync(join(worktree, 'sub'), {recursive: true})
    writeFileSync(join(worktree, '.git'), 'gitdir: /elsewhere/.git/worktrees/w\n')
    expect(findGitRoot(join(worktree, 'sub'))).toBe(worktree)
  })

  it('returns undefined outside any work tree, walking up to the root', () => {
    expect(findGitRoot(cwd)).toBeUndefined()
    expect(findGitRoot('/')).toBeUndefined()
  })
})

describe('resolveScope', () => {
  let repo: string
  beforeAll(() => {
    repo = join(sandbox, 'scoped-repo')
    mkdirSync(join(repo, '.git'), {recursive: true})
    mkdirSync(join(repo, 'deep', 'er'), {recursive: true})
  })

  it('defaults to project inside a git work tree, rooted at its top', () => {
    expect(resolveScope(undefined, envWith({}, join(repo, 'deep', 'er')))).toEqual({scope: 'project', projectRoot: repo})
  })

  it('defaults to user outside a git work tree, with the working directory as project root', () => {
    expect(resolveScope(undefined, envWith({}, cwd))).toEqual({scope: 'user', projectRoot: cwd})
  })

  it('takes an explicit --scope over the default, either way', () => {
    expect(resolveScope('user', envWith({}, join(repo, 'deep')))).toEqual({scope: 'user', projectRoot: repo})
    expect(resolveScope('project', envWith({}, cwd))).toEqual({scope: 'project', projectRoot: cwd})
  })

  it.each(['global', 'USER', '', 'project '])('refuses --scope %j as a usage error', (value) => {
    try {
      resolveScope(value, envWith())
      expect.unreachable()
    } catch (error) {
      expect(isLoadoutError(error)).toBe(true)
      if (!isLoadoutError(error)) return
      expect(error.exitStatus).toBe(EXIT.usage)
      expect(error.code).toBe('bad-scope')
      expect(error.message).toContain(JSON.stringify(value))
      expect(error.suggestions.join(' ')).toMatch(/--scope user.*--scope project/)
    }
  })
})
