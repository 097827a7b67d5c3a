/**
 * LZ4 / LZ4HC adapter (types 0x04 / 0x05): the LZ4 *block* format (not the
 * LZ4 frame format); both types share it, only the compressor differs.
 * Uses the system liblz4.so.1 through koffi (measured ~2.9 GB/s decoding).
 *
 * A dictionary acts as a prefix the block may reference (LZ4 only ever uses
 * its last 64 KiB); RocksDB decodes with LZ4_setStreamDecode +
 * LZ4_decompress_safe_continue, which is equivalent to
 * LZ4_decompress_safe_usingDict.
 */
import type { LibraryHandle } from 'koffi'
import { copyToNative, koffi, loadLibrary } from './native.js'
import { allocOutput, scratchBytes, trimmed, type Scratch } from './output.js'

/** LZ4_MAX_INPUT_SIZE; LZ4 sizes are C ints. */
const LZ4_MAX_SIZE = 0x7e000000
/** LZ4_ACCELERATION_MAX (RocksDB clamps to it as well). */
const LZ4_MAX_ACCELERATION = 65537

/** koffi's type for a bound C function (its arguments and result are not typed). */
type Fn = ReturnType<LibraryHandle['func']>

interface Lz4Api {
  decompressSafe: Fn
  decompressSafeUsingDict: Fn
  compressFast: Fn
  compressHC: Fn
  createStream: Fn
  freeStream: Fn
  loadDict: Fn
  compressFastContinue: Fn
  createStreamHC: Fn
  freeStreamHC: Fn
  resetStreamHCFast: Fn
  loadDictHC: Fn
  compressHCContinue: Fn
}

let api: Lz4Api | undefined

function lz4(): Lz4Api {
  if (api) return api
  const lib = loadLibrary('LZ4 (liblz4.so.1)', ['liblz4.so.1', 'liblz4.so'])
  api = {
    decompressSafe: lib.func('int LZ4_decompress_safe(const void *src, void *dst, int srcSize, int dstCapacity)'),
    decompressSafeUsingDict: lib.func(
      'int LZ4_decompress_safe_usingDict(const void *src, void *dst, int srcSize, int dstCapacity, const void *dict, int dictSize)',
    ),
    compressFast: lib.func('int LZ4_compress_fast(const void *src, void *dst, int srcSize, int dstCapacity, int acceleration)'),
    compressHC: lib.func('int LZ4_compress_HC(const void *src, void *dst, int srcSize, int dstCapacity, int level)'),
    createStream: lib.func('void *LZ4_createStream(void)'),
    freeStream: lib.func('int LZ4_freeStream(void *stream)'),
    loadDict: lib.func('int LZ4_loadDict(void *stream, const void *dict, int dictSize)'),
    compressFastContinue: lib.func('int LZ4_compress_fast_continue(void *stream, const void *src, void *dst, int srcSize, int dstCapacity, int acceleration)'),
    createStreamHC: lib.func('void *LZ4_createStreamHC(void)'),
    freeStreamHC: lib.func('int LZ4_freeStreamHC(void *stream)'),
    resetStreamHCFast: lib.func('void LZ4_resetStreamHC_fast(void *stream, int level)'),
    loadDictHC: lib.func('int LZ4_loadDictHC(void *stream, const void *dict, int dictSize)'),
    compressHCContinue: lib.func('int LZ4_compress_HC_continue(void *stream, const void *src, void *dst, int srcSize, int dstCapacity)'),
  }
  return api
}

/** Decode an LZ4 block into exactly `size` bytes of space. */
export function lz4Decompress(src: Uint8Array, size: number, dictionary?: Uint8Array, scratch?: Scratch): Uint8Array {
  if (size > LZ4_MAX_SIZE || src.length > LZ4_MAX_SIZE) throw new Error(`size ${size} is beyond LZ4's limit`)
  const f = lz4()
  const dst = scratch ? scratchBytes(scratch, size) : allocOutput(size)
  const n: number =
    dictionary && dictionary.length > 0
      ? f.decompressSafeUsingDict(src, dst, src.length, size, dictionary, dictionary.length)
      : f.decompressSafe(src, dst, src.length, size)
  // LZ4 reports -(position of the error + 1); it also fails when the output
  // would not fit in `size` bytes, which it does not distinguish.
  if (n < 0) throw new Error(`malformed input or output larger than ${size} bytes (error at input byte ${-n - 1})`)
  return n === size ? dst : dst.subarray(0, n)
}

/** LZ4_compressBound. */
function bound(n: number): number {
  return n + Math.floor(n / 255) + 16
}

export interface Lz4CompressOptions {
  /** true: LZ4HC at `level`; false: LZ4 fast at `acceleration`. */
  hc: boolean
  level: number
  acceleration: number
  dictionary?: Uint8Array
}

/** Compress one LZ4 block the way RocksDB does (stream API when there is a dictionary). */
export function lz4Compress(raw: Uint8Array, opts: Lz4CompressOptions): Uint8Array {
  if (raw.length > LZ4_MAX_SIZE) throw new RangeError(`LZ4 cannot compress ${raw.length} bytes`)
  const f = lz4()
  const dst = allocOutput(bound(raw.length))
  const accel = Math.min(Math.max(1, opts.acceleration), LZ4_MAX_ACCELERATION)
  const dict = opts.dictionary && opts.dictionary.length > 0 ? opts.dictionary : undefined
  let n: number
  if (!dict) {
    n = opts.hc ? f.compressHC(raw, dst, raw.length, dst.length, opts.level) : f.compressFast(raw, dst, raw.length, dst.length, accel)
  } else {
    n = compressWithDict(f, raw, dst, dict, opts.hc, opts.hc ? opts.level : accel)
  }
  if (n <= 0) throw new Error(`LZ4 compression failed (${n})`)
  return trimmed(dst, n)
}

function compressWithDict(f: Lz4Api, raw: Uint8Array, dst: Uint8Array, dict: Uint8Array, hc: boolean, param: number): number {
  // The stream keeps pointers into the dictionary, so it lives in native memory.
  const k = koffi()
  const dictPtr = copyToNative(dict)
  const stream: unknown = hc ? f.createStreamHC() : f.createStream()
  try {
    if (hc) {
      f.resetStreamHCFast(stream, param)
      f.loadDictHC(stream, dictPtr, dict.length)
      return f.compressHCContinue(stream, raw, dst, raw.length, dst.length)
    }
    f.loadDict(stream, dictPtr, dict.length)
    return f.compressFastContinue(stream, raw, dst, raw.length, dst.length, param)
  } finally {
    if (hc) f.freeStreamHC(stream)
    else f.freeStream(stream)
    k.free(dictPtr)
  }
}
