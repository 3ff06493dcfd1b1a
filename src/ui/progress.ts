/**
 * A spinner for slow work: shown only on a terminal, never under --json, and only once the work has
 * taken longer than a few hundred milliseconds, so fast commands print nothing extra.
 */
export const withProgress = async <T>(enabled: boolean, work: (report: (message: string) => void) => Promise<T>): Promise<T> => {
  if (!enabled || !process.stderr.isTTY) return work(() => {})
  let text = 'working'
  let spinner: {text: string; stop(): void} | undefined
  const timer = setTimeout(async () => {
    const {default: ora} = await import('ora')
    spinner = ora({text, stream: process.stderr}).start()
  }, 300)
  try {
    return await work((message) => {
      text = message
      if (spinner) spinner.text = message
    })
  } finally {
    clearTimeout(timer)
    spinner?.stop()
  }
}
