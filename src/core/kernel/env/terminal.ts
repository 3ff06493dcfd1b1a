import {fstatSync} from 'node:fs'
import {lazyRequire} from './lazy.js'

const tty = lazyRequire<typeof import('node:tty')>('node:tty')

/**
 * Whether the descriptor is a terminal, without making the process's stream for it: making
 * process.stdout on a pipe loads node:net and all of node:stream (~8 ms of a run here), and so does
 * node:tty. A terminal is a character device, so a pipe or a file is answered by one fstat; only a
 * character device (a terminal, or /dev/null) asks node:tty. Asked once a run for each descriptor
 * (styling asks for every piece of text it colours).
 */
export const isTerminal = (fd: 0 | 1 | 2): boolean => (known[fd] ??= terminal(fd))

const known: Array<boolean | undefined> = []

const terminal = (fd: 0 | 1 | 2): boolean => {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false
  } catch {
    return false
  }
  return tty().isatty(fd)
}
