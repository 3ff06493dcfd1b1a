import type {Catalog} from '../../model/marketplace.js'

export type RenameOutcome =
  {kind: 'listed'; name: string} | {kind: 'renamed'; from: string; to: string} | {kind: 'removed'; name: string} | {kind: 'unlisted'; name: string}

/**
 * What a catalog says became of a plugin name: still listed, renamed (following a chain of renames
 * to a listed name), removed (a rename to null), or not there. The reader already dropped cycles,
 * and the walk is bounded anyway.
 */
export const followRename = (catalog: Pick<Catalog, 'plugins' | 'renames' | 'removed'>, name: string): RenameOutcome => {
  const listed = (n: string) => catalog.plugins.some((p) => p.name === n)
  if (listed(name)) return {kind: 'listed', name}
  let current = name
  for (let step = 0; step <= Object.keys(catalog.renames).length; step++) {
    if (catalog.removed?.includes(current)) return {kind: 'removed', name}
    const next = catalog.renames[current]
    if (next === undefined) break
    if (listed(next)) return {kind: 'renamed', from: name, to: next}
    current = next
  }
  return {kind: 'unlisted', name}
}
