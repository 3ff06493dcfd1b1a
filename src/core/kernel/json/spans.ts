/** Where an edited JSON document's values and members sit: what `scanMembers` records. */

/** An object on the tracked path: where its braces are and where each member is. */
export interface ObjectSpan {
  open: number
  close: number
  members: MemberSpan[]
}

export interface MemberSpan {
  key: string
  keyStart: number
  keyEnd: number
  valueStart: number
  valueEnd: number
  /** The comma after the value, or -1 (the last member, without a trailing comma). */
  comma: number
  /** The value's spans, when it is an object on the tracked path. */
  object: ObjectSpan | undefined
  /** What the value starts with, to say what it is when it is not an object. */
  kind: string
}

export interface Scan {
  /** Where the top-level value starts and ends. */
  valueStart: number
  valueEnd: number
  /** The top-level object, when the top level is one. */
  root: ObjectSpan | undefined
  /** What the top-level value is: 'an object', 'an array', 'a string', ... */
  rootKind: string
  /** Comments and trailing commas, as pairs of [start, end) offsets, in no particular order. */
  junk: number[]
}
