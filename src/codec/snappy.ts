/**
 * Snappy adapter (type 0x01): raw Snappy format, whose own varint32 preamble
 * gives the uncompressed length (RocksDB adds no prefix). RocksDB stores but
 * ignores a dictionary for Snappy, so there is no dictionary parameter here.
 *
 * Both directions use the system libsnappy, through the kernels' addons (native/addon/sstkit.c
 * decodes, native/addon/codec.c encodes), else through koffi, when it loads.
 * Decoding into a reused buffer measured ~730 MB/s on the bench file's 4 KiB
 * blocks against ~470 MB/s for the `snappy` package, which always allocates
 * its output. Encoding through libsnappy (snappy_compress = RawCompress, as
 * RocksDB's Snappy_Compress) gives RocksDB's bytes where the package (a Rust
 * port) gives other, slightly larger ones. The package is the fallback.
 */
import { createRequire } from 'node:module'
import { ADDON_MISSING_LIBRARY, type KernelAddon, kernelAddon } from './addon.js'
import { type SnappyCompression, snappyCompression } from './kernel.js'
import { koffi } from './native.js'
import { allocOutput, plainBytes, scratchBytes, trimmed, type Scratch } from './output.js'

// Loaded on first use: a command that meets no Snappy block never pays for it.
const require = createRequire(import.meta.url)
let snappy: typeof import('snappy') | undefined
const lib = () => (snappy ??= require('snappy') as typeof import('snappy'))

type NativeCall = (src: Uint8Array, srcLen: number, dst: Uint8Array, dstLen: BigUint64Array) => number
interface NativeSnappy {
  uncompress: NativeCall
  compress: NativeCall
  maxCompressedLength: (n: number) => number | bigint
}
let nativeFn: NativeSnappy | null | undefined
/**
 * In/out length for the native call, reused (size_t*), written and read as two
 * 32-bit halves: a BigInt per call costs more than the little-endian split.
 */
const lengthCell = new BigUint64Array(1)
const lengthHalves = new Uint32Array(lengthCell.buffer)
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1

function setLength(n: number): void {
  if (LITTLE_ENDIAN && n <= 0xffffffff) {
    lengthHalves[0] = n
    lengthHalves[1] = 0
  } else lengthCell[0] = BigInt(n)
}

function getLength(): number {
  return LITTLE_ENDIAN && lengthHalves[1] === 0 ? lengthHalves[0] : Number(lengthCell[0])
}

function loadNative(): NativeSnappy | null {
  if (process.env.SSTKIT_NO_NATIVE_SNAPPY) return null
  for (const name of ['libsnappy.so.1', 'libsnappy.so']) {
    try {
      const lib = koffi().load(name)
      return {
        uncompress: lib.func('int snappy_uncompress(const void *src, size_t n, void *dst, void *dstLen)') as NativeCall,
        compress: lib.func('int snappy_compress(const void *src, size_t n, void *dst, void *dstLen)') as NativeCall,
        maxCompressedLength: lib.func('size_t snappy_max_compressed_length(size_t n)') as (n: number) => number,
      }
    } catch {
      // try the next name; no library at all means the package decodes
    }
  }
  return null
}

/** Which decoder `snappyDecompress` uses (for diagnostics and tests). */
export function snappyBackend(): string {
  if (nativeFn === undefined) nativeFn = loadNative()
  return nativeFn ? 'libsnappy' : 'snappy (npm)'
}

/** The addon snappyDecompress decodes through, decided on first use (the environment is read once, not per block). */
let addonChoice: KernelAddon | null | undefined
/** The addon snappyCompress compresses through, decided likewise. */
let compressionChoice: SnappyCompression | null | undefined

/**
 * Decode `src` whose preamble declares `declared` bytes. With `scratch`, the
 * result is a view into the scratch buffer, valid until its next use.
 */
export function snappyDecompress(src: Uint8Array, declared?: number, scratch?: Scratch): Uint8Array {
  // The kernel's addon decodes with the same libsnappy, without loading koffi.
  if (addonChoice === undefined) addonChoice = process.env.SSTKIT_NO_NATIVE_SNAPPY ? null : kernelAddon()
  const addon = nativeFn === undefined ? addonChoice : null
  if (addon && declared !== undefined) {
    const out = scratch ? scratchBytes(scratch, declared) : allocOutput(declared)
    const n = addon.snappyUncompress(src, out)
    if (n !== ADDON_MISSING_LIBRARY) {
      if (n < 0) throw new Error(n === -2 ? 'output larger than its preamble declares' : 'corrupt input')
      return n === out.length ? out : out.subarray(0, n)
    }
  }
  if (nativeFn === undefined) nativeFn = loadNative()
  if (nativeFn && declared !== undefined) {
    const out = scratch ? scratchBytes(scratch, declared) : allocOutput(declared)
    setLength(declared)
    const status = nativeFn.uncompress(src, src.length, out, lengthCell)
    // SNAPPY_OK = 0, SNAPPY_INVALID_INPUT = 1, SNAPPY_BUFFER_TOO_SMALL = 2
    if (status !== 0) throw new Error(status === 2 ? 'output larger than its preamble declares' : 'corrupt input')
    const n = getLength()
    return n === out.length ? out : out.subarray(0, n)
  }
  return snappyDecompressPackage(src)
}

/** The fallback decoder (the `snappy` package), exported so tests can hold both to the same output. */
export function snappyDecompressPackage(src: Uint8Array): Uint8Array {
  // copyOutputData: measured 735–1046 MB/s vs 289 MB/s with default options.
  const out = lib().uncompressSync(src, { copyOutputData: true, asBuffer: true })
  if (typeof out === 'string') throw new Error('snappy returned a string') // unreachable with asBuffer
  return plainBytes(out)
}

/** snappy::RawCompress into MaxCompressedLength bytes, as RocksDB's Snappy_Compress. */
export function snappyCompress(raw: Uint8Array): Uint8Array {
  // The codec kernel's addon compresses with the same libsnappy, without loading koffi.
  if (compressionChoice === undefined) compressionChoice = process.env.SSTKIT_NO_NATIVE_SNAPPY ? null : snappyCompression()
  const addon = nativeFn === undefined ? compressionChoice : null
  if (addon) {
    const capacity = addon.snappyMaxCompressedLength(raw.length)
    if (capacity !== ADDON_MISSING_LIBRARY) {
      const out = allocOutput(capacity)
      const n = addon.snappyCompress(raw, out)
      // SNAPPY_BUFFER_TOO_SMALL cannot happen with MaxCompressedLength bytes.
      if (n < 0) throw new Error(`snappy_compress failed (${-n})`)
      return trimmed(out, n)
    }
  }
  if (nativeFn === undefined) nativeFn = loadNative()
  if (!nativeFn) return snappyCompressPackage(raw)
  const capacity = Number(nativeFn.maxCompressedLength(raw.length))
  const out = allocOutput(capacity)
  setLength(capacity)
  // SNAPPY_BUFFER_TOO_SMALL cannot happen with MaxCompressedLength bytes.
  const status = nativeFn.compress(raw.length > 0 ? raw : EMPTY_INPUT, raw.length, out, lengthCell)
  if (status !== 0) throw new Error(`snappy_compress failed (${status})`)
  return trimmed(out, getLength())
}

const EMPTY_INPUT = new Uint8Array(1)

/** The fallback encoder (the `snappy` package), exported so tests can check it decodes alike. */
export function snappyCompressPackage(raw: Uint8Array): Uint8Array {
  return plainBytes(lib().compressSync(raw, { copyOutputData: true }))
}
