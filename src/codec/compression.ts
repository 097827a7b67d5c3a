/**
 * Compression types and RocksDB's on-disk block framing; dispatches to one
 * adapter per codec (zstd.ts, zlib.ts, snappy.ts, lz4.ts, bzip2.ts).
 *
 * Framing (`util/compression.{h,cc}`; `table/format.h`
 * GetCompressFormatForVersion: compress_format_version = 2 iff fv ≥ 2):
 *   v2: Zlib, BZip2, LZ4, LZ4HC prefix the codec stream with a varint32
 *       uncompressed size (RocksDB reads it as varint64).
 *   v1: Zlib and BZip2 carry no size; LZ4 carries an 8-byte header holding
 *       the size as a host-order size_t (the first 4 bytes are the LE uint32
 *       size on the little-endian hosts that wrote such files).
 *   Both: ZSTD always has the varint prefix; Snappy never does (its own
 *       preamble holds the size).
 */
import { markDecompressed } from '../format/block.js'
import { Cursor, encodeVarint, readFixed32, shortVarint32 } from '../format/coding.js'
import { CorruptionError, NotSupportedError } from '../format/errors.js'
import { bzip2Compress, bzip2Decompress, bzip2DecompressUnknownSize } from './bzip2.js'
import { lz4Compress, lz4Decompress } from './lz4.js'
import { OutputOverflow, type Scratch } from './output.js'
import { snappyCompress, snappyDecompress } from './snappy.js'
import { zlibCompress, zlibDecompress } from './zlib.js'
import { zstdCompress, zstdDecompress } from './zstd.js'
import { CompressionType, compressionTypeName } from '../format/compression-type.js'
import { effectiveLevel } from './setting.js'

// The type byte and its names belong to the format; re-exported for the codec's callers.
export {
  CompressionType,
  type CompressionTypeValue,
  compressionTypeName,
  compressionOptionName,
} from '../format/compression-type.js'
export { DEFAULT_COMPRESSION_LEVEL } from './setting.js'

/** Default cap on one block's uncompressed size (RocksDB blocks are KiB–MiB). */
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024

/** RocksDB's compress_format_version for a table format_version. */
export function compressFormatVersion(formatVersion: number): 1 | 2 {
  return formatVersion >= 2 ? 2 : 1
}

function unsupported(t: number, offset?: number): NotSupportedError {
  const hex = (t & 0xff).toString(16).toUpperCase().padStart(2, '0')
  return new NotSupportedError(`unsupported compression type 0x${hex} (${compressionTypeName(t)})`, offset)
}

export interface DecompressOptions {
  /** The table's format_version (footer); selects the framing. */
  formatVersion: number
  /** Contents of the `rocksdb.compression_dict` meta block, for data blocks. Pass the same object each time: zstd digests are cached per object. */
  dictionary?: Uint8Array
  /**
   * File offset of the payload (block handle offset), for error messages.
   * Malformed-framing errors point at the bad byte (offset + position); when
   * omitted, those positions are relative to the payload.
   */
  offset?: number
  /** Refuse blocks whose uncompressed size exceeds this. Default 256 MiB. */
  maxOutputBytes?: number
  /**
   * Decode into this reused buffer where the codec can (Snappy, ZSTD, LZ4): the result
   * is then a view valid only until the scratch is used again.
   */
  scratch?: Scratch
}

interface Unframed {
  /** Uncompressed size recorded by the framing; undefined for v1 Zlib/BZip2. */
  declared: number | undefined
  /** The codec's own stream. */
  body: Uint8Array
}

function unframe(type: number, payload: Uint8Array, formatVersion: number, offset: number | undefined): Unframed {
  if (type === CompressionType.Snappy) {
    // Once per block of a Snappy file: a well-formed preamble is read here, without a cursor or a message built.
    const declared = shortVarint32(payload)
    if (declared >= 0) return { declared, body: payload }
  }
  const name = compressionTypeName(type)
  const cursor = new Cursor(payload, 0, payload.length, offset ?? 0, `${name} block`)
  const v2 = compressFormatVersion(formatVersion) === 2
  switch (type) {
    case CompressionType.Snappy:
      // Peek at Snappy's preamble so the size limit applies before decoding.
      return { declared: cursor.varint32(), body: payload }
    case CompressionType.ZSTD:
    case CompressionType.ZSTDNotFinal:
      return { declared: cursor.varint64(), body: payload.subarray(cursor.pos) }
    case CompressionType.Zlib:
    case CompressionType.BZip2:
      if (!v2) return { declared: undefined, body: payload }
      return { declared: cursor.varint64(), body: payload.subarray(cursor.pos) }
    case CompressionType.LZ4:
    case CompressionType.LZ4HC:
      if (v2) return { declared: cursor.varint64(), body: payload.subarray(cursor.pos) }
      if (payload.length < 8) cursor.fail(`legacy 8-byte size header truncated (${payload.length} bytes)`)
      return { declared: readFixed32(payload, 0), body: payload.subarray(8) }
    default:
      throw unsupported(type, offset)
  }
}

/**
 * The uncompressed size a compressed payload declares, without decoding it
 * (RocksDB's ExtractUncompressedSize). undefined for None and for v1 Zlib /
 * BZip2 blocks, whose size is only known after decoding.
 */
export function declaredUncompressedSize(type: number, payload: Uint8Array, formatVersion: number, offset?: number): number | undefined {
  if (type === CompressionType.None) return payload.length
  return unframe(type, payload, formatVersion, offset).declared
}

/**
 * Decode one block payload (the `size` bytes of a block handle, without the
 * trailer). Returns `payload` itself for kNoCompression.
 *
 * Throws CorruptionError (with `opts.offset`) when the framing is malformed,
 * the declared size is above `maxOutputBytes`, the codec rejects the stream,
 * or the output length differs from the declared size; NotSupportedError
 * for Xpress, custom and reserved types, or a missing system library.
 */
export function decompressBlock(type: number, payload: Uint8Array, opts: DecompressOptions): Uint8Array {
  if (type !== CompressionType.LZ4 || opts.formatVersion !== 0) return decompressFramed(type, payload, opts)
  try {
    return decompressFramed(type, payload, opts)
  } catch (err) {
    if (err instanceof CorruptionError) throw notRocksdbLz4(err, payload, opts)
    throw err
  }
}

/**
 * Id 4 that does not decode as RocksDB's LZ4 in a table of LevelDB's format (format_version 0): Mojang's
 * LevelDB fork (Minecraft Bedrock worlds) writes raw deflate under id 4 (its kZlibRawCompression; id 2 is
 * zlib with a header there). Said so when the block inflates as raw deflate; else the LZ4 error, with the hint.
 */
function notRocksdbLz4(err: CorruptionError, payload: Uint8Array, opts: DecompressOptions): Error {
  let inflated: number | null = null
  try {
    inflated = zlibDecompress(payload, opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, false).length
  } catch {
    // not raw deflate either
  }
  const why = "compression id 4 in a table of LevelDB's format"
  if (inflated !== null)
    return new NotSupportedError(
      `${why} is not RocksDB's LZ4 here: the block inflates as raw deflate (${inflated} bytes), which Mojang's LevelDB fork writes under id 4 (its zlib); sstkit does not read that fork's tables`,
      opts.offset,
    )
  const message = err.message.replace(/ \(at offset \d+\)$/, '')
  return new CorruptionError(`${message} (${why}: not Mojang's LevelDB zlib either, which would inflate as raw deflate)`, err.offset)
}

function decompressFramed(type: number, payload: Uint8Array, opts: DecompressOptions): Uint8Array {
  if (type === CompressionType.None) return payload
  const { offset } = opts
  const max = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  const name = compressionTypeName(type)
  const { declared, body } = unframe(type, payload, opts.formatVersion, offset)
  if (declared !== undefined && declared > max) {
    throw new CorruptionError(`${name} block declares an uncompressed size of ${declared} bytes, above the limit of ${max}`, offset)
  }

  let out: Uint8Array
  try {
    out = decode(type, body, declared, max, opts.dictionary, opts.scratch)
  } catch (err) {
    if (err instanceof CorruptionError || err instanceof NotSupportedError) throw err
    if (err instanceof OutputOverflow) {
      throw new CorruptionError(
        declared !== undefined
          ? `${name} block: decompressed size exceeds declared ${declared}`
          : `${name} block: decompressed size exceeds the limit of ${max} bytes`,
        offset,
      )
    }
    throw new CorruptionError(`${name} decompression failed: ${(err as Error).message}`, offset)
  }
  if (declared !== undefined && out.length !== declared) {
    throw new CorruptionError(`${name} block: decompressed size ${out.length} != declared ${declared}`, offset)
  }
  // Positions in the contents are not file offsets: errors in them name the block (format/block.ts).
  return markDecompressed(out)
}

/** Dictionaries apply to ZSTD, Zlib and LZ4/LZ4HC only; RocksDB ignores them for Snappy and BZip2. */
function decode(
  type: number,
  body: Uint8Array,
  declared: number | undefined,
  max: number,
  dictionary: Uint8Array | undefined,
  scratch: Scratch | undefined,
): Uint8Array {
  switch (type) {
    case CompressionType.Snappy:
      return snappyDecompress(body, declared, scratch)
    case CompressionType.ZSTD:
    case CompressionType.ZSTDNotFinal:
      return zstdDecompress(body, declared!, dictionary, scratch)
    case CompressionType.Zlib:
      return zlibDecompress(body, declared ?? max, declared !== undefined, dictionary)
    case CompressionType.BZip2:
      return declared !== undefined ? bzip2Decompress(body, declared) : bzip2DecompressUnknownSize(body, max)
    case CompressionType.LZ4:
    case CompressionType.LZ4HC:
      return lz4Decompress(body, declared!, dictionary, scratch)
    default:
      throw unsupported(type)
  }
}

export interface CompressOptions {
  /** Only v2 framing (fv ≥ 2) is produced for Zlib/BZip2/LZ4/LZ4HC. */
  formatVersion: number
  /**
   * RocksDB CompressionOptions::level; undefined or 32767 = codec default
   * (setting.ts effectiveLevel: ZSTD 3, Zlib Z_DEFAULT_COMPRESSION, LZ4
   * acceleration 1, LZ4HC 9).
   * LZ4 uses only negative levels (acceleration = -level) and LZ4HC only
   * positive ones (capped at 12), as RocksDB before 11.5 did; choosing the
   * type byte from the level (11.5+) is the caller's business.
   */
  level?: number
  /** Raw dictionary (ZSTD, Zlib, LZ4/LZ4HC; ignored for Snappy and BZip2). */
  dictionary?: Uint8Array
  /** ZSTD content checksum (CompressionOptions::checksum). */
  zstdChecksum?: boolean
  /** LZ4 without a dictionary compressed one-shot, as RocksDB 10.8+ does (lz4.ts). */
  lz4OneShot?: boolean
  /** CompressionOptions::strategy: zlib's deflate strategy, which no other codec takes (as in RocksDB). */
  strategy?: number
}

/**
 * Compress a raw block into the payload RocksDB would store for `type`
 * (framing included). kNoCompression returns `raw` itself.
 */
export function compressBlock(type: number, raw: Uint8Array, opts: CompressOptions): Uint8Array {
  const level = effectiveLevel(type, opts.level)
  const v2 = compressFormatVersion(opts.formatVersion) === 2
  switch (type) {
    case CompressionType.None:
      return raw
    case CompressionType.Snappy:
      return snappyCompress(raw)
    case CompressionType.ZSTD:
    case CompressionType.ZSTDNotFinal:
      return withSizePrefix(
        raw.length,
        zstdCompress(raw, {
          level: level!,
          checksum: opts.zstdChecksum ?? false,
          dictionary: opts.dictionary,
        }),
      )
  }
  if (!v2 && type >= CompressionType.Zlib && type <= CompressionType.LZ4HC) {
    throw new NotSupportedError(`compressing ${compressionTypeName(type)} with format_version ${opts.formatVersion} framing is not supported`)
  }
  switch (type) {
    case CompressionType.Zlib:
      return withSizePrefix(raw.length, zlibCompress(raw, { level: level!, dictionary: opts.dictionary, strategy: opts.strategy }))
    case CompressionType.BZip2:
      return withSizePrefix(raw.length, bzip2Compress(raw))
    case CompressionType.LZ4:
      return withSizePrefix(
        raw.length,
        lz4Compress(raw, {
          hc: false,
          level: 0,
          acceleration: level! < 0 ? -level! : 1,
          dictionary: opts.dictionary,
          oneShot: opts.lz4OneShot,
        }),
      )
    case CompressionType.LZ4HC:
      return withSizePrefix(
        raw.length,
        lz4Compress(raw, {
          hc: true,
          level: level! > 0 ? Math.min(level!, 12) : 9,
          acceleration: 1,
          dictionary: opts.dictionary,
        }),
      )
    default:
      throw unsupported(type)
  }
}

function withSizePrefix(size: number, body: Uint8Array): Uint8Array {
  const prefix = encodeVarint(size)
  const out = new Uint8Array(prefix.length + body.length)
  out.set(prefix, 0)
  out.set(body, prefix.length)
  return out
}
