/** Structural equality of JSON values; object key order does not matter, array order does. */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  if (keysA.length !== keysB.length) return false
  const recordB = b as Record<string, unknown>
  return keysA.every((key) => Object.hasOwn(recordB, key) && jsonEqual((a as Record<string, unknown>)[key], recordB[key]))
}
