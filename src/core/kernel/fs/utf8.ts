/**
 * Text files agents read (SKILL.md, subagent files, manifests) must be valid UTF-8 without NUL: an
 * agent that decodes leniently would see other text than a reviewer, and a NUL cuts a C string
 * short. The fault names the byte offset, so the author can find it.
 */

export interface TextFault {
  code: 'file-not-utf8' | 'file-has-nul'
  offset: number
  /** follows the file's name: `SKILL.md ${why}` */
  why: string
}

const STRICT = new TextDecoder('utf-8', {fatal: true})

/** Length of the UTF-8 sequence starting at `i`, or 0 when it is invalid (RFC 3629 ranges). */
const sequenceAt = (bytes: Uint8Array, i: number): number => {
  const b = bytes[i]!
  if (b < 0x80) return 1
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < bytes.length && bytes[j]! >= lo && bytes[j]! <= hi
  if (b >= 0xc2 && b <= 0xdf) return cont(i + 1) ? 2 : 0
  if (b === 0xe0) return cont(i + 1, 0xa0) && cont(i + 2) ? 3 : 0
  if (b === 0xed) return cont(i + 1, 0x80, 0x9f) && cont(i + 2) ? 3 : 0
  if (b >= 0xe1 && b <= 0xef) return cont(i + 1) && cont(i + 2) ? 3 : 0
  if (b === 0xf0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0
  if (b >= 0xf1 && b <= 0xf3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0
  if (b === 0xf4) return cont(i + 1, 0x80, 0x8f) && cont(i + 2) && cont(i + 3) ? 4 : 0
  return 0
}

const firstInvalid = (bytes: Uint8Array): number => {
  for (let i = 0; i < bytes.length;) {
    const length = sequenceAt(bytes, i)
    if (length === 0) return i
    i += length
  }
  return -1
}

/** Why `bytes` is not text an agent may read, or undefined when it is. */
export const textFault = (bytes: Uint8Array): TextFault | undefined => {
  try {
    STRICT.decode(bytes)
  } catch {
    const offset = firstInvalid(bytes)
    return {
      code: 'file-not-utf8',
      offset,
      why: `is not valid UTF-8: byte ${offset} (0x${bytes[offset]!.toString(16).padStart(2, '0')}) starts no valid character`,
    }
  }
  const nul = bytes.indexOf(0)
  return nul === -1 ? undefined : {code: 'file-has-nul', offset: nul, why: `holds a NUL byte at byte ${nul}`}
}

// the same check, keeping a byte-order mark as Buffer#toString does, so one pass decodes and checks
const STRICT_KEEP_BOM = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})

/** Decodes text an agent reads; throws the fault (as `{fault}`) for the caller to phrase. */
export const decodeAgentText = (bytes: Uint8Array): {text: string} | {fault: TextFault} => {
  let text: string
  try {
    text = STRICT_KEEP_BOM.decode(bytes)
  } catch {
    return {fault: textFault(bytes)!}
  }
  return text.includes('\0') ? {fault: textFault(bytes)!} : {text}
}
