/**
 * advise for the blob files of an integrated BlobDB column family: `blob_compression_type` (one
 * per column family: blobs have no levels). The records of the column family's live blob files
 * (the MANIFEST's additions less the files all garbage) are one population: every record header is
 * read (counts, keys and stored sizes exact), a deterministic share of the records is decompressed
 * and compressed under every candidate as BlobFileBuilder does (recompress/blob-matrix.ts), and
 * each candidate's bytes are a regression estimate on the stored sizes with its 95% interval
 * (exact when every record was read). Files past the read budget are scaled by their size on disk.
 *
 * The decision follows the objective as for a bottommost level (blobs are written once at flush
 * and read by every Get of a large value): balanced, the smallest within 8x the fastest codec's
 * compression CPU that decompresses at least 1/16 as fast as the fastest (BOTTOMMOST_MIN_DECOMPRESS_SHARE),
 * all on the reference speeds as the levels are; size, the smallest; speed,
 * within 1.25x and half as fast. A candidate within MIN_GAIN of a faster one loses to it.
 */
import { performance } from 'node:perf_hooks'
import { statSync } from 'node:fs'
import { type BlobFile, decompressBlobValue, openBlobFile } from '../blob/reader.js'
import type { BlobFileView } from '../db/database.js'
import { isFileError } from '../errors.js'
import { compressionOptionName, compressionShortName, CompressionType, compressionTypeFromOptionName } from '../format/compression-type.js'
import { BLOB_FOOTER_SIZE, BLOB_HEADER_SIZE } from '../format/blob-file.js'
import { FileByteSource } from '../io/byte-source.js'
import {
  type BlobSetting,
  type BlobSums,
  blobRegression,
  compressBlob,
  defaultBlobSettings,
  emptyBlobSums,
  type Interval,
  lz4OneShotFor,
  mergeBlobSums,
  sampleBlobFile,
} from '../recompress/blob-matrix.js'
import { BOTTOMMOST_MIN_DECOMPRESS_SHARE, MIN_GAIN } from '../decide/rule.js'
import { nominalTimings } from '../decide/nominal.js'
import type { Advice, AdviceNote, BlobAdvice, BlobCandidate, Objective } from '../types/advice.js'
import { optionsNeed, optionsText } from '../db/compression-options.js'
import { atLeast, optionSince, type RocksdbVersion } from '../db/option-syntax.js'

/** The codecs advise weighs for blobs, at the library's default level (the only one before 11.2's blob_compression_opts). */
export const BLOB_CANDIDATES: readonly number[] = [
  CompressionType.None,
  CompressionType.Snappy,
  CompressionType.LZ4,
  CompressionType.LZ4HC,
  CompressionType.Zlib,
  CompressionType.ZSTD,
]
/** Stored blob bytes of a column family whose records are decompressed and compressed in full; above, a sample of about this much. */
export const BLOB_ADVISE_SAMPLE_BYTES = 4 << 20
/** Blob file bytes per column family whose record headers are walked; the other files are scaled by their size on disk. */
export const BLOB_ADVISE_READ_BYTES = 2 * 1024 ** 3
/** Uncompressed values kept for the timing passes (the first sampled ones, at most this many bytes). */
export const BLOB_TIMING_BYTES = 4 << 20
/** Each candidate's compression is timed over at least this many ms (the sampled values again, as often as needed). */
export const BLOB_TIMED_MS = 40

/** One column family's blob files, as the database lists them, and today's setting. */
export interface BlobColumnFamilyInput {
  name: string
  files: BlobFileView[]
  /** blob_compression_type in OPTIONS (kXxx), or null when not set or no OPTIONS. */
  blobCompressionType: string | null
  enableBlobFiles: boolean | null
}

interface Population {
  files: number
  filesRead: number
  readBytes: number
  allBytes: number
  records: number
  keyBytes: number
  storedValueBytes: number
  sampled: number
  rate: number
  raw: BlobSums
  sums: BlobSums[]
  values: Uint8Array[]
  notes: AdviceNote[]
  /** Live blob files missing, unopenable or damaged: findings (the command exits 1). */
  problems: { file: string; offset: number | null; message: string }[]
  compressions: Set<number>
}

function sizeOnDisk(b: BlobFileView): number | null {
  try {
    return statSync(b.path).size
  } catch {
    return null
  }
}

/** Read a column family's blob files: headers of every record of the files within the read budget, a sample of the records measured. */
function measure(input: BlobColumnFamilyInput, settings: BlobSetting[], lz4OneShot: boolean): Population {
  const sizes = input.files.map((f) => sizeOnDisk(f))
  const allBytes = input.files.reduce((n, f, i) => n + (sizes[i] ?? f.totalBlobBytes), 0)
  // Files to read: every one within the budget, else an evenly spread subset of them.
  const onDisk = input.files.map((f, i) => ({ f, size: sizes[i] })).filter((x) => x.size !== null) as { f: BlobFileView; size: number }[]
  const diskBytes = onDisk.reduce((n, x) => n + x.size, 0)
  const share = diskBytes <= BLOB_ADVISE_READ_BYTES ? 1 : BLOB_ADVISE_READ_BYTES / diskBytes
  const chosen = onDisk.filter((_, i) => share >= 1 || Math.floor((i + 1) * share) > Math.floor(i * share))
  const chosenBytes = chosen.reduce((n, x) => n + x.size, 0)
  const rate = chosenBytes <= BLOB_ADVISE_SAMPLE_BYTES ? 1 : BLOB_ADVISE_SAMPLE_BYTES / chosenBytes
  const pop: Population = {
    files: input.files.length,
    filesRead: 0,
    readBytes: 0,
    allBytes,
    records: 0,
    keyBytes: 0,
    storedValueBytes: 0,
    sampled: 0,
    rate,
    raw: emptyBlobSums(),
    sums: settings.map(() => emptyBlobSums()),
    values: [],
    notes: [],
    problems: [],
    compressions: new Set(),
  }
  for (const [i, f] of input.files.entries())
    if (sizes[i] === null)
      pop.problems.push({
        file: f.path,
        offset: null,
        message: "live blob file the MANIFEST lists is missing on disk: counted at the MANIFEST's bytes, not read",
      })
  if (chosen.length < onDisk.length)
    pop.notes.push({ code: 'blob-files-sampled', columnFamily: input.name, read: chosen.length, files: onDisk.length, maxBytes: BLOB_ADVISE_READ_BYTES })
  const keepBytes = { left: BLOB_TIMING_BYTES }
  for (const { f, size } of chosen) {
    let blob: BlobFile
    try {
      blob = openBlobFile(new FileByteSource(f.path))
    } catch (e) {
      if (!isFileError(e)) throw e
      pop.problems.push({ file: f.path, offset: (e as { offset?: number }).offset ?? null, message: `${(e as Error).message}: blob file not read` })
      continue
    }
    try {
      const s = sampleBlobFile(blob, settings, { rate, lz4OneShot, keepValues: pop.values, keepBytes })
      pop.filesRead++
      pop.readBytes += size
      pop.records += s.records
      pop.keyBytes += s.keyBytes
      pop.storedValueBytes += s.storedValueBytes
      pop.sampled += s.sampled
      pop.raw = mergeBlobSums(pop.raw, s.raw)
      pop.sums = pop.sums.map((sum, i) => mergeBlobSums(sum, s.sums[i]))
      pop.compressions.add(blob.header.compression)
    } catch (e) {
      if (!isFileError(e)) throw e
      pop.problems.push({ file: f.path, offset: (e as { offset?: number }).offset ?? null, message: `${(e as Error).message}: blob file left out` })
    } finally {
      blob.close()
    }
  }
  return pop
}

/** Compression and decompression speed of each setting over the kept values, timed for at least BLOB_TIMED_MS each. */
function timeSettings(
  values: Uint8Array[],
  settings: BlobSetting[],
  lz4OneShot: boolean,
): { compressSecPerGB: number | null; decompressMBps: number | null }[] {
  const bytes = values.reduce((n, v) => n + v.length, 0)
  return settings.map((setting) => {
    if (bytes === 0) return { compressSecPerGB: null, decompressMBps: null }
    let cMs = 0
    let dMs = 0
    let done = 0
    // Untimed first passes: each codec's first calls (native library binding, JIT) are not its speed.
    const compressed = values.map((v) => compressBlob(setting, v, lz4OneShot))
    for (const c of compressed) decompressBlobValue(setting.type, c, 0)
    while (cMs < BLOB_TIMED_MS || dMs < BLOB_TIMED_MS) {
      let t = performance.now()
      for (const v of values) compressBlob(setting, v, lz4OneShot)
      cMs += performance.now() - t
      t = performance.now()
      for (const c of compressed) if (setting.type !== CompressionType.None) decompressBlobValue(setting.type, c, 0)
      dMs += performance.now() - t
      done++
      if (done > 10000) break
    }
    const total = bytes * done
    return {
      compressSecPerGB: setting.type === CompressionType.None ? 0 : cMs / 1000 / (total / 1e9),
      decompressMBps: dMs > 0 ? total / 1e6 / (dMs / 1000) : null,
    }
  })
}

/**
 * A blob candidate's speeds as decisions take them: the reference speeds (decide/nominal.ts), as
 * for the SST levels, so that runs agree; the candidates' own fields keep this run's timings.
 */
function referenceSpeeds(c: BlobCandidate): { cpu: number; dec: number | null } {
  if (c.option === 'kNoCompression') return { cpu: 0, dec: null }
  const t = nominalTimings({ type: c.label, level: null, dict: 'none', checksum: false, label: c.label })
  return { cpu: t.compress.value ?? 0, dec: t.decompress.value }
}

/** The recommended candidate under the objective, and why. */
export function chooseBlob(candidates: BlobCandidate[], objective: Objective): { pick: BlobCandidate; reason: string } {
  const compressing = candidates.filter((c) => c.option !== 'kNoCompression')
  const cpus = compressing.map((c) => referenceSpeeds(c).cpu).filter((v) => v > 0)
  const decs = compressing.map((c) => referenceSpeeds(c).dec).filter((v): v is number => v !== null && v > 0)
  const fastestCpu = cpus.length ? Math.min(...cpus) : null
  const fastestDec = decs.length ? Math.max(...decs) : null
  const share = BOTTOMMOST_MIN_DECOMPRESS_SHARE
  const [cpuK, decK, describe] =
    objective === 'size'
      ? [null, null, 'the smallest']
      : objective === 'speed'
        ? [1.25, 0.5, "the smallest within 1.25x the fastest codec's CPU that decompresses at least half as fast as the fastest"]
        : [8, share, `the smallest within 8x the fastest codec's CPU that decompresses at least 1/${Math.round(1 / share)} as fast as the fastest`]
  const cpuOf = (c: BlobCandidate) => referenceSpeeds(c).cpu
  const meets = (c: BlobCandidate) =>
    c.option === 'kNoCompression' ||
    ((cpuK === null || fastestCpu === null || cpuOf(c) <= cpuK * fastestCpu) &&
      (decK === null || fastestDec === null || (referenceSpeeds(c).dec ?? Number.POSITIVE_INFINITY) >= decK * fastestDec))
  const eligible = candidates.filter(meets).sort((a, b) => a.bytes.estimate - b.bytes.estimate)
  let pick = eligible[0] ?? candidates[0]
  // A faster setting within MIN_GAIN of the smallest is worth more than the last percent.
  const cheaper = eligible.filter((c) => c.bytes.estimate <= pick.bytes.estimate * (1 + MIN_GAIN) && cpuOf(c) < cpuOf(pick))
  if (cheaper.length) pick = cheaper.sort((a, b) => cpuOf(a) - cpuOf(b))[0]
  const change = pick.change.estimate
  return {
    pick,
    reason: `${describe}${cheaper.length ? ` (a faster one within ${MIN_GAIN * 100}% of the smallest preferred)` : ''}: ${(change * 100).toFixed(1)}% against today`,
  }
}

export interface BlobAdviseOptions {
  objective: Objective
  rocksdbVersion: RocksdbVersion | null
}

/**
 * Add the blob advice to `advice`: `advice.blobs` per column family with blob files, and
 * blob_compression_type in that column family's options where the release parses it.
 */
export function adviseBlobs(advice: Advice, inputs: BlobColumnFamilyInput[], opts: BlobAdviseOptions): void {
  if (inputs.length === 0) return
  const release = opts.rocksdbVersion
  const lz4OneShot = lz4OneShotFor(release ? [release[0], release[1]] : null)
  const settings = defaultBlobSettings(BLOB_CANDIDATES)
  const out: BlobAdvice[] = []
  for (const input of inputs) {
    const pop = measure(input, settings, lz4OneShot)
    advice.notes.push(...pop.notes)
    advice.problems.push(...pop.problems)
    const filesToday = pop.compressions.size === 1 ? compressionOptionName([...pop.compressions][0]) : null
    const today = input.blobCompressionType ?? filesToday
    const base = {
      columnFamily: input.name,
      files: pop.files,
      filesRead: pop.filesRead,
      bytes: pop.allBytes,
      garbageBytes: input.files.reduce((n, f) => n + f.garbageBlobBytes, 0),
      records: pop.records,
      sampledRecords: pop.sampled,
      today,
    }
    if (pop.sampled === 0) {
      out.push({
        ...base,
        status: 'not sampled',
        recommended: null,
        reason: `no blob record could be read: blob_compression_type ${today ? `stays ${today}` : 'is left as it is'}`,
        inOptions: false,
        candidates: [],
      })
      continue
    }
    const timings = timeSettings(pop.values, settings, lz4OneShot)
    pop.values.length = 0
    // The files read, projected; the files not read scaled by their size on disk.
    const scale = pop.readBytes > 0 ? pop.allBytes / pop.readBytes : 1
    const fixed = pop.filesRead * (BLOB_HEADER_SIZE + BLOB_FOOTER_SIZE) + pop.records * 32 + pop.keyBytes
    const raw = blobRegression(pop.raw, pop.storedValueBytes, pop.records, pop.rate)
    const candidates = settings.map((s, i): BlobCandidate => {
      const v = blobRegression(pop.sums[i], pop.storedValueBytes, pop.records, pop.rate)
      const bytes = { estimate: (fixed + v.estimate) * scale, low: (fixed + v.low) * scale, high: (fixed + v.high) * scale }
      const change = { estimate: bytes.estimate / pop.allBytes - 1, low: bytes.low / pop.allBytes - 1, high: bytes.high / pop.allBytes - 1 }
      return {
        option: compressionOptionName(s.type),
        label: compressionShortName(s.type),
        bytes: round(bytes),
        change,
        ratio: v.estimate > 0 ? raw.estimate / v.estimate : Number.NaN,
        ...timings[i],
      }
    })
    const { pick, reason } = chooseBlob(candidates, opts.objective)
    const since = optionSince('blob_compression_type')
    const accepted = release === null || atLeast(release, since)
    const inOptions = accepted && advice.columnFamilies.some((c) => c.name === input.name)
    const notWritten = !accepted ? `; not in the options: RocksDB ${release?.join('.')} does not parse blob_compression_type (${since} and later do)` : ''
    out.push({ ...base, status: 'advised', recommended: pick.option, reason: reason + notWritten, inOptions, candidates })
  }
  advice.blobs = out
  writeBlobOptions(advice)
}

/** After --merge of shards: every shard advised the blob files whole (they are not sharded), so the first part's blob advice stands. */
export function mergeBlobAdvice(merged: Advice, parts: readonly Advice[]): void {
  const blobs = parts.find((p) => p.blobs)?.blobs
  if (!blobs) return
  merged.blobs = blobs
  writeBlobOptions(merged)
}

/** blob_compression_type into the options of each column family whose blob advice says so (also after --merge of shards). */
export function writeBlobOptions(advice: Advice): void {
  for (const b of advice.blobs ?? []) {
    const cf = advice.columnFamilies.find((c) => c.name === b.columnFamily)
    if (!cf || !b.inOptions || b.recommended === null) continue
    cf.options = { ...cf.options, blob_compression_type: b.recommended }
    cf.optionsText = optionsText(cf.name, cf.options)
    cf.optionsNeed = optionsNeed(cf.options)
  }
}

function round(i: Interval): Interval {
  return { estimate: Math.round(i.estimate), low: Math.round(i.low), high: Math.round(i.high) }
}

/** The blob column families of a database: those with live blob files, with today's blob options. */
export function blobInputs(
  columnFamilies: { name: string; blobFiles: BlobFileView[] }[],
  options: { columnFamilies: { name: string; raw: Record<string, string> }[] } | null,
): BlobColumnFamilyInput[] {
  return columnFamilies
    .filter((cf) => cf.blobFiles.length > 0)
    .map((cf) => {
      const raw = options?.columnFamilies.find((c) => c.name === cf.name)?.raw ?? null
      const type = raw?.blob_compression_type ?? null
      return {
        name: cf.name,
        files: cf.blobFiles,
        blobCompressionType: type !== null && compressionTypeFromOptionName(type) !== undefined ? type : null,
        enableBlobFiles: raw?.enable_blob_files !== undefined ? raw.enable_blob_files === 'true' : null,
      }
    })
}
