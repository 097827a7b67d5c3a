/**
 * RocksDB's log format (`db/log_format.h`, `db/log_reader.cc`, `db/log_writer.cc`), the framing
 * of both the MANIFEST and the WAL: the file is cut into 32 KiB blocks; a logical record is
 * written as one or more physical records, each
 *
 *   masked crc32c (fixed32) | length (fixed16) | type (1) [| log number (fixed32), recyclable] | payload
 *
 * and never crosses a block boundary: a block tail too short for a header (< 7 bytes, < 11 for
 * recyclable records) is zero padding. The CRC covers the type byte, the log number of a
 * recyclable record and the payload (the bytes from header offset 6 to the payload's end).
 *
 * Checksums: this module is pure framing and takes the checksum as a function (`LogCrc`: the
 * masked CRC32c of some bytes, `util/crc32c.h` Mask). The CRC32c itself lives in
 * `src/codec/checksum.ts` (the `@node-rs/crc32` addon), which `format/` must not import; `src/db/`
 * passes `blockChecksum(ChecksumType.CRC32c, ...)` in.
 *
 * Reading follows what RocksDB does when it recovers a MANIFEST (`log::Reader::ReadRecord` with its
 * default kTolerateCorruptedTailRecords mode, as `VersionEditHandlerBase::Iterate` calls it):
 * - a checksum mismatch, a record length running past its (full) block, an unknown record type
 *   without the safe-to-ignore bit (0x80), MIDDLE/LAST without FIRST, FIRST or FULL while a
 *   fragmented record is open: corruption, reported as an error naming the file offset of the
 *   physical record;
 * - at the end of the file, a truncated header, a truncated payload (the record's length runs past
 *   the last, partial block) or a FIRST/MIDDLE with no LAST: the writer died mid-record; RocksDB
 *   silently drops that incomplete tail and treats the log as ending before it. So does this
 *   reader, and `LogReader.droppedTail` says what was dropped and where;
 * - zero-type zero-length headers (preallocated space) skip the rest of their block;
 * - recyclable records whose log number is not the log's own are leftovers of an older log: the
 *   log ends there (`droppedTail` says so);
 * - SetCompressionType (WAL compression) is reported as not supported; user-defined timestamp
 *   size and predecessor-WAL records are decoded into `timestampSizes` / `predecessorWals`.
 * A logical record longer than `maxRecordBytes` (64 MiB by default) is an error before anything
 * that large is allocated.
 */
import { readFixed32, readFixed64 } from './coding.js'
import { CorruptionError, NotSupportedError } from './errors.js'

export const LOG_BLOCK_SIZE = 32768
export const LOG_HEADER_SIZE = 7
export const LOG_RECYCLABLE_HEADER_SIZE = 11
/** Default cap on one logical record: a corrupt length must not make us allocate it. */
export const MAX_LOG_RECORD_BYTES = 64 * 1024 * 1024

export const LogRecordType = {
  Zero: 0,
  Full: 1,
  First: 2,
  Middle: 3,
  Last: 4,
  RecyclableFull: 5,
  RecyclableFirst: 6,
  RecyclableMiddle: 7,
  RecyclableLast: 8,
  SetCompressionType: 9,
  UserDefinedTimestampSize: 10,
  RecyclableUserDefinedTimestampSize: 11,
  PredecessorWalInfo: 130,
  RecyclablePredecessorWalInfo: 131,
} as const

/** Unknown record types with this bit set are skipped (`kRecordTypeSafeIgnoreMask`). */
export const LOG_RECORD_SAFE_IGNORE_MASK = 0x80

/** The masked CRC32c of `bytes` (RocksDB `crc32c::Mask(crc32c::Value(...))`). */
export type LogCrc = (bytes: Uint8Array) => number

/** What the reader needs of a file: its size and positional reads (a `ByteSource` fits). */
export interface LogBytes {
  readonly size: number
  read(offset: number, length: number): Uint8Array
}

export interface LogRecord {
  /** File offset of the record's first physical record (its header). */
  offset: number
  /** File offset just past its last physical record. */
  end: number
  /** Physical records it was cut into (1: the payload sits at offset + header size, contiguous). */
  fragments: number
  /** Header size of its physical records (7, or 11 when recyclable). */
  headerSize: number
  payload: Uint8Array
}

export interface DroppedTail {
  /** File offset of the physical record where the incomplete tail starts. */
  offset: number
  /** Bytes from there to the end of the file. */
  bytes: number
  reason: string
}

export interface PredecessorWalInfo {
  offset: number
  logNumber: bigint
  sizeBytes: bigint
  lastSequence: bigint
}

export interface LogReaderOptions {
  /** The file's name for messages. */
  name: string
  crc: LogCrc
  /** Expected log number of recyclable records (default: the first one seen). */
  logNumber?: number
  maxRecordBytes?: number
}

const RECYCLABLE_TYPES: ReadonlySet<number> = new Set([
  LogRecordType.RecyclableFull,
  LogRecordType.RecyclableFirst,
  LogRecordType.RecyclableMiddle,
  LogRecordType.RecyclableLast,
  LogRecordType.RecyclableUserDefinedTimestampSize,
  LogRecordType.RecyclablePredecessorWalInfo,
])

const TYPE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(LogRecordType).map(([name, value]) => [value, name]))

export function logRecordTypeName(type: number): string {
  return TYPE_NAMES[type] ?? `unknown(${type})`
}

/** A physical record as the reader saw it. */
interface Physical {
  offset: number
  type: number
  headerSize: number
  payload: Uint8Array
}

/** End of the log: nothing more, or an incomplete tail that RocksDB drops. */
interface End {
  end: true
  tail: DroppedTail | null
}

/**
 * Iterates the logical records of a log, one 32 KiB block in memory at a time (plus the logical
 * record being assembled). `records()` may be called once.
 */
export class LogReader {
  /** Set when the log ended in an incomplete record that was dropped (see the file comment). */
  droppedTail: DroppedTail | null = null
  /** Column family id → user-defined timestamp size, from timestamp-size records (WAL). */
  readonly timestampSizes = new Map<number, number>()
  readonly predecessorWals: PredecessorWalInfo[] = []

  private block: Uint8Array = new Uint8Array(0)
  private blockStart = 0
  private pos = 0 // offset within `block`
  private expectedLogNumber: number | undefined
  private readonly maxRecordBytes: number

  constructor(
    private readonly source: LogBytes,
    private readonly options: LogReaderOptions,
  ) {
    this.expectedLogNumber = options.logNumber
    this.maxRecordBytes = options.maxRecordBytes ?? MAX_LOG_RECORD_BYTES
    this.loadBlock(0)
  }

  *records(): Generator<LogRecord> {
    let chunks: Uint8Array[] = []
    let total = 0
    let start = -1 // offset of the open fragmented record, -1 when none
    let fragments = 0
    for (;;) {
      const p = this.nextPhysical()
      if ('end' in p) {
        this.droppedTail =
          start < 0
            ? p.tail
            : {
                offset: start,
                bytes: this.source.size - start,
                reason: p.tail
                  ? `fragmented record cut short (${p.tail.reason} at offset ${p.tail.offset})`
                  : 'fragmented record without its LAST fragment at the end of the log',
              }
        return
      }
      const end = this.blockStart + this.pos
      switch (p.type) {
        case LogRecordType.Full:
        case LogRecordType.RecyclableFull:
          if (start >= 0 && total > 0) this.fail(p.offset, `FULL record while the fragmented record at offset ${start} has no LAST fragment`)
          chunks = []
          total = 0
          start = -1
          yield { offset: p.offset, end, fragments: 1, headerSize: p.headerSize, payload: p.payload }
          break
        case LogRecordType.First:
        case LogRecordType.RecyclableFirst:
          // An empty FIRST at a block tail followed by a new FIRST is an old writer bug RocksDB tolerates.
          if (start >= 0 && total > 0) this.fail(p.offset, `FIRST record while the fragmented record at offset ${start} has no LAST fragment`)
          start = p.offset
          fragments = 1
          chunks = [p.payload.slice()]
          total = p.payload.length
          this.checkSize(start, total)
          break
        case LogRecordType.Middle:
        case LogRecordType.RecyclableMiddle:
        case LogRecordType.Last:
        case LogRecordType.RecyclableLast: {
          const last = p.type === LogRecordType.Last || p.type === LogRecordType.RecyclableLast
          if (start < 0) this.fail(p.offset, `${last ? 'LAST' : 'MIDDLE'} record without a FIRST record before it`)
          total += p.payload.length
          fragments++
          this.checkSize(start, total)
          chunks.push(last ? p.payload : p.payload.slice())
          if (last) {
            yield { offset: start, end, fragments, headerSize: p.headerSize, payload: concat(chunks, total) }
            chunks = []
            total = 0
            start = -1
          }
          break
        }
        default:
          if (start >= 0 && total > 0) this.fail(p.offset, `${logRecordTypeName(p.type)} record inside the fragmented record at offset ${start}`)
          this.metaRecord(p)
      }
    }
  }

  private metaRecord(p: Physical): void {
    switch (p.type) {
      case LogRecordType.SetCompressionType: {
        const type = p.payload.length >= 4 ? readFixed32(p.payload, 0) : -1
        throw new NotSupportedError(`${this.options.name}: compressed log (SetCompressionType record, compression type ${type}) is not supported`, p.offset)
      }
      case LogRecordType.UserDefinedTimestampSize:
      case LogRecordType.RecyclableUserDefinedTimestampSize: {
        const b = p.payload
        if (b.length % 6 !== 0) this.fail(p.offset, `user-defined timestamp size record of ${b.length} bytes is not a multiple of 6`)
        for (let i = 0; i < b.length; i += 6) this.timestampSizes.set(readFixed32(b, i), b[i + 4] | (b[i + 5] << 8))
        return
      }
      case LogRecordType.PredecessorWalInfo:
      case LogRecordType.RecyclablePredecessorWalInfo: {
        const b = p.payload
        if (b.length < 24) this.fail(p.offset, `predecessor WAL info record of ${b.length} bytes is shorter than 24`)
        this.predecessorWals.push({
          offset: p.offset,
          logNumber: readFixed64(b, 0),
          sizeBytes: readFixed64(b, 8),
          lastSequence: readFixed64(b, 16),
        })
        return
      }
      default:
        if ((p.type & LOG_RECORD_SAFE_IGNORE_MASK) === 0) this.fail(p.offset, `unknown record type ${p.type}`)
    }
  }

  private checkSize(start: number, total: number): void {
    if (total > this.maxRecordBytes) {
      this.fail(start, `logical record is longer than ${this.maxRecordBytes} bytes (the reader's limit)`)
    }
  }

  private fail(offset: number, message: string): never {
    throw new CorruptionError(`${this.options.name}: ${message}`, offset)
  }

  private loadBlock(start: number): void {
    this.blockStart = start
    this.pos = 0
    const length = Math.min(LOG_BLOCK_SIZE, this.source.size - start)
    this.block = length > 0 ? this.source.read(start, length) : new Uint8Array(0)
  }

  /** The current block is the file's last one and shorter than 32 KiB (RocksDB's eof_). */
  private get inPartialBlock(): boolean {
    return this.block.length < LOG_BLOCK_SIZE
  }

  private nextPhysical(): Physical | End {
    for (;;) {
      const left = this.block.length - this.pos
      const offset = this.blockStart + this.pos
      if (left < LOG_HEADER_SIZE) {
        if (!this.inPartialBlock) {
          this.loadBlock(this.blockStart + LOG_BLOCK_SIZE) // block trailer: padding
          continue
        }
        return this.endAt(offset, left, 'truncated record header')
      }
      const b = this.block
      const p = this.pos
      const length = b[p + 4] | (b[p + 5] << 8)
      const type = b[p + 6]
      const recyclable = RECYCLABLE_TYPES.has(type)
      const headerSize = recyclable ? LOG_RECYCLABLE_HEADER_SIZE : LOG_HEADER_SIZE
      if (left < headerSize) {
        if (!this.inPartialBlock) {
          this.loadBlock(this.blockStart + LOG_BLOCK_SIZE) // too short for a recyclable header: a trailer, as RocksDB reads it
          continue
        }
        return this.endAt(offset, left, 'truncated record header')
      }
      if (headerSize + length > left) {
        if (this.inPartialBlock) return this.endAt(offset, left, 'truncated record payload')
        this.fail(offset, `record length ${length} runs past the end of its 32 KiB block (${left - headerSize} bytes left)`)
      }
      if (type === LogRecordType.Zero && length === 0) {
        // Preallocated space: RocksDB skips the rest of the block.
        this.pos = this.block.length
        continue
      }
      if (recyclable) {
        const logNumber = readFixed32(b, p + 7)
        this.expectedLogNumber ??= logNumber
        if (logNumber !== this.expectedLogNumber) {
          return this.endAt(offset, left, `record of an older log (log number ${logNumber}, not ${this.expectedLogNumber})`)
        }
      }
      const stored = readFixed32(b, p)
      const actual = this.options.crc(b.subarray(p + 6, p + headerSize + length))
      if (stored !== actual) {
        this.fail(offset, `checksum mismatch in ${logRecordTypeName(type)} record of ${length} bytes`)
      }
      this.pos += headerSize + length
      return { offset, type, headerSize, payload: b.subarray(p + headerSize, p + headerSize + length) }
    }
  }

  private endAt(offset: number, left: number, reason: string): End {
    if (left === 0) return { end: true, tail: null }
    return { end: true, tail: { offset, bytes: this.source.size - offset, reason } }
  }
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}

export interface LogWriterOptions {
  crc: LogCrc
  /** Write recyclable records carrying this log number. */
  recycleLogNumber?: number
}

/**
 * Writes logical records the way `log::Writer::AddRecord` does: fragments that fill each block,
 * zero padding for block tails too short for a header, and an empty FULL record for an empty
 * payload.
 */
export class LogWriter {
  private readonly parts: Uint8Array[] = []
  private offset = 0

  constructor(private readonly options: LogWriterOptions) {}

  /** File offset the next record starts at (before any padding). */
  get size(): number {
    return this.offset
  }

  addRecord(payload: Uint8Array): void {
    const recycle = this.options.recycleLogNumber !== undefined
    const headerSize = recycle ? LOG_RECYCLABLE_HEADER_SIZE : LOG_HEADER_SIZE
    let at = 0
    let begin = true
    for (;;) {
      const leftInBlock = LOG_BLOCK_SIZE - (this.offset % LOG_BLOCK_SIZE)
      if (leftInBlock < headerSize) {
        this.push(new Uint8Array(leftInBlock))
        continue
      }
      const avail = leftInBlock - headerSize
      const n = Math.min(payload.length - at, avail)
      const end = at + n === payload.length
      const type = begin && end ? 1 : begin ? 2 : end ? 4 : 3
      this.addPhysical(recycle ? type + 4 : type, payload.subarray(at, at + n))
      at += n
      begin = false
      if (end) return
    }
  }

  /** One physical record of any type, as is (for edge-case tests); pads nothing. */
  addPhysical(type: number, payload: Uint8Array): void {
    this.push(encodePhysicalRecord(type, payload, this.options.crc, this.options.recycleLogNumber))
  }

  /** Raw bytes (padding or damage in tests). */
  push(bytes: Uint8Array): void {
    this.parts.push(bytes)
    this.offset += bytes.length
  }

  finish(): Uint8Array {
    return concat(this.parts, this.offset)
  }
}

/** One physical record: header (+ log number when `logNumber` is given) and payload. */
export function encodePhysicalRecord(type: number, payload: Uint8Array, crc: LogCrc, logNumber?: number): Uint8Array {
  if (payload.length > 0xffff) throw new RangeError(`physical record payload of ${payload.length} bytes exceeds 65535`)
  const headerSize = logNumber === undefined ? LOG_HEADER_SIZE : LOG_RECYCLABLE_HEADER_SIZE
  const out = new Uint8Array(headerSize + payload.length)
  const view = new DataView(out.buffer)
  view.setUint16(4, payload.length, true)
  out[6] = type
  if (logNumber !== undefined) view.setUint32(7, logNumber >>> 0, true)
  out.set(payload, headerSize)
  view.setUint32(0, crc(out.subarray(6)) >>> 0, true)
  return out
}
