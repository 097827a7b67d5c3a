/**
 * The stored row's decompression, timed as a setting's round trip is (round-trip.ts, codec/kernel.ts):
 * the stored payloads of a batch of data blocks decoded in one native call on the thread's CPU clock,
 * an evenly spread sample of them (storedTimingStride) and the same estimate, so that the stored
 * row's Decomp MB/s compares with every setting's. Timing the pass's own decoding instead counted its
 * reads, checksums and one JavaScript call per block: a 4 KiB LZ4 file's stored row showed ~300 MB/s
 * beside the lz4 row's ~8,000 MB/s for the same blocks (commit 0a0298c, 2026-12-07).
 *
 * The pass hands each block it reads to observe() (Table.readDataBlock's `observe`): its payload as
 * stored and its decoded contents, both valid only until the next block, so a sampled block is copied
 * into this timer's reused batch buffers. Codecs the kernel does not do (zlib, bzip2, LZ4 before
 * format_version 2) are decoded by the reader's own code, a batch timed per call of threadCpuMs.
 */
import { CompressionType, decompressBlock } from '../codec/compression.js'
import { KernelCodec, threadCpuMs } from '../codec/kernel.js'
import type { StoredPayload, Table } from '../table/reader.js'
import { addCompressed, addTimed, emptyRoundTrip, inRoundTrip, type RoundTripMode, type RoundTripSums } from './round-trip.js'
import type { ReadStats } from './source-types.js'

/** Uncompressed bytes a timed batch holds: 128 KiB, as a setting's batch (evaluate.ts BATCH_BYTES). */
const BATCH_BYTES = 128 << 10

/**
 * Data the stored row's timing decodes again, at least (uncompressed bytes): the stored blocks were
 * decoded once already, so every one decoded again is only for the clock. All of them cost a 4 KiB
 * ZSTD 8 MB file's recompress of one setting ~6% of its wall time (commit 2765f8e, 2026-12-07).
 */
export const STORED_SAMPLE_BYTES = 4 << 20

/** 1 in how many stored blocks are timed (round-trip.ts inRoundTrip's positions) for a source of about `rawBytes`: every one under twice STORED_SAMPLE_BYTES or with `every`; none with `none`. */
export function storedTimingStride(mode: RoundTripMode, rawBytes: number): number {
  if (mode === 'none') return 0
  if (mode === 'every') return 1
  return Math.max(1, Math.floor(rawBytes / STORED_SAMPLE_BYTES))
}

export class StoredDecompressTimer {
  private readonly sums = emptyRoundTrip()
  /** Batches timed through the kernel and through the reader's code (diagnostics, tests). */
  readonly batches = { kernel: 0, reader: 0 }
  private readonly codecs = new Map<number, KernelCodec | null>()
  private readonly warmed = new Set<number>()
  /** Data blocks observed so far: the next one's index in the round trip's stride. */
  private index = 0
  private batchType = -1
  private payloadBuffer: Uint8Array = new Uint8Array(BATCH_BYTES)
  private rawBuffer: Uint8Array = new Uint8Array(BATCH_BYTES)
  private payloadAt = 0
  private rawAt = 0
  /** The batch's blocks: payload and contents lengths, file offsets. */
  private payloadLengths: Uint32Array = new Uint32Array(64)
  private rawLengths: Uint32Array = new Uint32Array(64)
  private offsets: number[] = []
  private n = 0

  /** `stride`: storedTimingStride's (1: every block, 0: none timed). */
  constructor(
    private readonly table: Pick<Table, 'formatVersion' | 'dictionary'>,
    private readonly stride: number,
  ) {}

  /** A data block as the pass read it: `raw` its stored payload and type, `data` its decoded contents. */
  readonly observe = (raw: StoredPayload, data: Uint8Array): void => {
    const index = this.index++
    if (raw.compressionType === CompressionType.None) return
    addCompressed(this.sums, data.length)
    if (!inRoundTrip(index, this.stride)) return
    if (raw.compressionType !== this.batchType || this.rawAt + data.length > BATCH_BYTES) this.flush()
    this.batchType = raw.compressionType
    if (this.payloadAt + raw.payload.length > this.payloadBuffer.length)
      this.payloadBuffer = grown(this.payloadBuffer, this.payloadAt, this.payloadAt + raw.payload.length)
    if (this.rawAt + data.length > this.rawBuffer.length) this.rawBuffer = grown(this.rawBuffer, this.rawAt, this.rawAt + data.length)
    this.payloadBuffer.set(raw.payload, this.payloadAt)
    this.rawBuffer.set(data, this.rawAt)
    this.payloadAt += raw.payload.length
    this.rawAt += data.length
    if (this.n === this.payloadLengths.length) {
      this.payloadLengths = grownLengths(this.payloadLengths)
      this.rawLengths = grownLengths(this.rawLengths)
    }
    this.payloadLengths[this.n] = raw.payload.length
    this.rawLengths[this.n] = data.length
    this.offsets[this.n] = raw.handle.offset
    this.n++
  }

  /** The sums of every compressed block observed and of the timed ones (ms, uncompressed bytes); frees the codecs. */
  finish(): RoundTripSums {
    this.flush()
    for (const c of this.codecs.values()) c?.close()
    this.codecs.clear()
    return this.sums
  }

  private flush(): void {
    const n = this.n
    if (n === 0) return
    let ms = this.timeKernel()
    if (ms === null) {
      ms = this.timeReader()
      this.batches.reader++
    } else this.batches.kernel++
    addTimed(this.sums, this.rawAt, ms, n)
    this.payloadAt = 0
    this.rawAt = 0
    this.n = 0
  }

  /** The batch decoded by the kernel, in ms of thread CPU; null where it does not do the codec or does not give the blocks back. */
  private timeKernel(): number | null {
    const type = this.batchType
    let codec = this.codecs.get(type)
    if (codec === undefined) {
      // The level only matters to compression, which this codec never does.
      codec = KernelCodec.create(type, type === CompressionType.ZSTD ? 3 : 1, false, this.table.formatVersion, this.table.dictionary() ?? undefined)
      this.codecs.set(type, codec)
    }
    if (!codec) return null
    // A codec's first batch, once untimed: its decoder's setup and the first touch of the shared output's pages are not decompression.
    const roundTrip = () => codec.roundTripGathered(this.payloadBuffer, this.payloadLengths, this.rawBuffer, this.rawLengths, this.n) === -1
    if (!this.warmed.has(type)) {
      this.warmed.add(type)
      if (!roundTrip()) return null
    }
    const before = codec.decompressNs
    if (!roundTrip()) return null
    return (codec.decompressNs - before) / 1e6
  }

  /** The batch decoded by the reader's own code (codec/compression.ts decompressBlock), timed around the batch. */
  private timeReader(): number {
    const options = { formatVersion: this.table.formatVersion, dictionary: this.table.dictionary() ?? undefined, offset: 0 }
    const payloads: Uint8Array[] = []
    for (let i = 0, at = 0; i < this.n; at += this.payloadLengths[i++]) payloads.push(this.payloadBuffer.subarray(at, at + this.payloadLengths[i]))
    const t0 = threadCpuMs()
    for (let i = 0; i < payloads.length; i++) {
      options.offset = this.offsets[i]
      decompressBlock(this.batchType, payloads[i], options)
    }
    return threadCpuMs() - t0
  }
}

function grownLengths(a: Uint32Array): Uint32Array {
  const next = new Uint32Array(a.length * 2)
  next.set(a)
  return next
}

/** A larger buffer holding the first `used` bytes of `buffer`, room for at least `need`. */
function grown(buffer: Uint8Array, used: number, need: number): Uint8Array {
  const next = new Uint8Array(Math.max(need, buffer.length * 2))
  next.set(buffer.subarray(0, used))
  return next
}

/** The timers of passes under way, by the stats they fill (a ReadStats stays a plain object, posted between threads). */
const timers = new WeakMap<ReadStats, StoredDecompressTimer>()

/** Time the decompression of the stored blocks a pass reads into `stats` (the pass's readDataBlock calls get storedObserver(stats)). */
export function timeStoredDecompression(stats: ReadStats, table: Pick<Table, 'formatVersion' | 'dictionary'>, stride: number): ReadStats {
  timers.set(stats, new StoredDecompressTimer(table, stride))
  return stats
}

/** What readDataBlock tells of each block it reads into `stats`, where it is timed. */
export function storedObserver(stats: ReadStats | undefined): ((raw: StoredPayload, data: Uint8Array) => void) | undefined {
  return stats ? timers.get(stats)?.observe : undefined
}

/** The pass is over: its timed batches into `stats.decompress`. */
export function finishStoredTiming(stats: ReadStats | undefined): void {
  const timer = stats && timers.get(stats)
  if (!timer) return
  stats.decompress = timer.finish()
  timers.delete(stats)
}
