/**
 * BZip2 adapter (type 0x03): a complete bzip2 stream ("BZh1", since RocksDB
 * compresses with blockSize100k = 1), through the system libbz2.so.1.0 via
 * koffi (~48 MB/s decoding, 3× the pure-JS decoders). RocksDB stores but
 * ignores a dictionary for BZip2.
 */
import { allocateInArenasBelow } from '../util/malloc.js'
import { loadLibrary } from './native.js'
import { allocOutput, OutputOverflow, trimmed } from './output.js'

type Fn = (...args: unknown[]) => number

const BZ_OK = 0
const BZ_OUTBUFF_FULL = -8
const BZ_ERRORS: Record<number, string> = {
  [-1]: 'BZ_SEQUENCE_ERROR',
  [-2]: 'BZ_PARAM_ERROR',
  [-3]: 'BZ_MEM_ERROR',
  [-4]: 'BZ_DATA_ERROR (stream is corrupt)',
  [-5]: 'BZ_DATA_ERROR_MAGIC (not a bzip2 stream)',
  [-7]: 'BZ_UNEXPECTED_EOF (stream is truncated)',
  [-8]: 'BZ_OUTBUFF_FULL',
  [-9]: 'BZ_CONFIG_ERROR',
}
/** libbz2 sizes are unsigned int. */
const BZ_MAX_SIZE = 0xffffffff

/**
 * libbz2 allocates its state on every call: at blockSize100k 1, three arrays of 400,000, 400,136 and
 * 262,148 bytes to compress, 400,000 (and 64 KiB) to decompress. Over glibc's mmap threshold
 * (128 KiB, bin/run.cjs's shebang) each was mapped and unmapped for every block, ~250 page faults a
 * block: `sst-dump --command=recompress` (every codec) of an 8 MB file took 43,800 faults and 3.61 s
 * of CPU, with them from malloc's arenas 16,900 and 3.11 s (commit bcfa380, 2026-12-07). Where the
 * thresholds are glibc's own (a library's host), glibc raises its threshold itself.
 */
const BZIP2_STATE_BYTES = 512 << 10

let api: { decompress: Fn; compress: Fn } | undefined

function bz2() {
  if (api) return api
  allocateInArenasBelow(BZIP2_STATE_BYTES)
  const lib = loadLibrary('BZip2 (libbz2.so.1.0)', ['libbz2.so.1.0', 'libbz2.so.1', 'libbz2.so'])
  // destLen is an in/out unsigned int*: passed as a 1-element Uint32Array.
  api = {
    decompress: lib.func('int BZ2_bzBuffToBuffDecompress(void *dest, void *destLen, const void *source, unsigned int sourceLen, int small, int verbosity)'),
    compress: lib.func(
      'int BZ2_bzBuffToBuffCompress(void *dest, void *destLen, const void *source, unsigned int sourceLen, int blockSize100k, int verbosity, int workFactor)',
    ),
  }
  return api
}

function bzError(rc: number): Error {
  return new Error(BZ_ERRORS[rc] ?? `libbz2 error ${rc}`)
}

/** Decode into exactly `size` bytes of space (v2 framing: size known). */
export function bzip2Decompress(src: Uint8Array, size: number): Uint8Array {
  const out = tryDecompress(src, size)
  if (out === undefined) throw new OutputOverflow(size)
  return out
}

/**
 * Decode a stream of unknown size (v1 framing), never producing more than
 * `limit` bytes. libbz2's one-shot API cannot resume, so each retry decodes
 * from the start with twice the space; bzip2 v1 blocks are rare enough.
 */
export function bzip2DecompressUnknownSize(src: Uint8Array, limit: number): Uint8Array {
  let capacity = Math.min(limit, Math.max(64 * 1024, src.length * 8))
  for (;;) {
    const out = tryDecompress(src, capacity)
    if (out !== undefined) return out
    if (capacity >= limit) throw new OutputOverflow(limit)
    capacity = Math.min(limit, capacity * 2)
  }
}

/** undefined when the output does not fit in `capacity`. */
function tryDecompress(src: Uint8Array, capacity: number): Uint8Array | undefined {
  if (capacity > BZ_MAX_SIZE || src.length > BZ_MAX_SIZE) throw new Error('size beyond libbz2 limits')
  // koffi passes an empty array as NULL, which libbz2 rejects (BZ_PARAM_ERROR).
  const dst = allocOutput(Math.max(1, capacity))
  const destLen = Uint32Array.of(capacity)
  const rc = bz2().decompress(dst, destLen, nonEmpty(src), src.length, 0, 0)
  if (rc === BZ_OUTBUFF_FULL) return undefined
  if (rc !== BZ_OK) throw bzError(rc)
  return destLen[0] === dst.length ? dst : dst.subarray(0, destLen[0])
}

const ONE_BYTE = new Uint8Array(1)

/** A non-NULL pointer for a possibly empty input (its length is passed separately). */
function nonEmpty(b: Uint8Array): Uint8Array {
  return b.length > 0 ? b : ONE_BYTE
}

/** BZ2_bzBuffToBuffCompress with RocksDB's blockSize100k = 1, workFactor = 30. */
export function bzip2Compress(raw: Uint8Array): Uint8Array {
  if (raw.length > BZ_MAX_SIZE) throw new RangeError(`BZip2 cannot compress ${raw.length} bytes`)
  // libbz2 documents 1% + 600 bytes as always sufficient.
  const capacity = raw.length + Math.ceil(raw.length / 100) + 600
  const dst = allocOutput(capacity)
  const destLen = Uint32Array.of(capacity)
  const rc = bz2().compress(dst, destLen, nonEmpty(raw), raw.length, 1, 0, 30)
  if (rc !== BZ_OK) throw bzError(rc)
  return trimmed(dst, destLen[0])
}
