/** RocksDB `Status` as sst_dump prints it (`Status::ToString()`). */
export type StatusCode = 'Corruption' | 'InvalidArgument' | 'NotSupported' | 'IOError' | 'NotFound' | 'Aborted'

const PREFIX: Record<StatusCode, string> = {
  Corruption: 'Corruption: ',
  InvalidArgument: 'Invalid argument: ',
  NotSupported: 'Not implemented: ',
  IOError: 'IO error: ',
  NotFound: 'NotFound: ',
  Aborted: 'Operation aborted: ',
}

/** A failed RocksDB status; thrown by the emulation and caught where sst_dump checks `s.ok()`. */
export class SstDumpStatus extends Error {
  constructor(
    readonly code: StatusCode,
    /** The state (`getState()`): message, or `msg: msg2` when RocksDB passes two parts. */
    readonly state: string,
  ) {
    super(PREFIX[code] + state)
  }

  static of(code: StatusCode, msg: string, msg2?: string): SstDumpStatus {
    return new SstDumpStatus(code, msg2 === undefined || msg2 === '' ? msg : `${msg}: ${msg2}`)
  }

  override toString(): string {
    return this.message
  }
}

export function corruption(msg: string, msg2?: string): SstDumpStatus {
  return SstDumpStatus.of('Corruption', msg, msg2)
}
