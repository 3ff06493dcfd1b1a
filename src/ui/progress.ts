import type {Ora} from 'ora'
import {isTerminal} from '../core/kernel/env/terminal.js'

const MAX_TEXT = 60
/** What a terminal that reports no width (0 or none, as under `script` in CI) is drawn as. */
const FALLBACK_COLUMNS = 80

/**
 * The stream ora draws on: standard error, with a width it can divide by. ora counts the lines a
 * frame takes as its width over the terminal's columns, so 0 columns would be an endless count of
 * lines to erase (the hang this replaces); the spinner's text is cut short enough to fit one line.
 */
const drawingStream = (stderr: NodeJS.WriteStream): NodeJS.WritableStream =>
  ({
    isTTY: true,
    get columns() {
      return stderr.columns || FALLBACK_COLUMNS
    },
    get rows() {
      return stderr.rows || 0
    },
    write: (chunk: string, ...rest: never[]) => stderr.write(chunk, ...rest),
    cursorTo: (x: number, y?: number) => stderr.cursorTo(x, y),
    moveCursor: (dx: number, dy: number) => stderr.moveCursor(dx, dy),
    clearLine: (dir: -1 | 0 | 1) => stderr.clearLine(dir),
    once: (event: string, listener: () => void) => stderr.once(event, listener),
    removeListener: (event: string, listener: () => void) => stderr.removeListener(event, listener),
  }) as unknown as NodeJS.WritableStream

/** Colour follows the rest of the output: off with NO_COLOR or a dumb terminal (src/ui/style.ts). */
const spinnerColor = (): 'cyan' | false => (process.env.NO_COLOR === undefined && process.env.TERM !== 'dumb' ? 'cyan' : false)

const makeSpinner = async (): Promise<Ora> => {
  const {default: ora} = await import('ora')
  return ora({
    stream: drawingStream(process.stderr),
    // whether to draw is decided here (a terminal, no --json), not by ora's own guess (which says no under CI)
    isEnabled: true,
    // a prompt may follow on the same terminal: stdin stays as it is, and so does the cursor
    discardStdin: false,
    hideCursor: false,
    color: spinnerColor(),
  })
}

const oneLine = (message: string): string => {
  const text = message.replace(/[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, ' ')
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text
}

/** The spinner showing now, which a prompt hides while it waits. */
let active: {hide(): void; show(): void} | undefined
let prompting = 0

/**
 * A spinner (ora) for slow work: shown only on a terminal, never under --json, and only once the
 * work has taken longer than a few hundred milliseconds, so fast commands print nothing extra and
 * never load ora.
 */
export const withProgress = async <T>(enabled: boolean, work: (report: (message: string) => void) => Promise<T>): Promise<T> => {
  if (!enabled || !isTerminal(2)) return work(() => {})
  let text = 'working'
  let spinner: Ora | undefined
  let finished = false
  const show = () => {
    if (spinner && !finished && prompting === 0) spinner.start()
  }
  const previous = active
  const hide = () => {
    if (spinner?.isSpinning) spinner.stop()
  }
  active = {hide, show}
  const start = setTimeout(() => {
    makeSpinner().then(
      (made) => {
        spinner = made
        spinner.text = text
        show()
      },
      () => {
        // no spinner: the work goes on without one
      },
    )
  }, 300)
  start.unref()
  try {
    return await work((message) => {
      text = oneLine(message)
      if (spinner) spinner.text = text
    })
  } finally {
    finished = true
    clearTimeout(start)
    hide()
    active = previous
  }
}

/**
 * Runs `ask` (something that writes to the terminal and waits for an answer) with the spinner
 * erased and nothing drawn until it returns, so a prompt is never drawn over.
 */
export const whilePrompting = async <T>(ask: () => Promise<T>): Promise<T> => {
  prompting++
  active?.hide()
  try {
    return await ask()
  } finally {
    prompting--
    if (prompting === 0) active?.show()
  }
}
