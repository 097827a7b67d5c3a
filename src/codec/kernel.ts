/**
 * The codec kernel (native/codec-kernel.c, built by scripts/build-native.mjs into
 * dist/native/codec.node, a Node-API addon, and codec-kernel.so, which koffi loads where the
 * addon was not built or SSTKIT_NO_ADDON is set; the same calls either way): compresses and
 * round-trips a batch of blocks per call, as RocksDB's table builder and read
 * path do a block, and reports the thread CPU time the codec work took (see
 * docs/cpu.md). Its bytes are the JavaScript codecs' (the same zstd 1.5.7,
 * the same system liblz4 and libsnappy).
 *
 * Null where the library was not built or cannot load, for a codec it does
 * not do (zlib, bzip2, LZ4 one-shot, format_version 0/1 framing), or with
 * SSTKIT_NO_CODEC_KERNEL set: callers then compress through the JavaScript
 * codecs and time them with threadCpuMs() around the calls.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { CompressionType } from '../format/compression-type.js'
import { loadAddon } from '../util/addon.js'
import { koffi } from './native.js'

type CompressCall = (
  codec: unknown,
  src: Uint8Array,
  lens: Uint32Array,
  n: number,
  dst: Uint8Array,
  cap: number,
  outLens: Uint32Array,
  cpuNs: Float64Array,
) => number
type RoundTripCall = (
  codec: unknown,
  src: Uint8Array,
  lens: Uint32Array,
  sizes: Uint32Array,
  n: number,
  dst: Uint8Array,
  cap: number,
  raw: Uint8Array,
  cpuNs: Float64Array,
) => number

type ChecksumCall = (
  src: Uint8Array,
  lens: Uint32Array,
  raw: Uint8Array,
  rawLens: Uint32Array,
  n: number,
  dst: Uint8Array,
  cap: number,
  outLens: Uint32Array,
  cpuNs: Float64Array,
) => number

/** The kernel's calls, as native/addon/codec.c makes them (a codec is an External) and koffi's declarations below. */
export interface KernelCalls {
  checksumFrames: ChecksumCall
  abilities: number
  newCodec: (type: number, level: number, checksum: number, dict: Uint8Array | null, dictLength: number) => unknown
  freeCodec: (codec: unknown) => void
  splitCodec: (codec: unknown, minBatchNs: number) => number
  lendCores: (delta: number) => number
  spareCores: () => number
  handedBatches: () => number
  compress: CompressCall
  submit: (codec: unknown, src: Uint8Array, lens: Uint32Array, n: number) => number
  collect: (codec: unknown, dst: Uint8Array, cap: number, outLens: Uint32Array, cpuNs: Float64Array) => number
  roundTrip: RoundTripCall
  threadCpuNs: () => number
  contentChecksums: (raw: Uint8Array, lens: Uint32Array, n: number, cpuNs: Float64Array) => number
  zstdVersion: () => number
}

let loaded: KernelCalls | null | undefined

/** dist/native, from tsc's output (dist/codec), the sources (src/codec: tests) and the bundle (which re-points it). */
const ADDON = new URL('../../dist/native/codec.node', import.meta.url)
const LIBRARY = new URL('../../dist/native/codec-kernel.so', import.meta.url)

/** libsnappy's compression through the kernel's own libsnappy (the addon only): src/codec/snappy.ts. */
export interface SnappyCompression {
  /** snappy_max_compressed_length(n); ADDON_MISSING_LIBRARY (codec/addon.ts) without libsnappy. */
  snappyMaxCompressedLength(n: number): number
  /** snappy_compress of all of src into dst (at least that long): the bytes written, or -(snappy's status); ADDON_MISSING_LIBRARY without libsnappy. */
  snappyCompress(src: Uint8Array, dst: Uint8Array): number
}

/** The addon's calls, as they are (init() answered once). */
type AddonCalls = Omit<KernelCalls, 'abilities'> & SnappyCompression & { init(): number }

let loadedThrough: 'addon' | 'koffi' | null = null
let loadedAddon: AddonCalls | null = null

/** The kernel's calls of an addon, its abilities asked once. */
function fromAddon(addon: AddonCalls): KernelCalls {
  return { ...addon, abilities: addon.init() }
}

function load(): KernelCalls | null {
  loadedAddon = loadAddon<AddonCalls>(ADDON)
  if (loadedAddon) {
    loadedThrough = 'addon'
    return fromAddon(loadedAddon)
  }
  const lib = loadThroughKoffi()
  loadedThrough = lib ? 'koffi' : null
  return lib
}

/** The kernel through each way there is to load it, loaded anew (tests: both give the same results). */
export function codecKernelEachWay(): { addon: KernelCalls | null; koffi: KernelCalls | null } {
  const addon = loadAddon<AddonCalls>(ADDON)
  return { addon: addon && fromAddon(addon), koffi: loadThroughKoffi() }
}

/** Snappy compression through the codec addon; null where the kernel is not the addon (koffi's path, or none). */
export function snappyCompression(): SnappyCompression | null {
  if (loaded === undefined) loaded = load()
  return loadedAddon
}

function loadThroughKoffi(): KernelCalls | null {
  const path = fileURLToPath(LIBRARY)
  if (!existsSync(path)) return null
  try {
    const lib = koffi().load(path)
    const init = lib.func('int sstkit_codec_init(void)') as () => number
    return {
      abilities: init(),
      newCodec: lib.func('void *sstkit_codec_new(int type, int level, int checksum, const uint8_t *dict, uint32_t dictLen)') as KernelCalls['newCodec'],
      freeCodec: lib.func('void sstkit_codec_free(void *codec)') as KernelCalls['freeCodec'],
      splitCodec: lib.func('int sstkit_codec_split(void *codec, double minBatchNs)') as KernelCalls['splitCodec'],
      lendCores: lib.func('int sstkit_codec_lend_cores(int delta)') as KernelCalls['lendCores'],
      spareCores: lib.func('int sstkit_codec_spare_cores(void)') as KernelCalls['spareCores'],
      handedBatches: lib.func('double sstkit_codec_handed_batches(void)') as KernelCalls['handedBatches'],
      compress: lib.func(
        'int sstkit_compress_blocks(void *codec, const uint8_t *src, const uint32_t *lens, uint32_t n, uint8_t *dst, double cap, uint32_t *outLens, double *cpuNs)',
      ) as CompressCall,
      submit: lib.func('int sstkit_compress_submit(void *codec, const uint8_t *src, const uint32_t *lens, uint32_t n)') as KernelCalls['submit'],
      collect: lib.func('int sstkit_compress_collect(void *codec, uint8_t *dst, double cap, uint32_t *outLens, double *cpuNs)') as KernelCalls['collect'],
      roundTrip: lib.func(
        'int sstkit_round_trip_blocks(void *codec, const uint8_t *src, const uint32_t *lens, const uint32_t *sizes, uint32_t n, uint8_t *dst, double cap, const uint8_t *raw, double *cpuNs)',
      ) as RoundTripCall,
      threadCpuNs: lib.func('double sstkit_thread_cpu_ns(void)') as () => number,
      checksumFrames: lib.func(
        'int sstkit_checksum_frames(const uint8_t *src, const uint32_t *lens, const uint8_t *raw, const uint32_t *rawLens, uint32_t n, uint8_t *dst, double cap, uint32_t *outLens, double *cpuNs)',
      ) as ChecksumCall,
      contentChecksums: lib.func(
        'int sstkit_content_checksums(const uint8_t *raw, const uint32_t *lens, uint32_t n, double *cpuNs)',
      ) as KernelCalls['contentChecksums'],
      zstdVersion: lib.func('uint32_t sstkit_codec_zstd_version(void)') as () => number,
    }
  } catch {
    return null // another platform's build: the JavaScript codecs do the work
  }
}

function library(): KernelCalls | null {
  if (loaded === undefined) loaded = load()
  return loaded && !process.env.SSTKIT_NO_CODEC_KERNEL ? loaded : null
}

/** Whether the kernel is loaded here (diagnostics, tests). */
export function codecKernelLoaded(): boolean {
  return library() !== null
}

/** How the kernel was loaded in this thread: as the addon, through koffi, or not at all (diagnostics, tests). */
export function codecKernelPath(): 'addon' | 'koffi' | null {
  return library() ? loadedThrough : null
}

/**
 * This thread's CPU time in ms (CLOCK_THREAD_CPUTIME_ID through the kernel), or its wall
 * clock (performance.now) where the kernel is not available: what the JavaScript codecs are timed with.
 */
export function threadCpuMs(): number {
  // The clock is not a codec: SSTKIT_NO_CODEC_KERNEL leaves it (and reading process.env, microseconds
  // a call, is not done thousands of times a file).
  if (loaded === undefined) loaded = load()
  return loaded ? loaded.threadCpuNs() / 1e6 : performance.now()
}

/** Whether the kernel compresses `type` with these options here. */
function handles(lib: KernelCalls, type: number, formatVersion: number, lz4OneShot: boolean): boolean {
  switch (type) {
    case CompressionType.Snappy:
      return (lib.abilities & 1) !== 0
    case CompressionType.LZ4:
    case CompressionType.LZ4HC:
      return (lib.abilities & 2) !== 0 && formatVersion >= 2 && !(lz4OneShot && type === CompressionType.LZ4)
    case CompressionType.ZSTD:
      return (lib.abilities & 4) !== 0
    default:
      return false
  }
}

let helperThreads = false
let splitMinBatchMs = 0

/**
 * A batch is compressed on two threads only when the one before took this much CPU: zstd 3's
 * batches (~0.5 ms) went 10-15% slower split, zstd 12's (~6 ms) 16% faster by wall time and zstd
 * 19's (~40 ms) 41% (8 MB and 64 MB db_bench files, 2026-12-06).
 */
const SPLIT_MIN_BATCH_MS = 2

/**
 * Whether the codecs this thread creates from now on may use a lent core (lendCores) through a
 * helper thread of their own (native/codec-kernel.c sstkit_codec_split): a batch handed over
 * (KernelCodec.submit) while this thread goes on, and a batch of compress() on two threads when the
 * one before took at least `minBatchMs` of CPU. The same payloads; compressNs adds both threads' CPU.
 */
export function splitKernelCompression(on: boolean, minBatchMs = SPLIT_MIN_BATCH_MS): void {
  helperThreads = on
  splitMinBatchMs = minBatchMs
}

/**
 * Lend `cores` cores to the codecs' helper threads (negative: take them back), for the whole
 * process: a recompress lane with nothing left to do while others still compress, or one setting's
 * lane beside an idle core. A batch split or submitted holds one while its helper runs. The count
 * lent after (held or not); 0 where the kernel is not loaded.
 */
export function lendCores(cores: number): number {
  return library()?.lendCores(cores) ?? 0
}

/** The cores lent (lendCores) that no helper thread holds at this moment; 0 where the kernel is not loaded. */
export function spareCores(): number {
  // Asked per setting and batch (recompress): not through library(), which reads process.env.
  if (loaded === undefined) loaded = load()
  return loaded ? loaded.spareCores() : 0
}

/** Batches handed to the codecs' helper threads so far in this process, split or submitted (diagnostics, tests). */
export function handedBatches(): number {
  return library()?.handedBatches() ?? 0
}

// A codec not freed by close() (a writer abandoned on an error) is freed when collected.
const finalizer = new FinalizationRegistry<{ lib: KernelCalls; codec: unknown }>(({ lib, codec }) => lib.freeCodec(codec))

/** LZ4_compressBound / snappy's MaxCompressedLength / ZSTD_compressBound, each above n + n/6 + 64: room for one block's payload. */
function payloadBound(n: number): number {
  return n + Math.floor(n / 6) + 64
}

/**
 * One setting's native codec. compress() and roundTrip() take a batch of
 * blocks; the CPU each spent is added to compressNs / decompressNs.
 */
/**
 * The buffers a call gathers its blocks into and writes to: one set per thread (module state is
 * per thread), shared by every codec, as calls are synchronous: dozens of settings side by side
 * then hold one set, not one each.
 */
const scratch = {
  lens: new Uint32Array(64),
  sizes: new Uint32Array(64),
  input: new Uint8Array(0),
  raws: new Uint8Array(0),
  blocks: new Uint8Array(0),
  output: new Uint8Array(0),
}

/**
 * The blocks last laid end to end in scratch.blocks (gatherBlocks): recompress hands each batch to
 * every setting of a pass in turn, and each setting's compress (and its checksum twin's hashing)
 * gathers the same blocks, so they are copied once a batch rather than once a setting. Blocks are
 * never written once handed to a codec, so the same arrays hold the same bytes.
 */
let gathered: readonly Uint8Array[] = []

/** `blocks` laid end to end in scratch.blocks, unless they are the arrays already there. */
function gatherBlocks(blocks: readonly Uint8Array[]): Uint8Array {
  if (blocks.length === gathered.length && blocks.every((b, i) => b === gathered[i])) return scratch.blocks
  let total = 0
  for (const b of blocks) total += b.length
  if (scratch.blocks.length < total) scratch.blocks = new Uint8Array(Math.max(total, scratch.blocks.length * 2))
  const buf = scratch.blocks
  let at = 0
  for (const b of blocks) {
    buf.set(b, at)
    at += b.length
  }
  gathered = blocks.slice()
  return buf
}

export class KernelCodec {
  compressNs = 0
  /** The part of compressNs spent on the codec's helper thread (splitKernelCompression). */
  helperNs = 0
  decompressNs = 0
  private codec: unknown
  private readonly ns = new Float64Array(2)
  private readonly token = {}
  /** The two output buffers reused in turn (compress and withChecksum with `reuse`). */
  private readonly kept = [new Uint8Array(0), new Uint8Array(0)]
  private turn = 0
  /** The blocks of the batch out on the helper (submit), and room for their payloads. */
  private submitted = 0
  private submittedCap = 0

  private constructor(
    private readonly lib: KernelCalls,
    codec: unknown,
    /** Made with splitKernelCompression on: it may use a lent core. */
    private readonly helped: boolean,
  ) {
    this.codec = codec
    finalizer.register(this, { lib, codec }, this.token)
  }

  /**
   * The kernel's codec for a setting (`level` as codec/setting.ts effectiveLevel gives it, or
   * the JavaScript adapters take it), or null where the kernel does not do it.
   */
  static create(type: number, level: number, zstdChecksum: boolean, formatVersion: number, dictionary?: Uint8Array, lz4OneShot = false): KernelCodec | null {
    const lib = library()
    if (!lib || !handles(lib, type, formatVersion, lz4OneShot)) return null
    const dict = dictionary && dictionary.length > 0 ? dictionary : null
    const codec = lib.newCodec(type, level, zstdChecksum ? 1 : 0, dict, dict ? dict.length : 0)
    if (codec && helperThreads) lib.splitCodec(codec, splitMinBatchMs * 1e6)
    return codec ? new KernelCodec(lib, codec, helperThreads) : null
  }

  private gather(blocks: readonly Uint8Array[], into: 'input' | 'raws'): Uint8Array {
    let total = 0
    for (const b of blocks) total += b.length
    if (scratch[into].length < total) scratch[into] = new Uint8Array(Math.max(total, scratch[into].length * 2))
    const buf = scratch[into]
    let at = 0
    for (const b of blocks) {
      buf.set(b, at)
      at += b.length
    }
    return buf
  }

  private lengths(blocks: readonly Uint8Array[], which: 'lens' | 'sizes'): Uint32Array {
    if (scratch[which].length < blocks.length) scratch[which] = new Uint32Array(Math.max(blocks.length, scratch[which].length * 2))
    const a = scratch[which]
    for (let i = 0; i < blocks.length; i++) a[i] = blocks[i].length
    return a
  }

  /**
   * An array of at least `bytes` for a call's payloads: a new one, or with `reuse` one of this
   * codec's two, taken in turn (its payloads then last until the call after next).
   */
  private outputFor(bytes: number, reuse: boolean): Uint8Array {
    if (!reuse) return new Uint8Array(bytes)
    this.turn ^= 1
    if (this.kept[this.turn].length < bytes)
      this.kept[this.turn] = new Uint8Array(Math.max(bytes, this.kept[this.turn].length + (this.kept[this.turn].length >> 2)))
    return this.kept[this.turn]
  }

  /**
   * The framed payloads of `blocks`, RocksDB's framing included, each a view of one new array per
   * call (held by the caller as long as it likes), or with `reuse` of one of this codec's two
   * output arrays, valid until the call after next (no garbage per call: recompress compresses
   * each batch under dozens of settings).
   */
  compress(blocks: readonly Uint8Array[], reuse = false): Uint8Array[] {
    if (!this.codec) throw new Error('KernelCodec used after close()')
    const n = blocks.length
    if (n === 0) return []
    const src = gatherBlocks(blocks)
    const lens = this.lengths(blocks, 'lens')
    // Into a reused buffer, then copied out: a fresh one's pages would be faulted in inside the timed call.
    const output = scratchOutput(payloadsBound(blocks))
    const outLens = scratchSizes(n)
    const r = this.lib.compress(this.codec, src, lens, n, output, output.length, outLens, this.ns)
    return this.payloadsOf(r, n, outLens, reuse)
  }

  /** The `n` payloads a compressing call of the kernel left in scratch.output (returning `r`): its CPU counted, then copied out (`reuse`: as compress's). */
  private payloadsOf(r: number, n: number, outLens: Uint32Array, reuse: boolean): Uint8Array[] {
    this.compressNs += this.ns[0]
    this.helperNs += this.ns[1]
    if (r !== 0) throw new Error(`the codec kernel could not compress block ${-r - 1} of ${n}`)
    let used = 0
    for (let i = 0; i < n; i++) used += outLens[i]
    const out = this.outputFor(used, reuse)
    out.set(scratch.output.subarray(0, used))
    return splitByLengths(out, outLens, n)
  }

  /**
   * Hand `blocks` to the codec's helper thread and return at once (the blocks are copied): true
   * when a lent core took them, collect() then giving their payloads; false when not (compress
   * them now). Only for a codec made with splitKernelCompression on.
   */
  submit(blocks: readonly Uint8Array[]): boolean {
    if (!this.codec) throw new Error('KernelCodec used after close()')
    const n = blocks.length
    // No core lent (recompress's lanes all busy): not worth gathering the blocks for.
    if (n === 0 || this.submitted > 0 || !this.helped || this.lib.spareCores() <= 0) return false
    if (this.lib.submit(this.codec, gatherBlocks(blocks), this.lengths(blocks, 'lens'), n) !== 1) return false
    this.submitted = n
    this.submittedCap = payloadsBound(blocks)
    return true
  }

  /** The payloads of the batch submit() took, once compressed (waited for), as compress() gives them; `reuse` as its. */
  collect(reuse = false): Uint8Array[] {
    if (!this.codec) throw new Error('KernelCodec used after close()')
    const n = this.submitted
    if (n === 0) throw new Error('KernelCodec.collect() without a batch submitted')
    this.submitted = 0
    const output = scratchOutput(this.submittedCap)
    const outLens = scratchSizes(n)
    const r = this.lib.collect(this.codec, output, output.length, outLens, this.ns)
    return this.payloadsOf(r, n, outLens, reuse)
  }

  /**
   * This setting's payloads (zstd with the content checksum) made from the same setting's without
   * it (`plain`, of `blocks`): the same frames, flagged, with the checksum appended, as zstd writes
   * them (native/codec-kernel.c sstkit_checksum_frames). The hashing's CPU goes to compressNs: it is
   * what the checksum adds to the compression. `reuse`: as compress's.
   */
  withChecksum(plain: readonly Uint8Array[], blocks: readonly Uint8Array[], reuse = false): Uint8Array[] {
    const n = plain.length
    if (n === 0) return []
    const src = this.gather(plain, 'input')
    const lens = this.lengths(plain, 'lens')
    const raw = gatherBlocks(blocks)
    const sizes = this.lengths(blocks, 'sizes')
    let cap = 0
    for (const p of plain) cap += p.length + 4
    const out = this.outputFor(cap, reuse)
    const outLens = new Uint32Array(n)
    const r = this.lib.checksumFrames(src, lens, raw, sizes, n, out, cap, outLens, this.ns)
    if (r !== 0) throw new Error(`the codec kernel could not add a checksum to frame ${-r - 1} of ${n}`)
    this.compressNs += this.ns[0]
    return splitByLengths(out, outLens, n)
  }

  /**
   * Decompress each payload back to its block's size (RocksDB's read path, one block a call;
   * timed), then compare it with the block: the index of the first that differs (or does not
   * decode), or -1 when all came back.
   */
  roundTrip(payloads: readonly Uint8Array[], blocks: readonly Uint8Array[]): number {
    if (!this.codec) throw new Error('KernelCodec used after close()')
    const n = payloads.length
    if (n === 0) return -1
    const src = this.gather(payloads, 'input')
    const lens = this.lengths(payloads, 'lens')
    const sizes = this.lengths(blocks, 'sizes')
    const raw = this.gather(blocks, 'raws')
    let total = 0
    for (const b of blocks) total += b.length
    const output = scratchOutput(total)
    const r = this.lib.roundTrip(this.codec, src, lens, sizes, n, output, output.length, raw, this.ns)
    this.decompressNs += this.ns[0]
    return r === 0 ? -1 : Math.abs(r) - 1
  }

  /**
   * roundTrip over payloads and blocks already laid end to end: `n` payloads in `src` (lengths
   * `lens`), their blocks in `raw` (lengths `sizes`), copied nowhere first.
   */
  roundTripGathered(src: Uint8Array, lens: Uint32Array, raw: Uint8Array, sizes: Uint32Array, n: number): number {
    if (!this.codec) throw new Error('KernelCodec used after close()')
    if (n === 0) return -1
    let total = 0
    for (let i = 0; i < n; i++) total += sizes[i]
    const output = scratchOutput(total)
    const r = this.lib.roundTrip(this.codec, src, lens, sizes, n, output, output.length, raw, this.ns)
    this.decompressNs += this.ns[0]
    return r === 0 ? -1 : Math.abs(r) - 1
  }

  /**
   * What decoding `blocks` from frames with zstd's content checksum costs beyond decoding the same
   * frames without it (their payloads differ only by the checksum: withChecksum): hashing each
   * block's content, timed into decompressNs.
   */
  contentChecksums(blocks: readonly Uint8Array[]): void {
    const n = blocks.length
    if (n === 0) return
    this.lib.contentChecksums(this.gather(blocks, 'raws'), this.lengths(blocks, 'sizes'), n, this.ns)
    this.decompressNs += this.ns[0]
  }

  /** Free the native codec (also done when collected). */
  close(): void {
    if (!this.codec) return
    finalizer.unregister(this.token)
    this.lib.freeCodec(this.codec)
    this.codec = null
  }
}

/** Room for the payloads of `blocks` (payloadBound each). */
function payloadsBound(blocks: readonly Uint8Array[]): number {
  let cap = 0
  for (const b of blocks) cap += payloadBound(b.length)
  return cap
}

/** This thread's output scratch, grown to at least `bytes`. */
function scratchOutput(bytes: number): Uint8Array {
  if (scratch.output.length < bytes) scratch.output = new Uint8Array(Math.max(bytes, scratch.output.length * 2))
  return scratch.output
}

/** This thread's lengths scratch (`sizes`), with room for `n`. */
function scratchSizes(n: number): Uint32Array {
  if (scratch.sizes.length < n) scratch.sizes = new Uint32Array(n * 2)
  return scratch.sizes
}

/** The first `n` payloads laid end to end in `out`, of the lengths in `lengths`, as views of it. */
function splitByLengths(out: Uint8Array, lengths: Uint32Array, n: number): Uint8Array[] {
  const payloads: Uint8Array[] = new Array(n)
  let at = 0
  for (let i = 0; i < n; i++) {
    payloads[i] = out.subarray(at, at + lengths[i])
    at += lengths[i]
  }
  return payloads
}
