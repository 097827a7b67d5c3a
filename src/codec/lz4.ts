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
import { ADDON_MISSING_LIBRARY, kernelAddon } from './addon.js'
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
  sizeofState: Fn
  createStream: Fn
  initStream: Fn
  loadDict: Fn
  compressFastContinue: Fn
  compressFast: Fn
  createStreamHC: Fn
  resetStreamHC: Fn
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
    sizeofState: lib.func('int LZ4_sizeofState(void)'),
    createStream: lib.func('void *LZ4_createStream(void)'),
    initStream: lib.func('void *LZ4_initStream(void *buffer, size_t size)'),
    loadDict: lib.func('int LZ4_loadDict(void *stream, const void *dict, int dictSize)'),
    compressFastContinue: lib.func('int LZ4_compress_fast_continue(void *stream, const void *src, void *dst, int srcSize, int dstCapacity, int acceleration)'),
    compressFast: lib.func('int LZ4_compress_fast(const void *src, void *dst, int srcSize, int dstCapacity, int acceleration)'),
    createStreamHC: lib.func('void *LZ4_createStreamHC(void)'),
    resetStreamHC: lib.func('void LZ4_resetStreamHC(void *stream, int level)'),
    loadDictHC: lib.func('int LZ4_loadDictHC(void *stream, const void *dict, int dictSize)'),
    compressHCContinue: lib.func('int LZ4_compress_HC_continue(void *stream, const void *src, void *dst, int srcSize, int dstCapacity)'),
  }
  return api
}

/** Decode an LZ4 block into exactly `size` bytes of space. */
export function lz4Decompress(src: Uint8Array, size: number, dictionary?: Uint8Array, scratch?: Scratch): Uint8Array {
  if (size > LZ4_MAX_SIZE || src.length > LZ4_MAX_SIZE) throw new Error(`size ${size} is beyond LZ4's limit`)
  const dst = scratch ? scratchBytes(scratch, size) : allocOutput(size)
  const dict = dictionary && dictionary.length > 0 ? dictionary : null
  // The kernel's addon decodes with the same liblz4, without loading koffi (a reader's index block, say).
  const addon = kernelAddon()
  let n = addon ? addon.lz4Decompress(src, dst, dict) : ADDON_MISSING_LIBRARY
  if (n === ADDON_MISSING_LIBRARY) {
    const f = lz4()
    n = dict ? f.decompressSafeUsingDict(src, dst, src.length, size, dict, dict.length) : f.decompressSafe(src, dst, src.length, size)
  }
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
  /**
   * LZ4 fast without a dictionary through the one-shot LZ4_compress_fast, as RocksDB 10.8 and
   * later compress (BuiltinLZ4CompressorV2NoDict); its bytes differ from the stream's on small inputs.
   */
  oneShot?: boolean
}

/**
 * The native state one thread compresses with: RocksDB creates a fresh stream
 * per block (LZ4_createStream / LZ4_createStreamHC); a stream re-initialised
 * in place (LZ4_initStream, LZ4_resetStreamHC) is in that same state, without
 * the allocation. The dictionary is copied once to native memory, because
 * the stream keeps pointers into it.
 */
interface StreamState {
  fast: unknown
  hc: unknown
  fastBytes: number
  dictSource: Uint8Array | undefined
  dictPtr: unknown
}

// Module state is per thread: each worker loads its own copy of this module.
let streams: StreamState | undefined

function streamState(f: Lz4Api): StreamState {
  streams ??= { fast: f.createStream(), hc: f.createStreamHC(), fastBytes: f.sizeofState(), dictSource: undefined, dictPtr: null }
  return streams
}

/** The native copy of `dict`, made once per dictionary object. */
function nativeDictionary(s: StreamState, dict: Uint8Array): unknown {
  if (s.dictSource !== dict) {
    if (s.dictPtr) koffi().free(s.dictPtr)
    s.dictPtr = copyToNative(dict)
    s.dictSource = dict
  }
  return s.dictPtr
}

/**
 * Compress one LZ4 block as RocksDB does (util/compression.h LZ4_Compress /
 * LZ4HC_Compress): always through a fresh stream, the dictionary (if any)
 * loaded with LZ4_loadDict / LZ4_loadDictHC, then LZ4_compress_fast_continue /
 * LZ4_compress_HC_continue into LZ4_compressBound bytes. On small inputs the
 * stream's match table differs from the one-shot LZ4_compress_fast's, so only
 * the stream gives RocksDB's bytes (before 10.8; `oneShot` for 10.8 and later without a dictionary).
 */
export function lz4Compress(raw: Uint8Array, opts: Lz4CompressOptions): Uint8Array {
  if (raw.length > LZ4_MAX_SIZE) throw new RangeError(`LZ4 cannot compress ${raw.length} bytes`)
  const f = lz4()
  const s = streamState(f)
  const dst = allocOutput(bound(raw.length))
  const dict = opts.dictionary && opts.dictionary.length > 0 ? opts.dictionary : undefined
  let n: number
  if (opts.hc) {
    // RocksDB: LZ4_createStreamHC, then LZ4_resetStreamHC(stream, level) (init + level).
    f.resetStreamHC(s.hc, opts.level)
    if (dict) f.loadDictHC(s.hc, nativeDictionary(s, dict), dict.length)
    n = f.compressHCContinue(s.hc, raw, dst, raw.length, dst.length)
  } else {
    const accel = Math.min(Math.max(1, opts.acceleration), LZ4_MAX_ACCELERATION)
    if (opts.oneShot && !dict) n = f.compressFast(raw, dst, raw.length, dst.length, accel)
    else {
      f.initStream(s.fast, s.fastBytes)
      if (dict) f.loadDict(s.fast, nativeDictionary(s, dict), dict.length)
      n = f.compressFastContinue(s.fast, raw, dst, raw.length, dst.length, accel)
    }
  }
  if (n <= 0) throw new Error(`LZ4 compression failed (${n})`)
  return trimmed(dst, n)
}
