/**
 * A real `git daemon` on 127.0.0.1 and a free port, serving every repository under a base folder
 * as git://127.0.0.1:PORT/<path>.git.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {createServer} from 'node:net'
import {gitEnv} from './git-repos.js'
import {onProcessEnd} from './test-ca.js'

export interface GitDaemon {
  /** 'git://127.0.0.1:PORT/' */
  url: string
  port: number
  baseDir: string
  pid: number
  /** what the daemon printed (it runs with --verbose), newest last, capped */
  log(): string
  /** stops the daemon and everything it started; safe to call twice */
  stop(): Promise<void>
}

export interface GitDaemonOptions {
  /** how long to wait for the daemon to listen, per attempt; default 20 s */
  readyTimeoutMs?: number
  /** extra arguments for git daemon (e.g. '--timeout=5') */
  args?: string[]
}

const LOG_CAP = 64 * 1024
const running = new Set<ChildProcess>()

const killGroup = (child: ChildProcess, signal: NodeJS.Signals): void => {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}

let endHookInstalled = false
const installEndHook = (): void => {
  if (endHookInstalled) return
  endHookInstalled = true
  onProcessEnd(() => {
    for (const child of running) killGroup(child, 'SIGKILL')
  })
}

/** A port that was free a moment ago (bind port 0, read it, close). */
export const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen({port: 0, host: '127.0.0.1', exclusive: true}, () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port ? resolvePort(port) : reject(new Error('could not find a free port'))))
    })
  })

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null

const waitForExit = (child: ChildProcess, ms: number): Promise<boolean> =>
  new Promise((resolveWait) => {
    if (exited(child)) return resolveWait(true)
    const timer = setTimeout(() => resolveWait(false), ms)
    child.once('exit', () => {
      clearTimeout(timer)
      resolveWait(true)
    })
  })

const stopChild = async (child: ChildProcess): Promise<void> => {
  // the daemon leads its own process group: this ends the per-connection children too
  killGroup(child, 'SIGTERM')
  if (!(await waitForExit(child, 5_000))) {
    killGroup(child, 'SIGKILL')
    await waitForExit(child, 5_000)
  }
  // stragglers of the group (a connection still being served, a child not yet reaped): wait until
  // the whole process group is gone, with a cap
  const deadline = Date.now() + 5_000
  while (groupExists(child) && Date.now() < deadline) {
    killGroup(child, 'SIGKILL')
    await new Promise((r) => setTimeout(r, 50))
  }
  running.delete(child)
}

const groupExists = (child: ChildProcess): boolean => {
  if (child.pid === undefined) return false
  try {
    process.kill(-child.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const attempt = (baseDir: string, port: number, options: GitDaemonOptions): Promise<GitDaemon> =>
  new Promise((resolveDaemon, reject) => {
    const child = spawn(
      'git',
      [
        'daemon',
        '--reuseaddr',
        '--verbose',
        '--informative-errors',
        '--export-all',
        `--base-path=${baseDir}`,
        '--listen=127.0.0.1',
        `--port=${port}`,
        ...(options.args ?? []),
        baseDir,
      ],
      {env: gitEnv(), stdio: ['ignore', 'ignore', 'pipe'], detached: true},
    )
    running.add(child)
    installEndHook()
    let log = ''
    let settled = false
    const fail = (message: string): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void stopChild(child).then(() => reject(new Error(`${message}\n${log}`)))
    }
    const timer = setTimeout(
      () => fail(`git daemon did not listen on port ${port} within ${options.readyTimeoutMs ?? 20_000} ms`),
      options.readyTimeoutMs ?? 20_000,
    )
    child.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-LOG_CAP)
      if (!settled && /Ready to rumble/.test(log)) {
        settled = true
        clearTimeout(timer)
        let stopping: Promise<void> | undefined
        resolveDaemon({
          url: `git://127.0.0.1:${port}/`,
          port,
          baseDir,
          pid: child.pid!,
          log: () => log,
          stop: () => (stopping ??= stopChild(child)),
        })
      }
    })
    child.on('error', (error) => fail(`git daemon could not start: ${error.message}`))
    child.on('exit', (code, signal) => {
      running.delete(child)
      fail(`git daemon exited (${code ?? signal}) before listening on port ${port}`)
    })
  })

/**
 * Starts `git daemon --reuseaddr --base-path=<baseDir> --export-all --listen=127.0.0.1` on a free
 * port and waits until it listens. Retries on another port if the chosen one was taken meanwhile.
 */
export const startGitDaemon = async (baseDir: string, options: GitDaemonOptions = {}): Promise<GitDaemon> => {
  let lastError: unknown
  for (let i = 0; i < 5; i++) {
    try {
      return await attempt(baseDir, await freePort(), options)
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}
