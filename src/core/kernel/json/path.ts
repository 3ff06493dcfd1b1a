/**
 * JSON paths as problems name them (`plugins[3].source`, `mcpServers["my server"].command`): one
 * spelling for every reader, validator and fixer, and the conversion from the JSON pointers ajv
 * reports (`/plugins/3/source`).
 */

/** A key written bare after a dot; any other key is quoted in brackets. */
const BARE_KEY = /^[A-Za-z0-9_$-]+$/

/** `plugins` + 3 -> `plugins[3]`, `source` + `path` -> `source.path`, odd keys quoted. */
export const jsonPathJoin = (base: string, key: string | number): string => {
  if (typeof key === 'number') return `${base}[${key}]`
  if (BARE_KEY.test(key)) return base === '' ? key : `${base}.${key}`
  return `${base}[${JSON.stringify(key)}]`
}

const LAST_SEGMENT = /(?:\.[A-Za-z0-9_$-]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\]|^[A-Za-z0-9_$-]+)$/

/** The path one level up (`plugins[3].source` -> `plugins[3]`), or undefined at the top. */
export const parentJsonPath = (path: string): string | undefined => {
  if (path === '') return undefined
  const match = LAST_SEGMENT.exec(path)
  return match ? path.slice(0, match.index) : ''
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Walks a JSON pointer through `data`: the path it spells (indexes told from keys by the data) and the value there. */
const walkPointer = (pointer: string, data: unknown): {path: string; value: unknown} => {
  let path = ''
  let value: unknown = data
  if (pointer === '') return {path, value}
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (Array.isArray(value)) {
      path = jsonPathJoin(path, Number(segment))
      value = value[Number(segment)]
    } else {
      path = jsonPathJoin(path, segment)
      value = isObject(value) ? value[segment] : undefined
    }
  }
  return {path, value}
}

/** An ajv instancePath (`/interface/defaultPrompt/0`) as a JSON path (`interface.defaultPrompt[0]`). */
export const pointerToJsonPath = (pointer: string, data: unknown): string => walkPointer(pointer, data).path

/** The value a JSON pointer names in `data` (undefined when it names nothing). */
export const valueAtPointer = (pointer: string, data: unknown): unknown => walkPointer(pointer, data).value
