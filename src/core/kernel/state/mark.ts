import type {InstallRecord} from './records.js'

/**
 * Why a plugin is being installed: asked for by name (`explicit`), or pulled in by another plugin
 * (`dependency`). Absent (an update, a reinstall from the lock) keeps what the records say.
 */
/** `range`: the semver range asked for, which `update` stays inside */
export type DependencyMark = {kind: 'explicit'; range?: string} | {kind: 'dependency'; of: readonly string[]; range?: string}

/** The dependency fields of the records an install writes, from the records it replaces and why it runs. */
export const dependencyFields = (
  existing: readonly InstallRecord[],
  mark: DependencyMark | undefined,
): Pick<InstallRecord, 'dependencyOf' | 'autoInstalled' | 'range'> => {
  const previous = existing[0]
  const of = new Set(previous?.dependencyOf ?? [])
  if (mark?.kind === 'dependency') for (const id of mark.of) of.add(id)
  // Asking for a plugin by name makes it wanted on its own; being needed never demotes that.
  const auto = mark === undefined ? previous?.autoInstalled === true : mark.kind === 'dependency' && (previous ? previous.autoInstalled === true : true)
  const range = mark === undefined ? previous?.range : mark.range
  return {...(of.size > 0 ? {dependencyOf: [...of].sort()} : {}), ...(auto ? {autoInstalled: true} : {}), ...(range ? {range} : {})}
}

/**
 * Sets the dependency fields of records an install left as they were (the same content was already
 * installed): being needed by one more plugin, or being asked for by name, is still recorded.
 */
export const markRecords = (records: readonly InstallRecord[], id: string, scope: string, mark: DependencyMark): InstallRecord[] => {
  const mine = records.filter((r) => r.plugin === id && r.scope === scope)
  if (mine.length === 0) return [...records]
  const fields = dependencyFields(mine, mark)
  return records.map((r) => {
    if (!mine.includes(r)) return r
    const {dependencyOf: _d, autoInstalled: _a, range: _r, ...rest} = r
    return {...rest, ...fields}
  })
}
