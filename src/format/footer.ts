/**
 * The footer of a block-based table, and the magic numbers that name table kinds.
 *
 * A block-based SST, as `BlockBasedTableBuilder::Finish()` writes it:
 *
 *   +-------------------------------+  offset 0
 *   | data block 0      | trailer   |  every block is followed by a 5-byte trailer:
 *   | ...               |           |    [compression type: u8][checksum: u32 LE]
 *   | data block N-1    | trailer   |  (the data region may hold alignment padding)
 *   +-------------------------------+  rocksdb.tail.start.offset
 *   | filter (full, or partitions   |
 *   |   + partition index)          |
 *   | index (or partitions + top)   |
 *   | compression dictionary        |  rocksdb.compression_dict (optional)
 *   | range deletions               |  rocksdb.range_del (optional)
 *   | properties                    |  rocksdb.properties
 *   | metaindex                     |  name -> BlockHandle of each meta block
 *   +-------------------------------+
 *   | footer (48 or 53 bytes)       |  no trailer
 *   +-------------------------------+  end of file
 *
 * Footer layouts (all integers little-endian):
 *
 *   format_version 0 (LevelDB, 48 bytes):
 *     [metaindex handle][index handle][zero padding to 40 bytes][magic: u64]
 *   format_version 1..5 (53 bytes):
 *     [checksum type: u8][metaindex handle][index handle][padding to 40][format_version: u32][magic: u64]
 *   format_version 6..7 (53 bytes):
 *     [checksum type: u8][extended magic 3E 00 7A 00][footer checksum: u32][base context checksum: u32]
 *     [metaindex size: u32][reserved 16][reserved, must be zero: 8][format_version: u32][magic: u64]
 *     The metaindex (and its trailer) ends exactly where the footer starts; the index
 *     handle lives in the metaindex under "rocksdb.index".
 *
 * Each part's constants, decoder and encoder live in one file of src/format/:
 * block-trailer.ts (trailer), block.ts (the generic block), index-block.ts,
 * filter.ts, properties.ts, metaindex.ts, range-del.ts, block-handle.ts, and
 * this file (footer and magic numbers).
 */
import { Cursor, readFixed32, readFixed64, writeFixed32 } from './coding.js'
import { type BlockHandle, decodeBlockHandle, encodeBlockHandle } from './block-handle.js'
import { ChecksumType } from './checksum-type.js'
import { CorruptionError, NotSupportedError } from './errors.js'

/** First 64 bits of sha1("rocksdb.table.block_based"). */
export const BLOCK_BASED_TABLE_MAGIC = 0x88e241b785f4cff7n
/** LevelDB's table magic; RocksDB writes it for format_version 0. */
export const LEGACY_BLOCK_BASED_TABLE_MAGIC = 0xdb4775248b80fb57n
export const PLAIN_TABLE_MAGIC = 0x8242229663bf9564n
export const LEGACY_PLAIN_TABLE_MAGIC = 0x4f3418eb7a8f13b8n
export const CUCKOO_TABLE_MAGIC = 0x926789d0c5f17873n
/** Pebble's own table magic ("🪳🪳"): Pebble-format tables are not RocksDB tables. */
export const PEBBLE_TABLE_MAGIC = 0xb3aa9ff0b3aa9ff0n

/** 2 block handles of up to 20 bytes each, zero-padded. */
const HANDLES_AREA_BYTES = 40
export const LEGACY_FOOTER_BYTES = HANDLES_AREA_BYTES + 8
export const FOOTER_BYTES = 1 + HANDLES_AREA_BYTES + 4 + 8
export const MAGIC_BYTES = 8

/** Bytes 1..4 of a format_version >= 6 footer. */
export const EXTENDED_MAGIC = Uint8Array.of(0x3e, 0x00, 0x7a, 0x00)
/** Offset of the footer checksum field within a format_version >= 6 footer. */
export const FOOTER_CHECKSUM_OFFSET = 5

/** Newest format_version this reader knows (RocksDB 10.11+ default). */
export const LATEST_FORMAT_VERSION = 7

export interface Footer {
  /** Absolute file offset where the footer starts. */
  readonly offset: number
  /** Footer length in bytes (48 or 53). */
  readonly length: number
  readonly magic: bigint
  /** True for the LevelDB/legacy magic (format_version 0). */
  readonly legacy: boolean
  readonly formatVersion: number
  readonly checksumType: number
  readonly metaindexHandle: BlockHandle
  /** Index handle from the footer; null for format_version >= 6 (look up "rocksdb.index"). */
  readonly indexHandle: BlockHandle | null
  /** format_version >= 6 only. */
  readonly footerChecksum?: number
  readonly baseContextChecksum?: number
}

export function magicName(magic: bigint): string {
  switch (magic) {
    case BLOCK_BASED_TABLE_MAGIC:
      return 'BlockBasedTable'
    case LEGACY_BLOCK_BASED_TABLE_MAGIC:
      return 'LegacyBlockBasedTable (LevelDB)'
    case PLAIN_TABLE_MAGIC:
    case LEGACY_PLAIN_TABLE_MAGIC:
      return 'PlainTable'
    case CUCKOO_TABLE_MAGIC:
      return 'CuckooTable'
    case PEBBLE_TABLE_MAGIC:
      return 'Pebble'
    default:
      return `unknown (0x${magic.toString(16).padStart(16, '0')})`
  }
}

const KNOWN_MAGICS = [BLOCK_BASED_TABLE_MAGIC, LEGACY_BLOCK_BASED_TABLE_MAGIC, PLAIN_TABLE_MAGIC, LEGACY_PLAIN_TABLE_MAGIC, CUCKOO_TABLE_MAGIC]

/**
 * A file cut short by a few bytes ends with the first bytes of its magic number:
 * say so, since "bad magic" alone suggests the wrong kind of file.
 */
function truncationHint(tail: Uint8Array): string {
  for (const magic of KNOWN_MAGICS) {
    const bytes = new Uint8Array(MAGIC_BYTES)
    new DataView(bytes.buffer).setBigUint64(0, magic, true)
    for (let k = MAGIC_BYTES - 1; k >= 3; k--) {
      const end = tail.subarray(tail.length - k)
      if (end.every((b, i) => b === bytes[i])) {
        return ` (the file ends with the first ${k} bytes of the ${magicName(magic)} magic: it looks truncated by ${MAGIC_BYTES - k} byte${MAGIC_BYTES - k === 1 ? '' : 's'})`
      }
    }
  }
  return ''
}

/**
 * Decode the footer from the last bytes of a file.
 * @param tail the last `min(FOOTER_BYTES, fileSize)` bytes of the file
 * @param fileSize total file size
 */
export function decodeFooter(tail: Uint8Array, fileSize: number): Footer {
  const tailStart = fileSize - tail.length
  if (fileSize < LEGACY_FOOTER_BYTES || tail.length < LEGACY_FOOTER_BYTES) {
    throw new CorruptionError(`file is too short to be an SST (${fileSize} bytes; the smallest footer is ${LEGACY_FOOTER_BYTES} bytes)`, 0)
  }
  const magic = readFixed64(tail, tail.length - MAGIC_BYTES)
  const magicOffset = fileSize - MAGIC_BYTES

  switch (magic) {
    case PLAIN_TABLE_MAGIC:
    case LEGACY_PLAIN_TABLE_MAGIC:
      throw new NotSupportedError('PlainTable format is not supported', magicOffset)
    case CUCKOO_TABLE_MAGIC:
      throw new NotSupportedError('CuckooTable format is not supported', magicOffset)
    case PEBBLE_TABLE_MAGIC:
      throw new NotSupportedError('Pebble table format is not supported (this is not a RocksDB SST)', magicOffset)
    case LEGACY_BLOCK_BASED_TABLE_MAGIC: {
      const offset = fileSize - LEGACY_FOOTER_BYTES
      const c = new Cursor(tail, tail.length - LEGACY_FOOTER_BYTES, tail.length - MAGIC_BYTES, tailStart, 'footer')
      const metaindexHandle = decodeBlockHandle(c)
      const indexHandle = decodeBlockHandle(c)
      return {
        offset,
        length: LEGACY_FOOTER_BYTES,
        magic,
        legacy: true,
        formatVersion: 0,
        checksumType: ChecksumType.CRC32c, // implied
        metaindexHandle,
        indexHandle,
      }
    }
    case BLOCK_BASED_TABLE_MAGIC:
      break
    default:
      throw new CorruptionError(
        `not an SST file: bad magic number 0x${magic.toString(16).padStart(16, '0')} in the last 8 bytes${truncationHint(tail)}`,
        magicOffset,
      )
  }

  if (tail.length < FOOTER_BYTES) {
    throw new CorruptionError(`file is too short for a block-based footer (${fileSize} bytes)`, 0)
  }
  const offset = fileSize - FOOTER_BYTES
  const f = tail.subarray(tail.length - FOOTER_BYTES)
  const formatVersion = readFixed32(f, FOOTER_BYTES - MAGIC_BYTES - 4)
  if (formatVersion < 1 || formatVersion > LATEST_FORMAT_VERSION) {
    throw new NotSupportedError(
      `unknown format_version ${formatVersion} in footer (this reader knows 0..${LATEST_FORMAT_VERSION})`,
      offset + FOOTER_BYTES - MAGIC_BYTES - 4,
    )
  }
  const checksumType = f[0]

  if (formatVersion < 6) {
    const c = new Cursor(f, 1, 1 + HANDLES_AREA_BYTES, offset, 'footer')
    const metaindexHandle = decodeBlockHandle(c)
    const indexHandle = decodeBlockHandle(c)
    return { offset, length: FOOTER_BYTES, magic, legacy: false, formatVersion, checksumType, metaindexHandle, indexHandle }
  }

  for (let i = 0; i < EXTENDED_MAGIC.length; i++) {
    if (f[1 + i] !== EXTENDED_MAGIC[i]) {
      throw new CorruptionError(`format_version ${formatVersion} footer lacks the extended magic bytes 3e 00 7a 00`, offset + 1)
    }
  }
  const footerChecksum = readFixed32(f, FOOTER_CHECKSUM_OFFSET)
  const baseContextChecksum = readFixed32(f, 9)
  const metaindexSize = readFixed32(f, 13)
  for (let i = 33; i < 41; i++) {
    if (f[i] !== 0) {
      throw new NotSupportedError('footer uses a future feature (reserved bytes 33..40 are not zero)', offset + i)
    }
  }
  if (baseContextChecksum === 0) {
    throw new CorruptionError('format_version >= 6 footer has a zero base context checksum', offset + 9)
  }
  const metaindexOffset = offset - 5 - metaindexSize
  if (metaindexOffset < 0) {
    throw new CorruptionError(`metaindex size ${metaindexSize} in footer is larger than the file`, offset + 13)
  }
  return {
    offset,
    length: FOOTER_BYTES,
    magic,
    legacy: false,
    formatVersion,
    checksumType,
    metaindexHandle: { offset: metaindexOffset, size: metaindexSize },
    indexHandle: null,
    footerChecksum,
    baseContextChecksum,
  }
}

export interface FooterFields {
  checksumType: number
  formatVersion: number
  metaindexHandle: BlockHandle
  /** Stored in the footer before format_version 6; from 6 on it is in the metaindex. */
  indexHandle: BlockHandle
  /** format_version >= 6: the base context checksum (non-zero). */
  baseContextChecksum?: number
}

/**
 * The 53-byte footer of a format_version 1..7 block-based table. From
 * format_version 6 the footer checksums itself: `checksum` gets the footer
 * with that field zeroed (the block checksum with its context modifier
 * belongs to codec/, which format/ does not import).
 */
export function encodeFooter(f: FooterFields, checksum?: (footer: Uint8Array) => number): Uint8Array {
  if (f.formatVersion < 1 || f.formatVersion > LATEST_FORMAT_VERSION) throw new RangeError(`format_version ${f.formatVersion} has no 53-byte footer`)
  const out = new Uint8Array(FOOTER_BYTES)
  const view = new DataView(out.buffer)
  out[0] = f.checksumType
  view.setUint32(FOOTER_BYTES - MAGIC_BYTES - 4, f.formatVersion, true)
  view.setBigUint64(FOOTER_BYTES - MAGIC_BYTES, BLOCK_BASED_TABLE_MAGIC, true)
  if (f.formatVersion < 6) {
    const meta = encodeBlockHandle(f.metaindexHandle)
    out.set(meta, 1)
    out.set(encodeBlockHandle(f.indexHandle), 1 + meta.length)
    return out
  }
  if (!f.baseContextChecksum || !checksum) throw new RangeError(`a format_version ${f.formatVersion} footer needs a base context checksum and its own checksum`)
  out.set(EXTENDED_MAGIC, 1)
  writeFixed32(out, 9, f.baseContextChecksum)
  writeFixed32(out, 13, f.metaindexHandle.size)
  writeFixed32(out, FOOTER_CHECKSUM_OFFSET, checksum(out))
  return out
}

/** The format_version a table is rewritten in when none is given: its input's, but at least 2 (older framings are not written). */
export function defaultFormatVersion(input: number): number {
  return input >= 2 ? input : 5
}
