/**
 * Reading one block: fetch payload + trailer with a single positional read,
 * verify the checksum (with the format_version >= 6 context modifier), and
 * decompress. Every failure names the block and its file offset.
 */
import { blockChecksum, checksumTypeName, contextModifier } from '../codec/checksum.js'
import { compressionTypeName, decompressBlock } from '../codec/compression.js'
import type { Scratch } from '../codec/output.js'
import type { BlockHandle } from '../format/block-handle.js'
import { BLOCK_TRAILER_BYTES, decodeBlockTrailer } from '../format/block-trailer.js'
import { transferable } from '../errors.js'
import { CorruptionError, NotSupportedError } from '../format/errors.js'
import { type ByteSource, type ReadWindow, ShortReadError } from '../io/byte-source.js'

/** Largest block sstkit will read; a bigger handle is treated as corrupt rather than allocated. */
export const DEFAULT_MAX_BLOCK_BYTES = 512 * 1024 * 1024

export interface ChecksumContext {
  readonly checksumType: number
  readonly formatVersion: number
  /** format_version >= 6: base context checksum from the footer; else 0. */
  readonly baseContextChecksum: number
}

export interface RawBlock {
  readonly handle: BlockHandle
  /** Stored payload (possibly compressed). */
  readonly payload: Uint8Array
  /** Payload followed by the compression-type byte: what the checksum covers. */
  readonly checksummed: Uint8Array
  readonly compressionType: number
  readonly storedChecksum: number
  /** The checksum computed over payload + type byte (with context modifier), or null if not verified. */
  readonly computedChecksum: number | null
}

export interface ReadBlockOptions {
  /** What the block is, for messages ("data block", "index partition", ...). */
  what: string
  verifyChecksum: boolean
  /** Upper bound of the region the block must lie in (exclusive), e.g. the footer offset. */
  limit: number
  maxBlockBytes?: number
  /** Read through this private window (the result is valid until its next read). */
  window?: ReadWindow
}

/** A checksum mismatch: the block's bytes are not what was written. */
export class ChecksumMismatchError extends CorruptionError {
  override name = 'ChecksumMismatchError'
  constructor(
    what: string,
    readonly handle: BlockHandle,
    readonly stored: number,
    readonly computed: number,
    checksumType: number,
  ) {
    super(
      `${what} checksum mismatch: stored 0x${hex32(stored)}, computed 0x${hex32(computed)} (${checksumTypeName(checksumType)}, block size ${handle.size})`,
      handle.offset,
    )
  }
}
transferable(ChecksumMismatchError)

export function hex32(v: number): string {
  return (v >>> 0).toString(16).padStart(8, '0')
}

export function checkHandle(handle: BlockHandle, what: string, limit: number, maxBlockBytes: number, at?: number): void {
  // The error's offset is a file offset (where the caller read the handle), never a value the damaged handle claims.
  const where = at
  if (handle.size > maxBlockBytes) {
    throw new CorruptionError(`${what} handle claims ${handle.size} bytes, over the ${maxBlockBytes}-byte block limit`, where)
  }
  if (handle.offset + handle.size + BLOCK_TRAILER_BYTES > limit) {
    throw new CorruptionError(`${what} handle (offset ${handle.offset}, size ${handle.size}) points past the end of its region (${limit})`, where)
  }
}

/** Read payload + trailer and verify the checksum. No decompression. */
export function readRawBlock(source: ByteSource, handle: BlockHandle, ctx: ChecksumContext, opts: ReadBlockOptions): RawBlock {
  checkHandle(handle, opts.what, opts.limit, opts.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES)
  let bytes: Uint8Array
  try {
    const length = handle.size + BLOCK_TRAILER_BYTES
    bytes = opts.window ? opts.window.read(handle.offset, length) : source.read(handle.offset, length)
  } catch (e) {
    if (e instanceof ShortReadError) {
      throw new CorruptionError(`${opts.what} is truncated: ${e.message}`, handle.offset)
    }
    throw e
  }
  const { compressionType, storedChecksum } = decodeBlockTrailer(bytes, handle.size)
  let computed: number | null = null
  if (opts.verifyChecksum) {
    computed = computeStoredChecksum(ctx, bytes.subarray(0, handle.size + 1), handle.offset)
    if (computed !== storedChecksum) {
      throw new ChecksumMismatchError(opts.what, handle, storedChecksum, computed, ctx.checksumType)
    }
  }
  return {
    handle,
    payload: bytes.subarray(0, handle.size),
    checksummed: bytes.subarray(0, handle.size + 1),
    compressionType,
    storedChecksum,
    computedChecksum: computed,
  }
}

/** The value RocksDB would store for these bytes (payload + type byte) at `offset`. */
export function computeStoredChecksum(ctx: ChecksumContext, bytes: Uint8Array, offset: number): number {
  const plain = blockChecksum(ctx.checksumType, bytes)
  if (ctx.formatVersion >= 6) return (plain + contextModifier(ctx.baseContextChecksum, offset)) >>> 0
  return plain
}

/** The checksum RocksDB would have stored for a block read without verification. */
export function blockChecksumOf(table: { checksum: ChecksumContext }, raw: RawBlock): number {
  return computeStoredChecksum(table.checksum, raw.checksummed, raw.handle.offset)
}

/** Decompress a raw block's payload. */
export function decompressRawBlock(raw: RawBlock, formatVersion: number, what: string, dictionary?: Uint8Array, scratch?: Scratch): Uint8Array {
  if (raw.compressionType === 0) return raw.payload
  try {
    return decompressBlock(raw.compressionType, raw.payload, { formatVersion, dictionary, offset: raw.handle.offset, scratch })
  } catch (e) {
    if (e instanceof CorruptionError || e instanceof NotSupportedError) {
      // Re-label with the block kind; keep the class so callers can tell them apart.
      const inner = e.message.replace(/ \(at offset \d+\)$/, '')
      const Cls = e instanceof NotSupportedError ? NotSupportedError : CorruptionError
      throw new Cls(`${what}: ${inner}`, e.offset ?? raw.handle.offset)
    }
    throw new CorruptionError(`${what}: ${compressionTypeName(raw.compressionType)} decompression failed: ${(e as Error).message}`, raw.handle.offset)
  }
}
