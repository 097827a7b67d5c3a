/**
 * One compressor for one setting: raw block → the payload RocksDB stores
 * (its size-prefix framing included), and back. The table writer, the
 * recompress evaluation and its timers all compress through this class, and
 * decide whether a compressed block is kept by the rule below (one owner).
 *
 * zstd keeps its own contexts and one output buffer (ZstdCodec): compressing
 * thousands of blocks allocates nothing per block, and several compressors
 * side by side never reload each other's dictionary. The other codecs go
 * through compressBlock / decompressBlock.
 *
 * Timing (docs/cpu.md): compressNs and decompressNs add up the CPU this
 * compressor's codec work took. Where the codec kernel (kernel.ts) does the
 * setting, compressMany / roundTripMany compress and decompress a batch in one
 * native call, timed there as RocksDB pays it (no per-call overhead); else the
 * JavaScript codecs are timed with the thread's CPU clock around each call.
 */
import { equalBytes, varintLength, writeVarint } from '../format/coding.js'
import { CompressionType } from '../format/compression-type.js'
import { compressBlock, decompressBlock } from './compression.js'
import { KernelCodec, threadCpuMs } from './kernel.js'
import { effectiveLevel, type CompressionSetting } from './setting.js'
import { ZstdCodec } from './zstd.js'

export type BlockCompressorSetting = Pick<CompressionSetting, 'compressionType' | 'level' | 'zstdChecksum' | 'strategy'>

/**
 * Which RocksDB release's rule keeps a compressed block (block_based_table_builder.cc):
 * - 'bytes-per-kb' (8.3+): framed size <= (max_compressed_bytes_per_kb × raw) >> 10, the
 *   option capped at 1023; a block whose budget is 5 bytes or less is not even tried.
 * - 'good-ratio' (7.x, GoodCompressionRatio): framed size < raw − raw/8, every block tried.
 * At the default 896 they differ only for a block of 8n bytes compressing to exactly 7n.
 */
export type AcceptanceRule = 'bytes-per-kb' | 'good-ratio'

/** The most bytes a block of `rawLength` may compress to and be kept under `max_compressed_bytes_per_kb`. */
function bytesPerKbBudget(rawLength: number, maxCompressedBytesPerKb: number): number {
  return Math.floor((Math.min(1023, maxCompressedBytesPerKb) * rawLength) / 1024)
}

/** Whether RocksDB tries to compress a block of `rawLength` at all (false: stored raw, counted as bypassed). */
export function attemptsCompression(rawLength: number, maxCompressedBytesPerKb: number, rule: AcceptanceRule = 'bytes-per-kb'): boolean {
  if (rule === 'good-ratio') return true
  return maxCompressedBytesPerKb > 0 && bytesPerKbBudget(rawLength, maxCompressedBytesPerKb) > 5
}

/** Whether RocksDB keeps a block compressed to `framedLength` bytes (framing included) from `rawLength`. */
export function keepsCompressed(framedLength: number, rawLength: number, maxCompressedBytesPerKb: number, rule: AcceptanceRule = 'bytes-per-kb'): boolean {
  if (rule === 'good-ratio') return framedLength < rawLength - Math.floor(rawLength / 8)
  return framedLength <= bytesPerKbBudget(rawLength, maxCompressedBytesPerKb)
}

export class BlockCompressor {
  readonly compressionType: number
  readonly level: number | null
  readonly strategy: number | undefined
  readonly zstdChecksum: boolean
  readonly formatVersion: number
  /** undefined when none (an empty dictionary is none). */
  private current: Uint8Array | undefined
  private readonly zstd: ZstdCodec | null
  /** Reused decompression output (zstd): callers compare and discard. */
  private scratch = new Uint8Array(0)
  /** The codec kernel's codec for this setting and dictionary (made on first batch; null: not available). */
  private kernel: KernelCodec | null | undefined
  /** CPU spent compressing (ns): measured in the kernel for batches, around the call otherwise. */
  compressNs = 0
  /** CPU spent decompressing round-tripped blocks (ns), as compressNs. */
  decompressNs = 0
  /** The part of compressNs spent on another thread (the kernel codec's helper: splitKernelCompression). */
  helperNs = 0

  /**
   * `formatVersion` selects the framing (only v2, fv >= 2, is written for
   * zlib/bzip2/lz4); `dictionary` is used where the codec takes one.
   */
  constructor(setting: BlockCompressorSetting, formatVersion: number, dictionary?: Uint8Array) {
    this.compressionType = setting.compressionType
    this.level = setting.level
    this.strategy = setting.strategy
    this.zstdChecksum = setting.zstdChecksum
    this.formatVersion = formatVersion
    this.current = dictionary && dictionary.length > 0 ? dictionary : undefined
    this.zstd =
      setting.compressionType === CompressionType.ZSTD
        ? new ZstdCodec(effectiveLevel(CompressionType.ZSTD, setting.level)!, setting.zstdChecksum, this.current)
        : null
  }

  get dictionary(): Uint8Array | undefined {
    return this.current
  }

  /** Compress with another dictionary (or none) from now on, keeping the contexts (e.g. the next file's). */
  useDictionary(dictionary: Uint8Array | undefined): void {
    const d = dictionary && dictionary.length > 0 ? dictionary : undefined
    if (d !== this.current) this.closeKernel()
    this.current = d
    this.zstd?.useDictionary(this.current)
  }

  private closeKernel(): void {
    if (!this.kernel) return
    this.kernel.close()
    this.kernel = undefined
  }

  private kernelCodec(): KernelCodec | null {
    if (this.kernel !== undefined) return this.kernel
    const t = this.compressionType
    const level = effectiveLevel(t, this.level) ?? 0
    // The level as the JavaScript adapters take it (compression.ts compressBlock): LZ4HC's capped at 12, 9 when not positive.
    const kernelLevel = t === CompressionType.LZ4HC ? (level > 0 ? Math.min(level, 12) : 9) : level
    this.kernel = t === CompressionType.None ? null : KernelCodec.create(t, kernelLevel, this.zstdChecksum, this.formatVersion, this.current)
    return this.kernel
  }

  /** Whether batches go through the codec kernel (timed natively). */
  get batched(): boolean {
    return this.kernelCodec() !== null
  }

  /**
   * The framed payloads of `raws` (each as compress() gives it; every one a view of one new
   * array, kept as long as the caller likes), timed into compressNs: in one native call where
   * the kernel does the setting. `reuse`: the kernel's payloads are views of one of two arrays
   * it reuses in turn, valid until the call after next (KernelCodec.compress).
   */
  compressMany(raws: readonly Uint8Array[], reuse = false): Uint8Array[] {
    const k = this.kernelCodec()
    if (k) return this.timedBy(k, () => k.compress(raws, reuse))
    return raws.map((raw) => this.compress(raw).slice())
  }

  /** The payloads of a call of the kernel codec `k`, its compression CPU (and its helper's share) added to this compressor's. */
  private timedBy(k: KernelCodec, call: () => Uint8Array[]): Uint8Array[] {
    const before = k.compressNs
    const helperBefore = k.helperNs
    const out = call()
    this.compressNs += k.compressNs - before
    this.helperNs += k.helperNs - helperBefore
    return out
  }

  /**
   * Hand `raws` to the kernel codec's helper thread (KernelCodec.submit): true when it took them,
   * collectMany() then giving their payloads; false when not (compressMany them now).
   */
  submitMany(raws: readonly Uint8Array[]): boolean {
    return this.kernelCodec()?.submit(raws) ?? false
  }

  /** The payloads of the batch submitMany took (waited for), timed into compressNs and helperNs; `reuse` as compressMany's. */
  collectMany(reuse = false): Uint8Array[] {
    const k = this.kernelCodec()!
    return this.timedBy(k, () => k.collect(reuse))
  }

  /**
   * For zstd with the content checksum: the payloads of `raws` made from the same setting's without
   * it (`plain`), byte for byte what compressing them gives (KernelCodec.withChecksum), the hashing
   * timed into compressNs. Null where the kernel does not do it: compress them then. `reuse`: as compressMany's.
   */
  withChecksumFrom(plain: readonly Uint8Array[], raws: readonly Uint8Array[], reuse = false): Uint8Array[] | null {
    if (this.compressionType !== CompressionType.ZSTD || !this.zstdChecksum) return null
    const k = this.kernelCodec()
    if (!k) return null
    const before = k.compressNs
    const out = k.withChecksum(plain, raws, reuse)
    this.compressNs += k.compressNs - before
    return out
  }

  /**
   * Decompress each payload and compare it with its block, timed into decompressNs: the index of
   * the first that does not come back, or -1.
   */
  roundTripMany(payloads: readonly Uint8Array[], raws: readonly Uint8Array[]): number {
    const k = this.kernelCodec()
    if (k) {
      const before = k.decompressNs
      const r = k.roundTrip(payloads, raws)
      this.decompressNs += k.decompressNs - before
      return r
    }
    for (let i = 0; i < payloads.length; i++) {
      const t0 = threadCpuMs()
      const back = this.decompressUntimed(payloads[i], raws[i].length)
      this.decompressNs += (threadCpuMs() - t0) * 1e6
      if (!equalBytes(back, raws[i])) return i
    }
    return -1
  }

  /**
   * For zstd with the content checksum, where the kernel does the setting: what decoding `raws`
   * from this setting's frames costs beyond decoding the same setting's frames without the
   * checksum (withChecksumFrom: the same frames, flagged, the checksum appended), timed into
   * decompressNs: the hashing of their content zstd checks. False where it cannot say (round-trip them).
   */
  contentChecksumsMany(raws: readonly Uint8Array[]): boolean {
    if (this.compressionType !== CompressionType.ZSTD || !this.zstdChecksum) return false
    const k = this.kernelCodec()
    if (!k) return false
    const before = k.decompressNs
    k.contentChecksums(raws)
    this.decompressNs += k.decompressNs - before
    return true
  }

  /** Free the kernel's native codec (a compressor no longer used; also freed when collected). */
  close(): void {
    this.closeKernel()
  }

  /**
   * The framed payload for `raw` (kNoCompression: `raw` itself). For zstd the
   * result is a view of a reused buffer, valid until the next call.
   */
  compress(raw: Uint8Array): Uint8Array {
    // One block through the kernel: timed there, without the call around it.
    if (this.kernelCodec()) return this.compressMany([raw])[0]
    const t0 = threadCpuMs()
    const out = this.compressUntimed(raw)
    this.compressNs += (threadCpuMs() - t0) * 1e6
    return out
  }

  private compressUntimed(raw: Uint8Array): Uint8Array {
    if (this.zstd) {
      // RocksDB's framing: varint32 uncompressed size, then the zstd frame.
      const prefix = varintLength(raw.length)
      const { buffer, length } = this.zstd.compress(raw, prefix)
      writeVarint(buffer, 0, raw.length)
      return buffer.subarray(0, length)
    }
    return compressBlock(this.compressionType, raw, {
      formatVersion: this.formatVersion,
      level: this.level ?? undefined,
      dictionary: this.dictionary,
      zstdChecksum: this.zstdChecksum,
      strategy: this.strategy,
    })
  }

  /**
   * The raw block back from a payload `compress` produced, `size` bytes. For
   * zstd the result is a view of a reused buffer, valid until the next call.
   * Payloads from elsewhere belong to decompressBlock, which checks the framing.
   */
  decompress(framed: Uint8Array, size: number): Uint8Array {
    const t0 = threadCpuMs()
    const out = this.decompressUntimed(framed, size)
    this.decompressNs += (threadCpuMs() - t0) * 1e6
    return out
  }

  private decompressUntimed(framed: Uint8Array, size: number): Uint8Array {
    if (this.zstd) {
      const prefix = varintLength(size)
      if (this.scratch.length < size) this.scratch = new Uint8Array(Math.max(size, this.scratch.length * 2))
      return this.zstd.decompress(framed.subarray(prefix), size, this.scratch)
    }
    return decompressBlock(this.compressionType, framed, { formatVersion: this.formatVersion, dictionary: this.dictionary })
  }
}
