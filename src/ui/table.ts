const ANSI = /\u001B\[[0-9;]*m/g
const width = (text: string) => text.replace(ANSI, '').length

/** A plain text table: a header row and columns padded to their widest cell. */
export const renderTable = (header: readonly string[], rows: ReadonlyArray<readonly string[]>): string => {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))))
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - width(cell))))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)].join('\n')
}
