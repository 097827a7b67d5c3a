/**
 * The recompression matrix of a blob file (`format/blob-file.ts`): every record's value
 * decompressed, then compressed on its own under each setting the way RocksDB's BlobFileBuilder
 * does (compress_format_version 2, no dictionary, always stored compressed even when larger: no
 * acceptance rule), and the whole file's size projected exactly as BlobLogWriter would write it:
 * header + Σ (record header + key + value) + footer.
 *
 * A large file is sampled: a deterministic, evenly spread share of its records (every record's
 * header is still read, so the counts, keys and stored sizes are exact). Each setting's value bytes
 * are then a regression estimate on the stored sizes (the same estimator as advise's levels), with
 * its 95% interval; with every record read, the figures are exact.
 */
import { performance } from 'node:perf_hooks'
import { type BlobFile, blobCrc, decompressBlobValue, recordLengths } from '../blob/reader.js'
import { compressBlock } from '../codec/compression.js'
import { effectiveLevel } from '../codec/setting.js'
import { CorruptionError } from '../errors.js'
import {
  BLOB_COMPRESS_FORMAT_VERSION,
  BLOB_FOOTER_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_RECORD_HEADER_SIZE,
  checkBlobCrc,
  decodeBlobRecordHeader,
} from '../format/blob-file.js'
import { equalBytes } from '../format/coding.js'
import { CompressionType, compressionShortName } from '../format/compression-type.js'
import { addPair, emptyPairSums, mergePairs, type PairSums, regressionTotal } from '../util/regression.js'

/** One blob compression setting: blob_compression_type, and (RocksDB 11.2+'s blob_compression_opts) its level and zstd checksum. */
export interface BlobSetting {
  type: number
  /** null: the library's default level, the only one before blob_compression_opts. */
  level: number | null
  checksum: boolean
}

/** Stored value bytes up to which every record of a file is evaluated; above, a sample of about BLOB_SAMPLE_BYTES. */
export const BLOB_EXHAUSTIVE_BYTES = 64 << 20
export const BLOB_SAMPLE_BYTES = 32 << 20
/** A timing of less than this (ms, over the records measured) is noise: shown, never ranked on. */
export const BLOB_MIN_TIMED_MS = 50

export interface Interval {
  estimate: number
  low: number
  high: number
}

/** Sums over the sampled records of one setting: c its value bytes, s the stored value bytes (the covariate). */
/** The regression sums of the records' (compressed, stored) value sizes, and the timings. */
export interface BlobSums extends PairSums {
  compressMs: number
  decompressMs: number
  /** Uncompressed bytes compressed under the timer. */
  timedBytes: number
}

export function emptyBlobSums(): BlobSums {
  return { ...emptyPairSums(), compressMs: 0, decompressMs: 0, timedBytes: 0 }
}

export const addBlobRecord: (sums: BlobSums, c: number, s: number) => void = addPair

export function mergeBlobSums(a: BlobSums, b: BlobSums): BlobSums {
  return {
    ...mergePairs(a, b),
    compressMs: a.compressMs + b.compressMs,
    decompressMs: a.decompressMs + b.decompressMs,
    timedBytes: a.timedBytes + b.timedBytes,
  }
}

/**
 * The total of c over `records` records whose stored value bytes add up to `stored`, from the
 * sample's sums at inclusion rate `rate`: T = N (c̄ + b (S/N − s̄)), Var ≈ N² (1 − p)/n · Σe²/(n − 2),
 * the interval T ± t(n − 2) √Var (decide/estimate.ts's regression estimator, without its certainty
 * stratum). Exact with every record read.
 */
export function blobRegression(sums: BlobSums, stored: number, records: number, rate: number): Interval {
  const n = sums.n
  if (records === 0) return { estimate: 0, low: 0, high: 0 }
  if (n === 0) return { estimate: Number.NaN, low: Number.NaN, high: Number.NaN }
  if (rate >= 1 || n === records) return { estimate: sums.sumC, low: sums.sumC, high: sums.sumC }
  const { estimate, half } = regressionTotal(sums, records, stored, rate) ?? { estimate: Number.NaN, half: Number.NaN }
  return { estimate, low: Math.max(0, estimate - half), high: estimate + half }
}

/** Whether record `i` is in a sample at inclusion rate `rate`: evenly spread, deterministic. */
export function inBlobSample(i: number, rate: number): boolean {
  if (rate >= 1) return true
  return Math.floor((i + 1) * rate) > Math.floor(i * rate)
}

/** The inclusion rate for a file of `storedBytes` value bytes: every record up to BLOB_EXHAUSTIVE_BYTES, else about BLOB_SAMPLE_BYTES. */
export function defaultBlobRate(storedBytes: number): number {
  return storedBytes <= BLOB_EXHAUSTIVE_BYTES ? 1 : BLOB_SAMPLE_BYTES / storedBytes
}

/** The first RocksDB release (major, minor) whose LZ4 without a dictionary is the one-shot LZ4_compress_fast (codec/lz4.ts). */
export const LZ4_ONE_SHOT_SINCE: readonly [number, number] = [10, 8]

/** Whether RocksDB `release` (major, minor; null: unknown, taken as older) compresses LZ4 one-shot. */
export function lz4OneShotFor(release: readonly [number, number] | null): boolean {
  if (!release) return false
  const [major, minor] = LZ4_ONE_SHOT_SINCE
  return release[0] !== major ? release[0] > major : release[1] >= minor
}

/**
 * One value compressed as BlobFileBuilder::CompressBlobIfNeeded does (kNoCompression: the value
 * itself). `lz4OneShot`: the writer is RocksDB 10.8 or later (lz4OneShotFor).
 */
export function compressBlob(setting: BlobSetting, raw: Uint8Array, lz4OneShot = false): Uint8Array {
  if (setting.type === CompressionType.None) return raw
  return compressBlock(setting.type, raw, {
    formatVersion: BLOB_COMPRESS_FORMAT_VERSION,
    level: setting.level ?? undefined,
    zstdChecksum: setting.checksum,
    lz4OneShot,
  })
}

export function blobSettingLabel(s: BlobSetting): string {
  const level = s.level === null ? '' : ` ${s.level}`
  return `${compressionShortName(s.type)}${level}${s.checksum ? ' +checksum' : ''}`
}

/** The settings advise and recompress try for blobs by default: every type sstkit writes, at the library's default level. */
export function defaultBlobSettings(types: readonly number[]): BlobSetting[] {
  return types.map((type) => ({ type, level: null, checksum: false }))
}

/** Whether a setting can be written before blob_compression_opts (only the type: the library's default level, no checksum). */
export function needsBlobCompressionOpts(s: BlobSetting): boolean {
  return s.checksum || (s.level !== null && s.level !== effectiveLevel(s.type, null))
}

/** What one walk over a blob file's records measured, per setting. */
export interface BlobFileSample {
  records: number
  keyBytes: number
  storedValueBytes: number
  /** Records read and measured (all of them at rate 1). */
  sampled: number
  rate: number
  /** Per setting, in the order given. */
  sums: BlobSums[]
  /** The stored values' own decompression: c = uncompressed size (the raw bytes), timings of decoding them. */
  raw: BlobSums
  /** Whether the file has a footer (a file RocksDB closed). */
  hasFooter: boolean
}

export interface BlobWalkOptions {
  /** Inclusion rate; default defaultBlobRate of the file's stored value bytes (its size before the walk). */
  rate?: number
  /** Timing repeats per record (the median is not taken: times add up). Default 1. */
  repeat?: number
  /** LZ4 as RocksDB 10.8 and later compress it (lz4OneShotFor); default false, as 7.x-10.7 do. */
  lz4OneShot?: boolean
  /** Each sampled value, uncompressed, is pushed here (for timing passes over them) while keepBytes lasts. */
  keepValues?: Uint8Array[]
  /** How many value bytes keepValues may take (default 16 MiB); decremented as values are kept. */
  keepBytes?: { left: number }
  /** Called now and then with the records done. */
  onProgress?: (done: number) => void
}

/**
 * Walk a blob file's records: every header read (counts and stored sizes exact), the sampled
 * records' values decompressed, compressed under every setting, decompressed again and compared
 * (a mismatch is an error of sstkit's codec, thrown). A damaged record throws a CorruptionError
 * naming its offset (`verify` says more).
 */
export function sampleBlobFile(file: BlobFile, settings: readonly BlobSetting[], options: BlobWalkOptions = {}): BlobFileSample {
  const rate = options.rate ?? defaultBlobRate(Math.max(0, file.recordsEnd - BLOB_HEADER_SIZE))
  const out: BlobFileSample = {
    records: 0,
    keyBytes: 0,
    storedValueBytes: 0,
    sampled: 0,
    rate,
    sums: settings.map(() => emptyBlobSums()),
    raw: emptyBlobSums(),
    hasFooter: file.footer !== null,
  }
  const compression = file.header.compression
  let offset = BLOB_HEADER_SIZE
  while (offset < file.recordsEnd) {
    if (file.recordsEnd - offset < BLOB_RECORD_HEADER_SIZE) {
      throw new CorruptionError(`blob record: ${file.recordsEnd - offset} bytes left, fewer than a record header's ${BLOB_RECORD_HEADER_SIZE}`, offset)
    }
    const header = decodeBlobRecordHeader(file.source.read(offset, BLOB_RECORD_HEADER_SIZE), offset, blobCrc)
    const { keySize, valueSize } = recordLengths(header, offset, file.recordsEnd)
    const index = out.records++
    out.keyBytes += keySize
    out.storedValueBytes += valueSize
    if (inBlobSample(index, rate)) {
      const body = file.source.read(offset + BLOB_RECORD_HEADER_SIZE, keySize + valueSize)
      checkBlobCrc(header, body, offset, blobCrc)
      const valueOffset = offset + BLOB_RECORD_HEADER_SIZE + keySize
      if (out.sampled === 0) decompressBlobValue(compression, body.subarray(keySize), valueOffset)
      let t = performance.now()
      const raw = Uint8Array.from(decompressBlobValue(compression, body.subarray(keySize), valueOffset))
      out.raw.decompressMs += performance.now() - t
      out.raw.timedBytes += raw.length
      addBlobRecord(out.raw, raw.length, valueSize)
      if (options.keepValues && options.keepBytes && options.keepBytes.left >= raw.length) {
        options.keepValues.push(raw)
        options.keepBytes.left -= raw.length
      }
      out.sampled++
      for (const [i, setting] of settings.entries()) {
        const sums = out.sums[i]
        // An untimed first round trip per setting: a codec's first calls (library binding, JIT) are not its speed.
        if (out.sampled === 1) decompressBlobValue(setting.type, compressBlob(setting, raw, options.lz4OneShot), 0)
        let compressed: Uint8Array = raw
        for (let r = 0; r < (options.repeat ?? 1); r++) {
          t = performance.now()
          compressed = compressBlob(setting, raw, options.lz4OneShot)
          sums.compressMs += performance.now() - t
          sums.timedBytes += raw.length
          t = performance.now()
          const back = decompressBlobValue(setting.type, compressed, 0)
          sums.decompressMs += performance.now() - t
          if (!equalBytes(back, raw)) throw new Error(`${blobSettingLabel(setting)}: the value at offset ${valueOffset} does not decompress to itself`)
        }
        addBlobRecord(sums, compressed.length, valueSize)
      }
    }
    offset += BLOB_RECORD_HEADER_SIZE + keySize + valueSize
    if ((index & 1023) === 1023) options.onProgress?.(out.records)
  }
  return out
}

/** The file's bytes when its values take `valueBytes`: header, record headers, keys, values, footer (RocksDB always closes it). */
export function blobFileBytes(records: number, keyBytes: number, valueBytes: number): number {
  return BLOB_HEADER_SIZE + records * BLOB_RECORD_HEADER_SIZE + keyBytes + valueBytes + BLOB_FOOTER_SIZE
}

/** A measured speed in MB/s (decimal), null without time. */
export function mbPerSecond(bytes: number, ms: number): number | null {
  return ms > 0 ? bytes / 1000 / ms : null
}

export interface BlobSettingResult {
  setting: BlobSetting
  label: string
  /** The values' bytes under the setting (exact when every record was read). */
  valueBytes: Interval
  /** The whole file as RocksDB would write it with this setting. */
  fileBytes: Interval
  /** Uncompressed value bytes / value bytes under the setting. */
  ratio: number
  /** Change of the file's bytes against the file as stored (-0.25 = 25% smaller). */
  vsStored: number
  compressMBps: number | null
  decompressMBps: number | null
  /** Too little time measured to rank on (under BLOB_MIN_TIMED_MS). */
  compressNoisy: boolean
  decompressNoisy: boolean
  /** Needs RocksDB 11.2+'s blob_compression_opts (a level other than the library's default, or the zstd checksum). */
  needsBlobCompressionOpts: boolean
}

/** The release facts a matrix was measured under. */
export interface BlobMatrixContext {
  /** The RocksDB release that wrote the file's database (OPTIONS or LOG beside it), or null. */
  release: string | null
  lz4OneShot: boolean
}

export interface BlobMatrixReport {
  fileSize: number
  compression: number
  records: number
  sampledRecords: number
  rate: number
  exact: boolean
  keyBytes: number
  storedValueBytes: number
  /** The values uncompressed (estimated when sampled). */
  rawValueBytes: Interval
  storedDecompressMBps: number | null
  storedDecompressNoisy: boolean
  results: BlobSettingResult[]
}

/** Every setting's figures from one walk's sums. */
export function blobMatrixReport(file: BlobFile, settings: readonly BlobSetting[], sample: BlobFileSample): BlobMatrixReport {
  const estimate = (sums: BlobSums) => blobRegression(sums, sample.storedValueBytes, sample.records, sample.rate)
  const fixed = blobFileBytes(sample.records, sample.keyBytes, 0)
  const raw = estimate(sample.raw)
  const results = settings.map((setting, i): BlobSettingResult => {
    const sums = sample.sums[i]
    const valueBytes = estimate(sums)
    const fileBytes = { estimate: fixed + valueBytes.estimate, low: fixed + valueBytes.low, high: fixed + valueBytes.high }
    return {
      setting,
      label: blobSettingLabel(setting),
      valueBytes,
      fileBytes,
      ratio: valueBytes.estimate > 0 ? raw.estimate / valueBytes.estimate : Number.NaN,
      vsStored: file.fileSize > 0 ? fileBytes.estimate / file.fileSize - 1 : 0,
      compressMBps: mbPerSecond(sums.timedBytes, sums.compressMs),
      decompressMBps: mbPerSecond(sums.timedBytes, sums.decompressMs),
      compressNoisy: sums.compressMs < BLOB_MIN_TIMED_MS,
      decompressNoisy: sums.decompressMs < BLOB_MIN_TIMED_MS,
      needsBlobCompressionOpts: needsBlobCompressionOpts(setting),
    }
  })
  return {
    fileSize: file.fileSize,
    compression: file.header.compression,
    records: sample.records,
    sampledRecords: sample.sampled,
    rate: sample.rate,
    exact: sample.sampled === sample.records,
    keyBytes: sample.keyBytes,
    storedValueBytes: sample.storedValueBytes,
    rawValueBytes: raw,
    storedDecompressMBps: mbPerSecond(sample.raw.timedBytes, sample.raw.decompressMs),
    storedDecompressNoisy: sample.raw.decompressMs < BLOB_MIN_TIMED_MS,
    results,
  }
}
