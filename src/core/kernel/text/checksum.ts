/**
 * FNV-1a (32-bit) of a string's UTF-16 code units, as 8 hex digits: to notice a damaged cache file or
 * to name one, never to resist anyone (whoever can write loadout's cache can write what it describes).
 * No node:crypto: loading it costs more than the reads a cache saves.
 */
export const checksum = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(16).padStart(8, '0')
}
