import {createHash, randomBytes} from '../crypto/node-crypto.js'
import {existsSync, mkdirSync, readFileSync, renameSync, rmSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {failpoint} from '../env/failpoint.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import {isRemovedLeftover, removeEntries, staleWithPrefix} from '../fs/write.js'
import {runGit, type GitContext} from './git-process.js'
import {normalizeGitUrl} from './parse.js'
import {redactUrl} from './redact.js'

const isMirror = (dir: string): boolean => existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'))

/**
 * A bare mirror of `url` at `mirrorDir`: cloned once, then updated by incremental fetches. Only a
 * checkout limited to some paths asks for a partial (blob-less) clone. Every command names the
 * mirror with GIT_DIR, so a cache inside some other repository (a dotfiles HOME) is never confused
 * with it.
 *
 * The clone is made beside the mirror and renamed into place once complete: a run killed mid-clone
 * (its git may even go on writing, orphaned) leaves a staging folder, never a half mirror that the
 * next run would take for a whole one. Staging folders an hour old are a dead run's and go.
 */
export const updateMirror = async (context: GitContext, url: string, mirrorDir: string, options: {partial?: boolean} = {}): Promise<'cloned' | 'fetched'> => {
  if (isMirror(mirrorDir)) {
    await runGit(
      {...context, remote: url},
      mirrorDir,
      ['fetch', '--verbose', '--prune', '--no-write-fetch-head', '--', 'origin', '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
      {
        GIT_DIR: mirrorDir,
      },
    )
    return 'fetched'
  }
  removeEntries(dirname(mirrorDir), staleWithPrefix(`${basename(mirrorDir)}.stage-`))
  removeEntries(dirname(dirname(mirrorDir)), isRemovedLeftover)
  const staging = `${mirrorDir}.stage-${randomBytes(4).toString('hex')}`
  mkdirSync(staging, {recursive: true})
  try {
    await runGit({...context, remote: url}, staging, ['clone', '--bare', ...(options.partial ? ['--filter=blob:none'] : []), '--', url, '.'])
    failpoint('git.cloned')
    rmSync(mirrorDir, {recursive: true, force: true})
    try {
      renameSync(staging, mirrorDir)
      failpoint('git.mirror-in')
    } catch (error) {
      // another run put a whole mirror there meanwhile: it is as good as ours
      if (!isMirror(mirrorDir)) throw error
    }
  } finally {
    rmSync(staging, {recursive: true, force: true})
  }
  return 'cloned'
}

const FULL_SHA = /^[0-9a-f]{40}$/

/** Whether the mirror already holds a commit (no network). */
export const hasCommit = async (context: GitContext, mirrorDir: string, sha: string): Promise<boolean> =>
  runGit(context, mirrorDir, ['cat-file', '-t', `${sha}^{commit}`], {GIT_DIR: mirrorDir}).then(
    () => true,
    () => false,
  )

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/**
 * The commit HEAD names in a git folder (a mirror, or a work tree's `.git`), read from its files
 * (HEAD names a branch; the branch is a loose ref or a line of packed-refs) without starting git;
 * undefined for anything else (a detached HEAD, a reftable, an odd name), which `git rev-parse`
 * then answers. A branch always names a commit: git writes no other.
 */
export const headCommitFromFiles = (gitDir: string): string | undefined => {
  const head = /^ref: (refs\/heads\/[A-Za-z0-9._/-]+)\n?$/.exec(readText(join(gitDir, 'HEAD')) ?? '')?.[1]
  if (!head || head.split('/').some((part) => part === '' || part === '.' || part === '..' || part.endsWith('.lock'))) return undefined
  const loose = readText(join(gitDir, head))?.trim()
  if (loose !== undefined) return FULL_SHA.test(loose) ? loose : undefined
  for (const line of (readText(join(gitDir, 'packed-refs')) ?? '').split('\n')) {
    if (line.endsWith(` ${head}`) && FULL_SHA.test(line.slice(0, 40)) && line.length === 41 + head.length) return line.slice(0, 40)
  }
  return undefined
}

/** The commit a ref (branch, tag, or full sha) names in the mirror; a missing ref is "not found". */
export const resolveCommit = async (context: GitContext, mirrorDir: string, ref: string | undefined, url: string): Promise<string> => {
  const wanted = ref ?? 'HEAD'
  if (wanted.startsWith('-')) throw new LoadoutError('bad-ref', EXIT.usage, `refusing ref "${wanted}"`)
  if (FULL_SHA.test(wanted)) {
    try {
      await runGit(context, mirrorDir, ['cat-file', '-t', `${wanted}^{commit}`], {GIT_DIR: mirrorDir})
    } catch {
      try {
        await runGit({...context, remote: url}, mirrorDir, ['fetch', '--no-write-fetch-head', '--', 'origin', wanted], {GIT_DIR: mirrorDir})
      } catch {
        throw notFound('commit-not-found', `commit ${wanted} does not exist in ${redactUrl(url)}`)
      }
    }
    return wanted
  }
  if (wanted === 'HEAD') {
    const head = headCommitFromFiles(mirrorDir)
    if (head) return head
  }
  for (const candidate of wanted === 'HEAD' ? ['HEAD'] : [`refs/tags/${wanted}`, `refs/heads/${wanted}`, wanted]) {
    try {
      // the answer's shape is checked too: only a full sha is a commit
      const commit = (await runGit(context, mirrorDir, ['rev-parse', '--verify', '--end-of-options', `${candidate}^{commit}`], {GIT_DIR: mirrorDir})).trim()
      if (FULL_SHA.test(commit)) return commit
    } catch {
      // try the next form
    }
  }
  throw notFound('ref-not-found', `ref "${wanted}" does not exist in ${redactUrl(url)}`, {
    suggestions: ['check the branch or tag name, or leave out --ref for the default branch'],
  })
}

/** Folder checkouts past which one `checkout` of them all (and its 50 ms wait) costs less than a process each. */
const MAX_FOLDER_READS = 4

/** Folders none of which is another or lies below another: each can be read into the index under its own name. */
const apart = (folders: readonly string[]): boolean => folders.every((f, i) => folders.every((g, j) => i === j || (f !== g && !g.startsWith(`${f}/`))))

/**
 * Writes the tree of `commit` into `dest` (a fresh folder), limited to `paths` when given: a
 * partial mirror fetches only the blobs those paths need.
 *
 * A checkout of paths prints nothing, which costs simple-git's 50 ms wait. The whole tree, or each
 * folder asked for, is read into the fresh index and written out instead (`read-tree -u`), with its
 * progress shown from the first file; a file among the paths, or many folders, are still checked out.
 */
export const checkoutTree = async (context: GitContext, mirrorDir: string, commit: string, dest: string, paths?: readonly string[]): Promise<void> => {
  mkdirSync(dest, {recursive: true})
  const index = join(dest, '..', `.${commit}.index`)
  let pathspec = ['.']
  const folders: string[] = []
  if (paths && paths.length > 0) {
    // git checkout fails on a pathspec that matches nothing, so keep only the paths that exist.
    pathspec = []
    for (const path of paths) {
      const inTree = path.replace(/^\.\//, '')
      try {
        const type = await runGit(context, mirrorDir, ['cat-file', '-t', `${commit}:${inTree}`], {GIT_DIR: mirrorDir})
        pathspec.push(path)
        if (type.trim() === 'tree') folders.push(inTree.replace(/\/+$/, ''))
      } catch {
        // not in this commit
      }
    }
    if (pathspec.length === 0) return
  }
  await prefetchBlobs(context, mirrorDir, commit, paths && paths.length > 0 ? pathspec : [])
  const where = {GIT_DIR: mirrorDir, GIT_WORK_TREE: dest, GIT_INDEX_FILE: index}
  const readTree = (args: string[]) => runGit(context, dest, ['read-tree', '-u', '-v', ...args], {...where, GIT_PROGRESS_DELAY: '0'})
  try {
    if (pathspec.includes('.') || folders.includes('')) await readTree(['--reset', commit])
    else if (folders.length === pathspec.length && folders.length <= MAX_FOLDER_READS && apart(folders)) {
      for (const folder of folders) await readTree([`--prefix=${folder}/`, `${commit}:${folder}`])
    } else await runGit(context, dest, ['checkout', '--force', commit, '--', ...pathspec], where)
  } finally {
    rmSync(index, {force: true})
  }
}

/** The commit a remote ref points at, asked of the remote itself (one round trip, nothing cloned). */
export const lsRemote = async (context: GitContext, cwd: string, url: string, ref?: string): Promise<string | undefined> => {
  const out = await runGit({...context, remote: url}, cwd, ['ls-remote', '--', url, ref ?? 'HEAD'])
  const lines = out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t') as [string, string])
  const exact =
    lines.find(([, name]) => name === ref || name === `refs/heads/${ref}` || name === `refs/tags/${ref}^{}`) ??
    lines.find(([, name]) => name === `refs/tags/${ref}`) ??
    lines[0]
  return exact && FULL_SHA.test(exact[0]) ? exact[0] : undefined
}

/**
 * In a partial mirror, git checkout fetches missing blobs one request per file; asking for all the
 * blobs of the checkout in a few batched fetches first makes that one round trip per 500 files.
 */
const prefetchBlobs = async (context: GitContext, mirrorDir: string, commit: string, paths: readonly string[]): Promise<void> => {
  // a partial clone says so in its own config file (read, not asked of git: one process less per checkout)
  if (!/^\s*promisor\s*=\s*true\s*$/im.test(readText(join(mirrorDir, 'config')) ?? '')) return
  const listing = await runGit(context, mirrorDir, ['ls-tree', '-r', commit, '--', ...paths], {GIT_DIR: mirrorDir})
  const blobs = [...listing.matchAll(/^\d+ blob ([0-9a-f]{40})\t/gm)].map((m) => m[1]!)
  for (let i = 0; i < blobs.length; i += 500) {
    await runGit(
      context,
      mirrorDir,
      [
        '-c',
        'fetch.negotiationAlgorithm=noop',
        'fetch',
        '--progress',
        '--no-tags',
        '--no-write-fetch-head',
        '--filter=blob:none',
        '--',
        'origin',
        ...blobs.slice(i, i + 500),
      ],
      // a fetch of objects that moves no ref prints nothing but its progress
      {GIT_DIR: mirrorDir, GIT_PROGRESS_DELAY: '0'},
    ).catch(() => {
      // the checkout below still fetches what is missing, one file at a time
    })
  }
}

/** The cache folder of a git URL, holding its mirror and the trees checked out of it. */
export const gitCacheDir = (cacheDir: string, url: string): string =>
  join(
    cacheDir,
    'git',
    createHash('sha256')
      .update(`git:${normalizeGitUrl(url)}`)
      .digest('hex')
      .slice(0, 24),
  )

const staleStaging = staleWithPrefix('.stage-')

/**
 * The tree of `commit` (only `paths`, when given) in the cache: checked out once into a staging
 * folder and renamed into place, then reused. Identical trees are stored once.
 */
export const cachedTree = async (context: GitContext, base: string, commit: string, paths?: readonly string[]): Promise<string> => {
  const limited = paths && paths.length > 0 ? paths : undefined
  const tree = join(base, 'trees', limited ? `${commit}-${createHash('sha256').update(limited.join('\0')).digest('hex').slice(0, 8)}` : commit)
  if (existsSync(tree)) return tree
  removeEntries(join(base, 'trees'), (name, path) => isRemovedLeftover(name) || staleStaging(name, path))
  const staging = join(base, 'trees', `.stage-${randomBytes(4).toString('hex')}`)
  try {
    await checkoutTree(context, join(base, 'mirror'), commit, staging, limited)
    failpoint('git.checked-out')
    renameSync(staging, tree)
  } catch (error) {
    rmSync(staging, {recursive: true, force: true})
    throw error
  }
  return tree
}
