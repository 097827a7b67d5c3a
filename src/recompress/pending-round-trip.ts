/**
 * A setting's round trip, batch by batch: the compressed blocks recompress's writer hook took since
 * the last batch (round-trip.ts chooses which) decompressed and compared with their originals, timed;
 * then the rest of reading them back. A zstd setting with the checksum takes its round trip from
 * the same setting's without it where the blocks are the same; every setting takes a block's walk
 * over its entries from the first setting that walked it (WalkTimes).
 */
import type { BlockCompressor } from '../codec/block-compressor.js'
import { blockChecksumOfPayload } from '../codec/checksum.js'
import { threadCpuMs } from '../codec/kernel.js'
import { CompressionType } from '../format/compression-type.js'
import { SstkitError, type SstkitErrorOptions, transferable } from '../errors.js'
import type { RecompressConfig } from './config.js'
import { type ReadSums, walkEntries } from './read-back.js'
import { addTimed, type RoundTripSums } from './round-trip.js'

export class RoundTripError extends SstkitError {
  override name = 'RoundTripError'
  constructor(message: string, options?: SstkitErrorOptions) {
    super('internal', message, options)
  }
}
transferable(RoundTripError)

/** What a setting's round trip measures (part of evaluate.ts ConfigMeasurement). */
export interface RoundTripMeasurement {
  /** Decompression time of the round-tripped blocks per repeat, ms. */
  decompressMs: number[]
  /** The compressed blocks and the round-tripped ones' sums, for the estimate (round-trip.ts). */
  roundTrip: RoundTripSums
  /** Reading the round trip's blocks back (checksum, decompression, every entry), for readCpuMs (round-trip.ts). */
  read: ReadSums
  /** With recordRoundTrips: per round-tripped block, its data block index, uncompressed bytes and mean ms. */
  roundTripRecords?: { index: number[]; bytes: number[]; ms: number[] }
}

/** What a setting's round trip reads and updates (evaluate.ts ConfigState). */
export interface RoundTripState {
  config: RecompressConfig
  m: RoundTripMeasurement
  /** The round trip's own compressor (null: none), and the blocks waiting for it (one batch's). */
  roundTrip: BlockCompressor | null
  pending: PendingRoundTrip
  /** What reading the blocks back needs: the table's block checksum type, and the restart interval of separated blocks. */
  checksumType: number
  restartInterval: number
  warm?: boolean
  /** The entry walks of this task's blocks, shared by its settings. */
  walks: WalkTimes
}

/**
 * Each uncompressed block's walk over its entries (read-back.ts walkEntries): its thread CPU and
 * wall time, ms, measured by the first setting that reads the block back and charged to every other
 * that reads it: the block is the same entries whatever compressed it, so walking it again for each
 * setting (56 times a block in the default matrix, ~2% of its CPU) measured nothing new. Blocks
 * walked in one timed run get its time by their bytes.
 */
export type WalkTimes = WeakMap<Uint8Array, { cpuMs: number; wallMs: number }>

export interface PendingRoundTrip {
  payloads: Uint8Array[]
  raws: Uint8Array[]
  index: number[]
  /** Blocks at the round trip's positions stored raw (rejected, skipped, or no compression): read back, not decompressed. */
  plain: Uint8Array[]
}

export function emptyPending(): PendingRoundTrip {
  return { payloads: [], raws: [], index: [], plain: [] }
}

/**
 * Decompress the blocks a configuration compressed since the last call and compare them with
 * their originals, `repeat` times: in one timed call per repeat where the codec kernel does the
 * setting (docs/cpu.md). A batch is one timed unit of the estimate (round-trip.ts). Then the rest
 * of reading those blocks and the raw ones back: their checksums and a walk over their entries.
 */
export function roundTripPending(st: RoundTripState, repeat: number, plainTwin?: BatchRoundTrip): BatchRoundTrip | undefined {
  const { payloads, raws, index, plain } = st.pending
  if (payloads.length === 0 && plain.length === 0) return undefined
  st.pending = emptyPending()
  const m = st.m
  const rt = st.roundTrip
  let decompressMs = 0
  // The wall clock of the same calls (the decompressions and their comparisons), for readWallMs.
  let wallTotal = 0
  let done: BatchRoundTrip | undefined
  if (rt && payloads.length > 0) {
    done = { raws, ms: new Array(repeat).fill(0), wallMs: 0 }
    // A checksum twin's frames are its plain twin's with the checksum: decoded and compared there.
    const derived = plainTwin !== undefined && sameArrays(plainTwin.raws, raws) && derivedRoundTrip(rt, plainTwin, done, repeat)
    if (!derived) decodedRoundTrip(st, rt, done, payloads, index, repeat)
    wallTotal = done.wallMs
    let total = 0
    for (let r = 0; r < repeat; r++) {
      m.decompressMs[r] += done.ms[r]
      total += done.ms[r]
    }
    decompressMs = total / repeat
    let bytes = 0
    for (const raw of raws) bytes += raw.length
    addTimed(m.roundTrip, bytes, decompressMs, raws.length)
    const records = m.roundTripRecords
    if (records)
      for (let i = 0; i < raws.length; i++) {
        records.index.push(index[i])
        records.bytes.push(raws[i].length)
        // A block's share of its batch's time, by its bytes.
        records.ms.push(bytes > 0 ? (decompressMs * raws[i].length) / bytes : 0)
      }
  }
  // The rest of a reader's work, on this thread: each block's checksum as stored (payload and type
  // byte) and every entry walked; the decompressed blocks are their originals (compared above).
  const w0 = performance.now()
  const t0 = threadCpuMs()
  for (const p of payloads) blockChecksumOfPayload(st.checksumType, p, st.config.type)
  for (const p of plain) blockChecksumOfPayload(st.checksumType, p, CompressionType.None)
  const checksumMs = threadCpuMs() - t0
  const checksumWallMs = performance.now() - w0
  const walk = walkedEntries(st, raws, plain)
  m.read.cpuMs += decompressMs + checksumMs + walk.cpuMs
  m.read.wallMs += wallTotal / repeat + checksumWallMs + walk.wallMs
  m.read.timedBytes += walk.bytes
  return done
}

/** The walk over every entry of `raws` and `plain`: timed here for the blocks no setting walked before (WalkTimes), the others' times taken. */
function walkedEntries(st: RoundTripState, raws: readonly Uint8Array[], plain: readonly Uint8Array[]): { cpuMs: number; wallMs: number; bytes: number } {
  const walks = st.walks
  let cpuMs = 0
  let wallMs = 0
  let bytes = 0
  const fresh: Uint8Array[] = []
  for (const list of [raws, plain])
    for (const raw of list) {
      bytes += raw.length
      const known = walks.get(raw)
      if (!known) {
        fresh.push(raw)
        continue
      }
      cpuMs += known.cpuMs
      wallMs += known.wallMs
    }
  if (fresh.length === 0) return { cpuMs, wallMs, bytes }
  const w0 = performance.now()
  const t0 = threadCpuMs()
  let freshBytes = 0
  for (const raw of fresh) {
    walkEntries(raw, st.restartInterval)
    freshBytes += raw.length
  }
  const freshMs = threadCpuMs() - t0
  const freshWallMs = performance.now() - w0
  for (const raw of fresh) {
    const share = freshBytes > 0 ? raw.length / freshBytes : 1 / fresh.length
    walks.set(raw, { cpuMs: freshMs * share, wallMs: freshWallMs * share })
  }
  return { cpuMs: cpuMs + freshMs, wallMs: wallMs + freshWallMs, bytes }
}

/** Decompress `payloads` and compare them with `done.raws`, `repeat` times, each repeat's CPU and the wall time of all into `done`. */
function decodedRoundTrip(st: RoundTripState, rt: BlockCompressor, done: BatchRoundTrip, payloads: Uint8Array[], index: number[], repeat: number): void {
  if (!st.warm && !rt.batched) {
    // The first call allocates the decompression context: keep it out of the timing.
    rt.decompress(payloads[0], done.raws[0].length)
  }
  st.warm = true
  for (let r = 0; r < repeat; r++) {
    const before = rt.decompressNs
    const w0 = performance.now()
    const bad = rt.roundTripMany(payloads, done.raws)
    done.wallMs += performance.now() - w0
    if (bad >= 0) throw new RoundTripError(`round trip mismatch in data block ${index[bad]} under ${JSON.stringify(st.config)}`)
    done.ms[r] = (rt.decompressNs - before) / 1e6
  }
}

/** One batch's round trip of a setting: the blocks decoded, the CPU of each repeat and the wall time of all, ms. */
export interface BatchRoundTrip {
  raws: readonly Uint8Array[]
  ms: number[]
  wallMs: number
}

/**
 * A checksum twin's round trip from its plain twin's of the same blocks (`plain`): zstd decodes
 * the same frames, then hashes the content to check the checksum (BlockCompressor
 * contentChecksumsMany, timed here once and added to each repeat). Decoding them again was a
 * round trip more per setting with the checksum for no new fact: the frames are the plain twin's,
 * byte for byte, and it compared what they decode to. False where the hashing is not timed natively.
 */
function derivedRoundTrip(rt: BlockCompressor, plain: BatchRoundTrip, done: BatchRoundTrip, repeat: number): boolean {
  const before = rt.decompressNs
  const w0 = performance.now()
  if (!rt.contentChecksumsMany(done.raws)) return false
  const wallMs = performance.now() - w0
  const hashMs = (rt.decompressNs - before) / 1e6
  for (let r = 0; r < repeat; r++) done.ms[r] = plain.ms[r] + hashMs
  done.wallMs = plain.wallMs + wallMs * repeat
  return true
}

function sameArrays(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}
