/** The 1-based line and column of offset `at` in `text`, for messages that point into a file. */
export const lineAndColumn = (text: string, at: number): {line: number; column: number} => {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return {line, column: at - lineStart + 1}
}
