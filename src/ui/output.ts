/**
 * Where the commands' text goes: stdout and stderr. Through the process's streams, except on the
 * fast path (src/ui/fast/run.ts), which writes to the descriptors itself: making process.stdout or
 * process.stderr on a pipe loads node:net and all of node:stream, ~8 ms of a run whose output is a
 * few lines. Writing straight keeps the order of the lines as the streams would on every platform the
 * fast path runs on (not Windows): there a terminal, a file and a pipe on Linux are written at once
 * by the streams too, and on a pipe (asynchronous on macOS) nothing else writes. A descriptor that
 * would block (a non-blocking pipe that is full) is handed, from that byte on, to its stream, which
 * waits for it; bin/run.js does not exit while a stream holds unwritten text.
 */
import {writeSync} from 'node:fs'

let straight = false
/** descriptors whose reader went away (EPIPE: `| head`), which, as oclif does, is not a failure */
const closed = new Set<1 | 2>()
/** descriptors handed to their stream */
const streamed = new Set<1 | 2>()

/** From now on, text is written to the descriptors directly (the fast path). */
export const writeStraight = (): void => {
  straight = true
}

const streamOf = (fd: 1 | 2): NodeJS.WriteStream => (fd === 1 ? process.stdout : process.stderr)

const handOver = (fd: 1 | 2, rest: Uint8Array): void => {
  streamed.add(fd)
  const stream = streamOf(fd)
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error?.code !== 'EPIPE') throw error
  })
  stream.write(rest)
}

const write = (fd: 1 | 2, text: string): void => {
  if (!straight || streamed.has(fd)) {
    streamOf(fd).write(text)
    return
  }
  if (closed.has(fd)) return
  const bytes = Buffer.from(text, 'utf8')
  let done = 0
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EAGAIN') return handOver(fd, bytes.subarray(done))
      if (code === 'EPIPE') {
        closed.add(fd)
        return
      }
      throw error
    }
  }
}

/** Text on stdout, as it is (add the line end). */
export const writeOut = (text: string): void => write(1, text)

/** Text on stderr, as it is (add the line end). */
export const writeErr = (text: string): void => write(2, text)
