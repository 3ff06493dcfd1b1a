import {isTerminal} from '../core/kernel/env/terminal.js'

/** Where styled text goes; styling is for a terminal only. */
export type Stream = 'stdout' | 'stderr'

/** ANSI styling, off when NO_COLOR is set, TERM is dumb, or the stream is not a terminal. */
const enabled = (stream: Stream = 'stdout'): boolean =>
  process.env.NO_COLOR === undefined && process.env.TERM !== 'dumb' && isTerminal(stream === 'stdout' ? 1 : 2)

const wrap = (open: number, close: number) => (text: string, stream?: Stream) => (enabled(stream) ? `\u001B[${open}m${text}\u001B[${close}m` : text)

export const bold = wrap(1, 22)
export const dim = wrap(2, 22)
export const red = wrap(31, 39)
export const green = wrap(32, 39)
export const yellow = wrap(33, 39)
