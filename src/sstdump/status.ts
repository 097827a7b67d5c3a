/** RocksDB `Status` as sst_dump prints it (`Status::ToString()`). */
import { type ErrorCode, SstkitError, transferable } from '../errors.js'
import { CorruptionError, NotSupportedError } from '../format/errors.js'

export type StatusCode = 'Corruption' | 'InvalidArgument' | 'NotSupported' | 'IOError' | 'NotFound' | 'Aborted'

const PREFIX: Record<StatusCode, string> = {
  Corruption: 'Corruption: ',
  InvalidArgument: 'Invalid argument: ',
  NotSupported: 'Not implemented: ',
  IOError: 'IO error: ',
  NotFound: 'NotFound: ',
  Aborted: 'Operation aborted: ',
}

/** The kind of failure each status stands for in sstkit's error model. */
const KIND: Record<StatusCode, ErrorCode> = {
  Corruption: 'corruption',
  InvalidArgument: 'usage',
  NotSupported: 'not-supported',
  IOError: 'io',
  NotFound: 'corruption',
  Aborted: 'corruption',
}

/** A failed RocksDB status; thrown by the emulation and caught where sst_dump checks `s.ok()`. */
export class SstDumpStatus extends SstkitError {
  override name = 'SstDumpStatus'
  constructor(
    /** RocksDB's status code (`code` is the sstkit error kind). */
    readonly status: StatusCode,
    /** The state (`getState()`): message, or `msg: msg2` when RocksDB passes two parts. */
    readonly state: string,
  ) {
    super(KIND[status], PREFIX[status] + state)
  }

  static of(code: StatusCode, msg: string, msg2?: string): SstDumpStatus {
    return new SstDumpStatus(code, msg2 === undefined || msg2 === '' ? msg : `${msg}: ${msg2}`)
  }

  override toString(): string {
    return this.message
  }
}
transferable(SstDumpStatus)

export function corruption(msg: string, msg2?: string): SstDumpStatus {
  return SstDumpStatus.of('Corruption', msg, msg2)
}

/** `Status::ToString()` for an error thrown while reading: our statuses as they are, sstkit's errors as Corruption. */
export function toStatus(e: unknown): SstDumpStatus {
  if (e instanceof SstDumpStatus) return e
  if (e instanceof NotSupportedError) return SstDumpStatus.of('NotSupported', stripOffset(e.message))
  if (e instanceof CorruptionError) return corruption(stripOffset(e.message))
  // A Node.js error (its `code` is a string such as ENOENT; an SstkitError's `code` is its kind).
  if (e instanceof Error && !(e instanceof SstkitError) && (e as NodeJS.ErrnoException).code) return SstDumpStatus.of('IOError', e.message)
  throw e
}

export function stripOffset(m: string): string {
  return m.replace(/ \(at offset \d+\)$/, '')
}
