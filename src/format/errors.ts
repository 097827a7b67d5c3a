/**
 * Errors raised while decoding an SST. Every error carries the file offset it
 * concerns (when known) so that a message can say what is wrong and where.
 */

/** The bytes do not follow the format: corruption, truncation or a bug in the writer. */
export class CorruptionError extends Error {
  override name = 'CorruptionError'
  constructor(
    message: string,
    /** Absolute file offset of the structure that failed to decode, if known. */
    readonly offset?: number,
  ) {
    super(offset === undefined ? message : `${message} (at offset ${offset})`)
  }
}

/** A valid file of a kind or feature sstkit does not read (plain table, Xpress, ...). */
export class NotSupportedError extends Error {
  override name = 'NotSupportedError'
  constructor(
    message: string,
    readonly offset?: number,
  ) {
    super(offset === undefined ? message : `${message} (at offset ${offset})`)
  }
}
