/**
 * sstkit's one error model. Every error sstkit raises on purpose is an
 * SstkitError whose `code` says what kind of failure it is, so that callers
 * (the CLI's exit codes, the CI commands, sst_dump's statuses) decide by kind,
 * never by class name or message. It sits below every other folder (it imports
 * nothing), so format/, io/ and codec/ raise it too.
 *
 * Errors cross worker threads as plain data (`errorToTransfer`) and are rebuilt
 * as the same class, code, offset and message on the other side
 * (`errorFromTransfer`).
 */

/**
 * - corruption: the bytes do not follow the format (damage, truncation, a writer's bug)
 * - not-supported: a valid file of a kind or feature sstkit does not read
 * - usage: the caller's input is wrong (a flag, a configuration, a path)
 * - io: the operating system failed a read or a write
 * - internal: a failure of sstkit itself or of a library it calls
 */
export type ErrorCode = 'corruption' | 'not-supported' | 'usage' | 'io' | 'internal'

export interface SstkitErrorOptions {
  /** Absolute file offset of the structure concerned. */
  offset?: number
  /** The file concerned. */
  file?: string
  cause?: unknown
}

export class SstkitError extends Error {
  override name = 'SstkitError'
  readonly offset?: number
  readonly file?: string

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: SstkitErrorOptions = {},
  ) {
    super(
      options.offset === undefined ? message : `${message} (at offset ${options.offset})`,
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    if (options.offset !== undefined) this.offset = options.offset
    if (options.file !== undefined) this.file = options.file
  }
}

/** The bytes do not follow the format: corruption, truncation or a bug in the writer. */
export class CorruptionError extends SstkitError {
  override name = 'CorruptionError'
  constructor(message: string, offset?: number, options: Omit<SstkitErrorOptions, 'offset'> = {}) {
    super('corruption', message, { ...options, offset })
  }
}

/** A valid file of a kind or feature sstkit does not read (plain table, Xpress, ...). */
export class NotSupportedError extends SstkitError {
  override name = 'NotSupportedError'
  constructor(message: string, offset?: number, options: Omit<SstkitErrorOptions, 'offset'> = {}) {
    super('not-supported', message, { ...options, offset })
  }
}

/** The caller's input is wrong: a flag value, a configuration, a missing path. */
export class UsageError extends SstkitError {
  override name = 'UsageError'
  constructor(message: string, options: SstkitErrorOptions = {}) {
    super('usage', message, options)
  }
}

/**
 * A message as one printable line: control characters (a newline or a raw byte from a damaged
 * file that reached a message) become \\xNN escapes, as scan's text escapes bytes.
 */
export function printableLine(message: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return message.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/** An operating-system error from node:fs (it carries `syscall`, and `code` such as ENOENT). */
export function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return (
    e instanceof Error &&
    !(e instanceof SstkitError) &&
    typeof (e as NodeJS.ErrnoException).code === 'string' &&
    (e as NodeJS.ErrnoException).syscall !== undefined
  )
}

/** The kind of any thrown value: an SstkitError's code, `io` for system errors, else `internal`. */
export function errorCode(e: unknown): ErrorCode {
  if (e instanceof SstkitError) return e.code
  if (isSystemError(e)) return 'io'
  return 'internal'
}

/** A problem with a file rather than with the call: it is corrupt, unsupported, or cannot be read or written. */
export function isFileError(e: unknown): e is Error {
  const code = errorCode(e)
  return code === 'corruption' || code === 'not-supported' || code === 'io'
}

/** An error as plain, structured-cloneable data, for a message between threads. */
export interface TransferredError {
  /** The class name (`CorruptionError`, `MatrixError`, ...), or a built-in's (`Error`, `TypeError`). */
  name: string
  code: ErrorCode
  /** The full message, offset suffix included. */
  message: string
  offset?: number
  file?: string
  /**
   * The error's other own data: a class's fields (a checksum mismatch's handle
   * and checksums), a system error's `code` (ENOENT), `syscall` and `path`.
   */
  fields?: Record<string, unknown>
  stack?: string
}

type ErrorClass = abstract new (...args: never[]) => Error

/** SstkitError subclasses by name: the classes errorFromTransfer can rebuild. */
const classes = new Map<string, ErrorClass>()

/**
 * Let errors of `cls` cross threads as themselves. Call once beside the class
 * definition; a class not registered arrives as an SstkitError of the same
 * name, code and offset.
 */
export function transferable<C extends ErrorClass>(cls: C): C {
  classes.set(cls.name, cls)
  return cls
}

transferable(SstkitError)
transferable(CorruptionError)
transferable(NotSupportedError)
transferable(UsageError)

/** Sent on their own (or not at all: a cause may hold anything). */
const OWN = new Set(['name', 'message', 'stack', 'cause', 'code', 'offset', 'file'])

export function errorToTransfer(e: unknown): TransferredError {
  if (!(e instanceof Error)) return { name: 'Error', code: 'internal', message: String(e) }
  const t: TransferredError = { name: e.name, code: errorCode(e), message: e.message }
  if (e.stack !== undefined) t.stack = e.stack
  const fields: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(e)) {
    if (OWN.has(k) || !isPlainData(v)) continue
    fields[k] = v
  }
  if (e instanceof SstkitError) {
    if (e.offset !== undefined) t.offset = e.offset
    if (e.file !== undefined) t.file = e.file
  } else if (typeof (e as NodeJS.ErrnoException).code === 'string') {
    // A system error's own `code` (ENOENT); `t.code` is its kind.
    fields.code = (e as NodeJS.ErrnoException).code
  }
  if (Object.keys(fields).length > 0) t.fields = fields
  return t
}

/**
 * The error `errorToTransfer` described, as its own class when registered. It is
 * rebuilt without running the class's constructor, so its message stays exactly
 * the one sent (the constructors add the offset to it).
 */
export function errorFromTransfer(t: TransferredError): Error {
  const cls = classes.get(t.name) ?? (t.code === 'internal' || t.code === 'io' ? builtIn(t.name) : SstkitError)
  const e = Object.create(cls.prototype) as Error
  Object.defineProperty(e, 'message', { value: t.message, writable: true, configurable: true })
  if (t.stack !== undefined) Object.defineProperty(e, 'stack', { value: t.stack, writable: true, configurable: true })
  if (e.name !== t.name) e.name = t.name
  if (t.fields) Object.assign(e, t.fields)
  if (e instanceof SstkitError) {
    const own = e as { -readonly [K in 'code' | 'offset' | 'file']: SstkitError[K] }
    own.code = t.code
    if (t.offset !== undefined) own.offset = t.offset
    if (t.file !== undefined) own.file = t.file
  }
  return e
}

function builtIn(name: string): ErrorClass {
  const g = (globalThis as Record<string, unknown>)[name]
  return typeof g === 'function' && (g === Error || g.prototype instanceof Error) ? (g as ErrorClass) : Error
}

/** Primitives and plain objects or arrays of them: what crosses a thread unchanged. */
function isPlainData(v: unknown, depth = 0): boolean {
  if (v === null || typeof v !== 'object') return typeof v !== 'function' && typeof v !== 'symbol'
  if (depth > 2) return false
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== Array.prototype) return false
  return Object.values(v).every((x) => isPlainData(x, depth + 1))
}
