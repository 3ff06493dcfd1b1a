const distance = (a: string, b: string): number => {
  let previous = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** The known names closest to `wanted` (substring matches first, then small edit distances). */
export const closestNames = (wanted: string, known: Iterable<string>, max = 3): string[] => {
  const scored = [...new Set(known)]
    .map((name) => ({name, score: name.includes(wanted) || wanted.includes(name) ? 0 : distance(wanted, name)}))
    .filter((s) => s.score <= Math.max(2, Math.floor(wanted.length / 3)))
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
  return scored.slice(0, max).map((s) => s.name)
}
