/**
 * Zlib adapter (type 0x02): raw deflate (no zlib/gzip header), RocksDB's
 * default window_bits = -14. Node's default inflate window (15) accepts any
 * raw stream with a window ≤ 32 KiB, so it also reads files written with a
 * non-default window_bits.
 */
import zlib from 'node:zlib'
import { OutputOverflow, plainBytes } from './output.js'

/**
 * Inflate `src`, producing at most `limit` bytes. With a known size, pass it
 * as `limit`: Node then decodes into a single buffer of that size (no
 * concatenation) and stops as soon as the output would exceed it.
 */
export function zlibDecompress(src: Uint8Array, limit: number, known: boolean, dictionary?: Uint8Array): Uint8Array {
  const opts: zlib.ZlibOptions = {
    // Node requires both to be ≥ 1 / ≥ 64; a zero-length output still works.
    maxOutputLength: Math.max(1, limit),
    chunkSize: known ? Math.max(64, limit) : 64 * 1024,
  }
  if (dictionary && dictionary.length > 0) opts.dictionary = dictionary
  try {
    return plainBytes(zlib.inflateRawSync(src, opts))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new OutputOverflow(limit)
    throw err
  }
}

export interface ZlibCompressOptions {
  level: number
  dictionary?: Uint8Array
}

/** deflateInit2(level, Z_DEFLATED, -14, memLevel 8, Z_DEFAULT_STRATEGY) as RocksDB. */
export function zlibCompress(raw: Uint8Array, opts: ZlibCompressOptions): Uint8Array {
  const zopts: zlib.ZlibOptions = {
    level: opts.level,
    windowBits: 14,
    memLevel: 8,
    strategy: zlib.constants.Z_DEFAULT_STRATEGY,
  }
  if (opts.dictionary && opts.dictionary.length > 0) zopts.dictionary = opts.dictionary
  return plainBytes(zlib.deflateRawSync(raw, zopts))
}
