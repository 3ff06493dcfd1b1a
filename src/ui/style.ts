/** ANSI styling, off when NO_COLOR is set, TERM is dumb, or the stream is not a terminal. */
const enabled = (stream: NodeJS.WriteStream = process.stdout): boolean =>
  Boolean(stream.isTTY) && process.env.NO_COLOR === undefined && process.env.TERM !== 'dumb'

const wrap = (open: number, close: number) => (text: string, stream?: NodeJS.WriteStream) => (enabled(stream) ? `\u001B[${open}m${text}\u001B[${close}m` : text)

export const bold = wrap(1, 22)
export const dim = wrap(2, 22)
export const red = wrap(31, 39)
export const green = wrap(32, 39)
export const yellow = wrap(33, 39)
