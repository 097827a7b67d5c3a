/**
 * Zlib adapter (type 0x02): raw deflate (no zlib/gzip header), RocksDB's
 * default window_bits = -14. Node's default inflate window (15) accepts any
 * raw stream with a window ≤ 32 KiB, so it also reads files written with a
 * non-default window_bits.
 *
 * Compression goes through the system libz.so.1 (koffi), the library RocksDB
 * links: Node bundles Chromium's zlib fork, whose match finder differs, so its
 * deflate output is valid but not RocksDB's bytes (measured 0.6% larger on the
 * 7.8.3 fixtures, 1.3% with a dictionary). Without a system libz, Node's zlib
 * compresses (same format, other bytes).
 */
import zlib from 'node:zlib'
import { NotSupportedError } from '../format/errors.js'
import type { TypeObject } from 'koffi'
import { koffi, loadLibrary } from './native.js'
import { OutputOverflow, plainBytes } from './output.js'
import { COMPRESSION_DEFAULTS } from './setting.js'

/**
 * Inflate `src`, producing at most `limit` bytes. A block of known size goes through the system libz
 * (the library RocksDB's Zlib_Uncompress calls, one reused stream): Node's inflateRawSync makes a
 * new stream and its JavaScript objects per call, 2.8x RocksDB's time on 4 KiB blocks (docs/cpu.md).
 * Anything but a clean end of stream is decoded again by Node, whose messages the errors keep. With a known size, pass it
 * as `limit`: Node then decodes into a single buffer of that size (no
 * concatenation) and stops as soon as the output would exceed it.
 */
export function zlibDecompress(src: Uint8Array, limit: number, known: boolean, dictionary?: Uint8Array): Uint8Array {
  if (known) {
    const out = inflateWithLibz(src, limit, dictionary)
    if (out) return out
  }
  return inflateWithNode(src, limit, known, dictionary)
}

function inflateWithNode(src: Uint8Array, limit: number, known: boolean, dictionary?: Uint8Array): Uint8Array {
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
  /** deflate's strategy (CompressionOptions::strategy; default Z_DEFAULT_STRATEGY, 0). */
  strategy?: number
}

/** RocksDB's Zlib_Compress parameters (CompressionOptions defaults; memLevel is fixed). */
const WINDOW_BITS = -14
const MEM_LEVEL = 8
const Z_DEFLATED = 8
const Z_FINISH = 4
const Z_OK = 0
const Z_STREAM_END = 1

/** koffi's type for a bound C function (its arguments and result are not typed). */
type Fn = (...args: unknown[]) => unknown

interface Libz {
  version: string
  streamType: TypeObject
  streamBytes: number
  availIn: number
  availOut: number
  nextIn: number
  nextOut: number
  deflateInit2: Fn
  setDictionary: Fn
  bound: Fn
  deflate: Fn
  reset: Fn
  inflateInit2: Fn
  inflateSetDictionary: Fn
  inflate: Fn
  inflateReset: Fn
}

let libz: Libz | null | undefined

/** The system libz, or null when it cannot be loaded (Node's zlib compresses then). */
function systemZlib(): Libz | null {
  if (libz !== undefined) return libz
  try {
    const lib = loadLibrary('zlib (libz.so.1)', ['libz.so.1', 'libz.so'], { deep: true })
    const k = koffi()
    // z_stream as zlib.h declares it; koffi lays it out for this platform (uLong is 4 bytes on Windows).
    const streamType = k.struct({
      next_in: 'void *',
      avail_in: 'uint',
      total_in: 'ulong',
      next_out: 'void *',
      avail_out: 'uint',
      total_out: 'ulong',
      msg: 'void *',
      state: 'void *',
      zalloc: 'void *',
      zfree: 'void *',
      opaque: 'void *',
      data_type: 'int',
      adler: 'ulong',
      reserved: 'ulong',
    })
    const version = lib.func('const char *zlibVersion(void)')() as string
    libz = {
      version,
      streamType,
      streamBytes: k.sizeof(streamType),
      nextIn: k.offsetof(streamType, 'next_in'),
      availIn: k.offsetof(streamType, 'avail_in'),
      nextOut: k.offsetof(streamType, 'next_out'),
      availOut: k.offsetof(streamType, 'avail_out'),
      deflateInit2: lib.func(
        'int deflateInit2_(void *strm, int level, int method, int windowBits, int memLevel, int strategy, const char *version, int stream_size)',
      ) as Fn,
      setDictionary: lib.func('int deflateSetDictionary(void *strm, const void *dictionary, uint dictLength)') as Fn,
      bound: lib.func('ulong deflateBound(void *strm, ulong sourceLen)') as Fn,
      deflate: lib.func('int deflate(void *strm, int flush)') as Fn,
      reset: lib.func('int deflateReset(void *strm)') as Fn,
      inflateInit2: lib.func('int inflateInit2_(void *strm, int windowBits, const char *version, int stream_size)') as Fn,
      inflateSetDictionary: lib.func('int inflateSetDictionary(void *strm, const void *dictionary, uint dictLength)') as Fn,
      inflate: lib.func('int inflate(void *strm, int flush)') as Fn,
      inflateReset: lib.func('int inflateReset(void *strm)') as Fn,
    }
  } catch (e) {
    if (!(e instanceof NotSupportedError)) throw e
    libz = null
  }
  return libz
}

/**
 * Native memory one thread deflates with: one z_stream per level (deflateReset
 * puts it back in deflateInit2's state without reallocating), and input and
 * output buffers that grow. Module state is per thread (each worker loads its own copy).
 */
interface DeflateState {
  streams: Map<number, unknown>
  input: unknown
  inputBytes: number
  output: unknown
  outputBytes: number
}

let state: DeflateState | undefined

function streamFor(z: Libz, s: DeflateState, level: number, strategy: number): unknown {
  // One stream per level and strategy (levels -1..9, strategies 0..4).
  const key = (level + 1) * 8 + strategy
  let strm = s.streams.get(key)
  if (strm === undefined) {
    const k = koffi()
    strm = k.alloc(z.streamType, 1)
    // zalloc / zfree / opaque must be NULL: zlib then uses malloc / free.
    new Uint8Array(k.view(strm, z.streamBytes)).fill(0)
    const rc = z.deflateInit2(strm, level, Z_DEFLATED, WINDOW_BITS, MEM_LEVEL, strategy, z.version, z.streamBytes)
    if (rc !== Z_OK) {
      k.free(strm)
      throw new Error(`deflateInit2 failed (${rc}) at level ${level}, strategy ${strategy}`)
    }
    s.streams.set(key, strm)
  } else {
    z.reset(strm)
  }
  return strm
}

/** Grow a native buffer of `have` bytes to at least `need`. */
function ensureNative(ptr: unknown, have: number, need: number): { ptr: unknown; bytes: number } {
  if (ptr && have >= need) return { ptr, bytes: have }
  const k = koffi()
  if (ptr) k.free(ptr)
  const bytes = Math.max(need, have * 2, 64 * 1024)
  return { ptr: k.alloc('uint8_t', bytes), bytes }
}

/**
 * deflateInit2(level, Z_DEFLATED, -14, memLevel 8, strategy (default Z_DEFAULT_STRATEGY)), the
 * dictionary through deflateSetDictionary, then one deflate(Z_FINISH) into
 * deflateBound bytes: RocksDB's Zlib_Compress.
 */
export function zlibCompress(raw: Uint8Array, opts: ZlibCompressOptions): Uint8Array {
  const z = systemZlib()
  if (!z) return zlibCompressWithNode(raw, opts)
  if (raw.length > 0xffffffff) throw new RangeError(`zlib cannot compress ${raw.length} bytes`)
  const k = koffi()
  state ??= { streams: new Map(), input: null, inputBytes: 0, output: null, outputBytes: 0 }
  const s = state
  const strm = streamFor(z, s, opts.level, opts.strategy ?? COMPRESSION_DEFAULTS.strategy)
  const dict = opts.dictionary
  if (dict && dict.length > 0) {
    const rc = z.setDictionary(strm, dict, dict.length)
    if (rc !== Z_OK) throw new Error(`deflateSetDictionary failed (${rc})`)
  }
  const upper = Number(z.bound(strm, raw.length))
  const input = ensureNative(s.input, s.inputBytes, Math.max(1, raw.length))
  s.input = input.ptr
  s.inputBytes = input.bytes
  const output = ensureNative(s.output, s.outputBytes, upper)
  s.output = output.ptr
  s.outputBytes = output.bytes
  new Uint8Array(k.view(s.input, raw.length)).set(raw)
  k.encode(strm, z.nextIn, 'void *', s.input)
  k.encode(strm, z.availIn, 'uint', raw.length)
  k.encode(strm, z.nextOut, 'void *', s.output)
  k.encode(strm, z.availOut, 'uint', upper)
  const rc = z.deflate(strm, Z_FINISH)
  // deflateBound always suffices, so anything but Z_STREAM_END is a library failure.
  if (rc !== Z_STREAM_END) throw new Error(`deflate failed (${rc})`)
  const left = k.decode(strm, z.availOut, 'uint') as number
  return new Uint8Array(k.view(s.output, upper - left)).slice()
}

/** The largest block inflated through libz; larger ones (never a real block) go through Node. */
const LIBZ_MAX_OUTPUT = 64 << 20

/** One thread's inflate stream (raw deflate, a 32 KiB window: any window RocksDB writes) and its buffers. */
let inflater: { strm: unknown; input: unknown; inputBytes: number; output: unknown; outputBytes: number } | null | undefined

/** `src` inflated into exactly `size` bytes or fewer through libz; null where libz is absent or the stream did not end cleanly. */
function inflateWithLibz(src: Uint8Array, size: number, dictionary?: Uint8Array): Uint8Array | null {
  if (size > LIBZ_MAX_OUTPUT || src.length === 0) return null
  const z = systemZlib()
  if (!z || inflater === null) return null
  const k = koffi()
  if (inflater === undefined) {
    const strm = k.alloc(z.streamType, 1)
    new Uint8Array(k.view(strm, z.streamBytes)).fill(0)
    if (z.inflateInit2(strm, -15, z.version, z.streamBytes) !== Z_OK) {
      k.free(strm)
      inflater = null
      return null
    }
    inflater = { strm, input: null, inputBytes: 0, output: null, outputBytes: 0 }
  } else {
    z.inflateReset(inflater.strm)
  }
  const s = inflater
  if (dictionary && dictionary.length > 0 && z.inflateSetDictionary(s.strm, dictionary, dictionary.length) !== Z_OK) return null
  const input = ensureNative(s.input, s.inputBytes, src.length)
  s.input = input.ptr
  s.inputBytes = input.bytes
  const output = ensureNative(s.output, s.outputBytes, Math.max(1, size))
  s.output = output.ptr
  s.outputBytes = output.bytes
  new Uint8Array(k.view(s.input, src.length)).set(src)
  k.encode(s.strm, z.nextIn, 'void *', s.input)
  k.encode(s.strm, z.availIn, 'uint', src.length)
  k.encode(s.strm, z.nextOut, 'void *', s.output)
  k.encode(s.strm, z.availOut, 'uint', size)
  if (z.inflate(s.strm, Z_FINISH) !== Z_STREAM_END) return null
  const left = k.decode(s.strm, z.availOut, 'uint') as number
  return new Uint8Array(k.view(s.output, size - left)).slice()
}

/** The fallback: Node's bundled zlib with RocksDB's parameters (valid output, other bytes). Exported for tests. */
export function zlibCompressWithNode(raw: Uint8Array, opts: ZlibCompressOptions): Uint8Array {
  const zopts: zlib.ZlibOptions = {
    level: opts.level,
    windowBits: -WINDOW_BITS,
    memLevel: MEM_LEVEL,
    strategy: opts.strategy ?? COMPRESSION_DEFAULTS.strategy,
  }
  if (opts.dictionary && opts.dictionary.length > 0) zopts.dictionary = opts.dictionary
  return plainBytes(zlib.deflateRawSync(raw, zopts))
}

/** Which library `zlibCompress` uses (for diagnostics and tests). */
export function zlibCompressBackend(): string {
  return systemZlib() ? `libz ${systemZlib()!.version}` : `node:zlib ${process.versions.zlib}`
}
