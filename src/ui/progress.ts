const FRAMES = ['-', '\\', '|', '/']
const MAX_TEXT = 60

/**
 * A spinner for slow work: shown only on a terminal, never under --json, and only once the work has
 * taken longer than a few hundred milliseconds, so fast commands print nothing extra. It never asks
 * the terminal's size (a terminal with no size, as under `script` in CI, has 0 columns): one line,
 * redrawn with a carriage return and erase-to-end-of-line, its text cut to a fixed length.
 */
export const withProgress = async <T>(enabled: boolean, work: (report: (message: string) => void) => Promise<T>): Promise<T> => {
  if (!enabled || !process.stderr.isTTY) return work(() => {})
  let text = 'working'
  let frame = 0
  let shown = false
  const erase = () => {
    if (shown) process.stderr.write('\r\u001B[K')
    shown = false
  }
  const previous = eraseSpinner
  eraseSpinner = erase
  const draw = () => {
    if (prompting > 0) return
    shown = true
    const line = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text
    process.stderr.write(`\r\u001B[K${FRAMES[frame++ % FRAMES.length]} ${line}`)
  }
  let ticker: NodeJS.Timeout | undefined
  const start = setTimeout(() => {
    draw()
    ticker = setInterval(draw, 120)
    ticker.unref()
  }, 300)
  start.unref()
  try {
    return await work((message) => {
      text = message.replace(/[\u0000-\u001F\u007F]/g, ' ')
    })
  } finally {
    clearTimeout(start)
    if (ticker) clearInterval(ticker)
    erase()
    eraseSpinner = previous
  }
}

let prompting = 0
let eraseSpinner: (() => void) | undefined

/**
 * Runs `ask` (something that writes to the terminal and waits for an answer) with the spinner's
 * line erased and nothing drawn until it returns, so a prompt is never drawn over.
 */
export const whilePrompting = async <T>(ask: () => Promise<T>): Promise<T> => {
  prompting++
  eraseSpinner?.()
  try {
    return await ask()
  } finally {
    prompting--
  }
}
