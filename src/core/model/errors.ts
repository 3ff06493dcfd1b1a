/**
 * Every failure a user can see is a LoadoutError: a stable code, a documented exit status and
 * suggestions for what to do next. The table below is the README's exit-code table.
 */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notFound: 3,
  validation: 4,
  conflict: 5,
  network: 6,
  integrity: 7,
  needsConsent: 8,
  locked: 9,
  io: 10,
  policy: 11,
  interrupted: 130,
  terminated: 143,
} as const

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT]

export interface LoadoutErrorOptions {
  suggestions?: string[]
  details?: unknown
  cause?: unknown
}

export class LoadoutError extends Error {
  readonly code: string
  readonly exitStatus: ExitStatus
  readonly suggestions: string[]
  readonly details?: unknown

  constructor(code: string, exitStatus: ExitStatus, message: string, options: LoadoutErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = 'LoadoutError'
    this.code = code
    this.exitStatus = exitStatus
    this.suggestions = options.suggestions ?? []
    this.details = options.details
  }

  toJSON(): {code: string; exitStatus: number; message: string; suggestions: string[]; details?: unknown} {
    return {
      code: this.code,
      exitStatus: this.exitStatus,
      message: this.message,
      suggestions: this.suggestions,
      ...(this.details === undefined ? {} : {details: this.details}),
    }
  }
}

export const usageError = (code: string, message: string, options?: LoadoutErrorOptions) => new LoadoutError(code, EXIT.usage, message, options)
export const notFound = (code: string, message: string, options?: LoadoutErrorOptions) => new LoadoutError(code, EXIT.notFound, message, options)
export const validationFailed = (code: string, message: string, options?: LoadoutErrorOptions) => new LoadoutError(code, EXIT.validation, message, options)
export const conflict = (code: string, message: string, options?: LoadoutErrorOptions) => new LoadoutError(code, EXIT.conflict, message, options)
export const needsConsent = (code: string, message: string, options?: LoadoutErrorOptions) => new LoadoutError(code, EXIT.needsConsent, message, options)

export const isLoadoutError = (value: unknown): value is LoadoutError => value instanceof LoadoutError

const IO_CODES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
}

/**
 * A file the user may not change, or a full disk, is theirs to fix, not a bug in loadout: EACCES,
 * EPERM, EROFS, ENOSPC and EDQUOT become an `io` error (exit 10) naming the path. `path` names it when
 * Node's error does not (a write() that ran out of space carries no path). Anything else is returned.
 */
export const explainIoError = (error: unknown, path?: string): unknown => {
  const code = errnoCode(error)
  if (code === undefined || !(code in IO_CODES)) return error
  const named = path ?? (typeof error === 'object' && error !== null && 'path' in error && typeof error.path === 'string' ? error.path : undefined)
  const full = code === 'ENOSPC' || code === 'EDQUOT'
  return new LoadoutError(full ? 'disk-full' : 'permission-denied', EXIT.io, `cannot change ${named ?? 'a file'}: ${IO_CODES[code]}`, {
    suggestions: full
      ? ['free some space on that disk, then run the command again']
      : ['check the owner and permissions of that path, or choose another --scope or --agent'],
    cause: error,
  })
}

/** Node's errno code of a thrown value, if it has one. */
export const errnoCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

/** What a thrown value stands for, to report beside other items: a LoadoutError's own, else an unexpected error. */
export const toExitStatus = (error: unknown): {code: string; exitStatus: ExitStatus; suggestions?: string[]; details?: unknown} =>
  isLoadoutError(error)
    ? {
        code: error.code,
        exitStatus: error.exitStatus,
        ...(error.suggestions.length > 0 ? {suggestions: error.suggestions} : {}),
        ...(error.details === undefined ? {} : {details: error.details}),
      }
    : {code: 'unexpected', exitStatus: EXIT.unexpected}

/**
 * When several items of one run fail (each still tried), the run exits with the highest of their
 * statuses: the README's "worst one wins".
 */
export const worstStatus = (statuses: readonly ExitStatus[]): ExitStatus => statuses.reduce<ExitStatus>((worst, s) => (s > worst ? s : worst), EXIT.ok)
