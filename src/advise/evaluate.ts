/**
 * Evaluating the sampled blocks of one file under a list of settings: each
 * block is compressed as RocksDB's table builder would (framing, the
 * max_compressed_bytes_per_kb acceptance rule, the file's own dictionary built
 * from its buffered blocks), its size recorded against its size on disk today,
 * and every accepted block decompressed again (timed, and compared with the
 * original). A pure function of its inputs except the timings, so it runs the
 * same inline or in a worker thread.
 */
import { attemptsCompression, BlockCompressor, keepsCompressed } from '../codec/block-compressor.js'
import { zstdLevel } from '../codec/setting.js'
import { CompressionType } from '../format/compression-type.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { threadCpuMs } from '../codec/kernel.js'
import { RoundTripError } from '../recompress/pending-round-trip.js'
import { type BuiltDictionary, collectSampleSets, finalizedDictionary, trainedDictionary, type DictionaryOptions } from '../recompress/dictionary.js'
import { defaultFormatVersion } from '../format/footer.js'
import { openTable, type Table } from '../table/reader.js'
import { ReadWindow } from '../io/byte-source.js'
import { newScratch } from '../codec/output.js'
import { messageOf } from '../table/layout.js'
import { collectYoungGarbage } from '../util/garbage.js'
import { addBlock, addCertainBlock, emptySums } from '../decide/estimate.js'
import type { SampleSums, SettingSpec } from '../types/advice.js'
import { blockDraw } from './sampling.js'
import { equalBytes } from '../format/coding.js'
import { zstdDictionaryId } from '../table/compression-dict.js'
import { acceptanceOf, bufferLimited, dictionaryOptionsOf, typeByte } from '../decide/settings.js'

const TRAILER_BYTES = BLOCK_TRAILER_BYTES

/** Per-batch timing granularity: one rate per this many input bytes. */
const RATE_BATCH_BYTES = 256 * 1024

/**
 * Inside a task, collect the young generation once the thread's buffers grew by this
 * (util/garbage.ts): snappy and lz4 allocate their outputs per block, and V8 alone would let
 * ~64 MiB of them die per thread before collecting, the most of advise's peak RSS (measured:
 * +25 MB per thread in the timing passes). Looked at once per this many bytes compressed.
 */
const BLOCK_COLLECT_GROWTH_BYTES = 4 << 20

export interface FileTask {
  path: string
  /** fileKey() of the file: with the seed, it fixes each block's draw. */
  key: number
  seed: number
  /** Evaluate the blocks whose draw lies in [rateLow, rateHigh). */
  rateLow: number
  rateHigh: number
  /** Offsets of the blocks evaluated with certainty (in the first round, rateLow = 0), whatever their draw. */
  certain: number[]
  settings: { id: number; spec: SettingSpec }[]
  dict: DictionaryOptions
  /** The target file size RocksDB writes the file's level with: it bounds the dictionary's buffer (bufferLimited). */
  targetFileSize?: number
  maxCompressedBytesPerKb: number
  /**
   * A timing pass: sizes are not counted again; the blocks in the rate range are
   * compressed and decompressed repeatedly, `rates` measurements of at least
   * `bytesPerRate` input bytes each (the sampled blocks of a small level are too
   * few for steady timings in one pass).
   */
  timing?: { rates: number; bytesPerRate: number }
  /** The file's dictionaries, built once by a `dictionariesOnly` task and handed to every later task of the file. */
  dictionaries?: KeptDictionaries
  /** Only build the dictionaries the settings need (what RocksDB's builder would make for this file). */
  dictionariesOnly?: boolean
}

/** A file's dictionaries by kind (raw, train, finalize/LEVEL), with the time each took to build. */
export type FileDictionaries = Record<string, BuiltDictionary>

/**
 * A dictionary kept as what it does not share with another of its file's (`of`, kept whole): `head`,
 * then the first `length - head.length` bytes of that one.
 */
export interface SharedDictionary {
  head: Uint8Array
  of: string
  length: number
  ms: number
  sampleBytes: number
}

/** A file's dictionaries as kept between rounds and handed to tasks (keepDictionaries). */
export type KeptDictionaries = Record<string, BuiltDictionary | SharedDictionary>

/** The longest head a dictionary shares the rest of another's after (a finalized dictionary's entropy tables: ~160 bytes). */
const MAX_SHARED_HEAD = 4096

/**
 * A file's dictionaries kept small: a finalized dictionary is its entropy tables before the file's
 * samples, which are the raw dictionary's first bytes, so it is kept as its tables and a reference.
 * The default matrix's seven dictionaries of a file take ~33 KB so instead of ~112 KB, the bytes the
 * engine keeps between rounds on the main thread. Exact: unpackDictionaries gives the same bytes.
 */
export function keepDictionaries(built: FileDictionaries): KeptDictionaries {
  // Bases: dictionaries of raw content (no zstd dictionary magic), kept whole.
  const bases = Object.entries(built).filter(([, d]) => d.bytes.length > 0 && zstdDictionaryId(d.bytes) === 0)
  const kept: KeptDictionaries = {}
  for (const [key, d] of Object.entries(built)) {
    const shared = bases.some(([k]) => k === key) ? null : sharedWith(d, bases)
    kept[key] = shared ?? d
  }
  return kept
}

/** `d` as a head and the start of one of `bases`, when most of it is that. */
function sharedWith(d: BuiltDictionary, bases: [string, BuiltDictionary][]): SharedDictionary | null {
  const b = d.bytes
  for (const [of, base] of bases) {
    const first = base.bytes[0]
    for (let h = 0; h < Math.min(MAX_SHARED_HEAD, b.length >> 1); h++) {
      if (b[h] !== first || b.length - h > base.bytes.length) continue
      if (equalBytes(b.subarray(h), base.bytes.subarray(0, b.length - h)))
        return { head: b.slice(0, h), of, length: b.length, ms: d.ms, sampleBytes: d.sampleBytes }
    }
  }
  return null
}

/** The dictionaries keepDictionaries kept, whole again. */
export function unpackDictionaries(kept: KeptDictionaries): FileDictionaries {
  const out: FileDictionaries = {}
  for (const [key, d] of Object.entries(kept)) {
    if (!('head' in d)) {
      out[key] = d
      continue
    }
    const base = kept[d.of] as BuiltDictionary
    const bytes = new Uint8Array(d.length)
    bytes.set(d.head)
    bytes.set(base.bytes.subarray(0, d.length - d.head.length), d.head.length)
    out[key] = { bytes, ms: d.ms, sampleBytes: d.sampleBytes }
  }
  return out
}

export interface FileTaskResult {
  sums: Record<number, SampleSums>
  /** Dictionary block bytes (trailer included) for this file, per setting id with a dictionary. */
  dictBytes: Record<number, number>
  dictMs: Record<number, number>
  blocks: number
  skipped: { offset: number; message: string }[]
  dictionaries?: FileDictionaries
}

export { RoundTripError }

type Codec = BlockCompressor

/**
 * One compressor per setting and framing, reused for every file this thread
 * evaluates (only the dictionary changes): native zstd contexts are made once,
 * not per file and round, so memory stays flat.
 */
const codecs = new Map<string, Codec>()

function codecFor(s: SettingSpec, formatVersion: number, dictionary: Uint8Array | undefined): Codec {
  const key = `${s.label}/${formatVersion >= 2 ? 2 : 1}`
  let c = codecs.get(key)
  if (!c) {
    c = new BlockCompressor({ compressionType: typeByte(s), level: s.level, zstdChecksum: s.checksum }, formatVersion, dictionary)
    codecs.set(key, c)
  } else c.useDictionary(dictionary)
  return c
}

/** A file's dictionary by kind; a setting with its own dictionary options (today's) gets its own. */
export function dictKey(s: SettingSpec): string {
  const kind = s.dict === 'finalize' ? `finalize/${zstdLevel(s.level)}` : s.dict
  const o = s.dictOptions
  return o ? `${kind}@${o.maxDictBytes}/${o.trainBytes}/${o.maxDictBufferBytes}` : kind
}

/** The dictionaries the task's settings need: handed over by the task, else built from the file as RocksDB's builder would. */
function dictionariesFor(table: Table, task: FileTask): Map<string, BuiltDictionary> {
  const built = new Map(Object.entries(unpackDictionaries(task.dictionaries ?? {})))
  const wanted = task.settings.filter((x) => x.spec.dict !== 'none' && !built.has(dictKey(x.spec)))
  // Settings that share dictionary options share the buffered blocks' samples.
  const byOptions = new Map<string, { spec: SettingSpec }[]>()
  for (const x of wanted) {
    const o = bufferLimited(dictionaryOptionsOf(x.spec, task.dict), task.targetFileSize ?? 0)
    const k = `${o.maxDictBytes}/${o.trainBytes}/${o.maxDictBufferBytes}`
    byOptions.set(k, [...(byOptions.get(k) ?? []), x])
  }
  for (const group of byOptions.values())
    buildWithOptions(table, group, bufferLimited(dictionaryOptionsOf(group[0].spec, task.dict), task.targetFileSize ?? 0), built)
  return built
}

/** Build the dictionaries of settings that share dictionary options `o`, from the file's buffered blocks, into `built`. */
function buildWithOptions(table: Table, wanted: { spec: SettingSpec }[], o: DictionaryOptions, built: Map<string, BuiltDictionary>): void {
  const needRaw = wanted.some((x) => x.spec.dict === 'raw')
  const needTrain = wanted.some((x) => x.spec.dict === 'train' || x.spec.dict === 'finalize')
  const budgets = [...(needRaw ? [o.maxDictBytes] : []), ...(needTrain ? [o.trainBytes] : [])]
  // Not charged: reading the file back to sample it is sstkit's cost; RocksDB's builder holds the blocks (docs/cpu.md).
  const sets = collectSampleSets(table, { blockSize: null, samplePercent: 100 }, o, budgets)
  const raw = needRaw ? sets[0] : undefined
  const train = needTrain ? sets[needRaw ? 1 : 0] : undefined
  for (const x of wanted) {
    const key = dictKey(x.spec)
    if (built.has(key)) continue
    const t1 = threadCpuMs()
    let bytes: Uint8Array
    if (x.spec.dict === 'raw') bytes = raw!.bytes
    else if (x.spec.dict === 'train') bytes = trainedDictionary(train!, o.maxDictBytes)
    else bytes = finalizedDictionary(train!, o.maxDictBytes, zstdLevel(x.spec.level))
    built.set(key, { bytes, ms: threadCpuMs() - t1, sampleBytes: (x.spec.dict === 'raw' ? raw! : train!).bytes.length })
  }
}

interface SettingState {
  id: number
  spec: SettingSpec
  type: number
  codec: Codec | null
  /** The acceptance rule (max_compressed_bytes_per_kb): the setting's own, else the run's. */
  perKb: number
  sums: SampleSums
  pendingCompressMs: number
  pendingCompressBytes: number
  pendingDecompressMs: number
  pendingDecompressBytes: number
}

function flushRates(st: SettingState, force: boolean): void {
  if (st.pendingCompressBytes >= RATE_BATCH_BYTES || (force && st.pendingCompressBytes >= RATE_BATCH_BYTES / 4)) {
    if (st.pendingCompressMs > 0) st.sums.compressRates.push(st.pendingCompressMs / 1000 / (st.pendingCompressBytes / 1e9))
    st.pendingCompressMs = 0
    st.pendingCompressBytes = 0
  }
  if (st.pendingDecompressBytes >= RATE_BATCH_BYTES || (force && st.pendingDecompressBytes >= RATE_BATCH_BYTES / 4)) {
    if (st.pendingDecompressMs > 0) st.sums.decompressRates.push(st.pendingDecompressBytes / 1e6 / (st.pendingDecompressMs / 1000))
    st.pendingDecompressMs = 0
    st.pendingDecompressBytes = 0
  }
}

function inRange(draw: number, task: FileTask): boolean {
  return draw >= task.rateLow && draw < task.rateHigh
}

/**
 * Reads of a sampled pass are sparse: a window of about one block, not the
 * default 1 MiB readahead, both for the I/O and because every window is a
 * buffer V8 frees only when it next collects.
 */
const SAMPLED_READAHEAD = 64 * 1024

export function evaluateFile(task: FileTask): FileTaskResult {
  const table = openTable(task.path, { readahead: task.dictionariesOnly || task.rateHigh - task.rateLow >= 0.5 ? undefined : SAMPLED_READAHEAD })
  try {
    return evaluateTable(table, task)
  } finally {
    table.close()
  }
}

/** Raw blocks a timing pass holds at most: the pass cycles over them. */
const TIMING_HOLD_BYTES = 4 << 20

export function evaluateTable(table: Table, task: FileTask): FileTaskResult {
  if (task.timing) return timeTable(table, task, task.timing)
  if (task.dictionariesOnly)
    return { sums: {}, dictBytes: {}, dictMs: {}, blocks: 0, skipped: [], dictionaries: Object.fromEntries(dictionariesFor(table, task)) }
  const result: FileTaskResult = { sums: {}, dictBytes: {}, dictMs: {}, blocks: 0, skipped: [] }
  const formatVersion = defaultFormatVersion(table.formatVersion)
  let states: SettingState[] | null = null
  const setUp = (): SettingState[] => {
    const dicts = task.settings.some((x) => x.spec.dict !== 'none') ? dictionariesFor(table, task) : new Map<string, BuiltDictionary>()
    return task.settings.map(({ id, spec }) => {
      const type = typeByte(spec)
      let dictionary: Uint8Array | undefined
      if (spec.dict !== 'none') {
        const d = dicts.get(dictKey(spec))!
        // A dictionary ZDICT could not build means none, as in RocksDB.
        if (d.bytes.length > 0) {
          dictionary = d.bytes
          result.dictBytes[id] = d.bytes.length + TRAILER_BYTES
        } else result.dictBytes[id] = 0
        result.dictMs[id] = d.ms
      }
      return {
        id,
        spec,
        type,
        codec: type === CompressionType.None ? null : codecFor(spec, formatVersion, dictionary),
        perKb: acceptanceOf(spec, task.maxCompressedBytesPerKb),
        sums: emptySums(),
        pendingCompressMs: 0,
        pendingCompressBytes: 0,
        pendingDecompressMs: 0,
        pendingDecompressBytes: 0,
      }
    })
  }
  const certain = new Set(task.certain)
  // One reused read window and decode buffer: no allocation per block read, so memory stays flat.
  const reuse = { window: new ReadWindow(table.source, task.rateHigh - task.rateLow >= 0.5 ? undefined : SAMPLED_READAHEAD), scratch: newScratch() }
  // Sampled blocks are evaluated a batch at a time: each setting compresses the batch in one call
  // and round-trips it in another, timed as RocksDB pays the codec work (codec/kernel.ts, docs/cpu.md).
  let batch: SampledBlock[] = []
  let batchBytes = 0
  const evaluateBatch = () => {
    if (batch.length === 0) return
    if (states === null) {
      states = setUp()
      // The first call of a codec allocates its contexts: keep that out of the timings.
      const raw = batch[0].raw
      for (const st of states) if (st.codec) st.codec.roundTripMany(st.codec.compressMany([raw]), [raw])
    }
    for (const st of states) evaluateSetting(st, batch, task.path)
    batch = []
    batchBytes = 0
    collectYoungGarbage(BLOCK_COLLECT_GROWTH_BYTES)
  }
  for (const ref of table.dataBlocks()) {
    const { offset, size } = ref.handle
    const isCertain = certain.has(offset)
    if (isCertain ? task.rateLow > 0 : !inRange(blockDraw(task.seed, task.key, offset), task)) continue
    let raw: Uint8Array
    try {
      raw = table.readDataBlock(ref.handle, reuse).slice()
    } catch (e) {
      result.skipped.push({ offset, message: messageOf(e) })
      continue
    }
    result.blocks++
    batch.push({ raw, offset, stored: size + TRAILER_BYTES, certain: isCertain })
    batchBytes += raw.length
    if (batchBytes >= BATCH_BYTES) evaluateBatch()
  }
  evaluateBatch()
  // Set up inside evaluateBatch (TypeScript does not follow the closure's assignment).
  for (const st of (states as SettingState[] | null) ?? []) {
    flushRates(st, true)
    result.sums[st.id] = st.sums
  }
  for (const { id } of task.settings) result.sums[id] ??= emptySums()
  return result
}

/** Sampled blocks evaluated together (a batch: one compression call and one round trip per setting). */
const BATCH_BYTES = 128 << 10

interface SampledBlock {
  raw: Uint8Array
  offset: number
  /** Its size on disk today, trailer included. */
  stored: number
  certain: boolean
}

/** One setting over a batch of sampled blocks: sizes by the acceptance rule, the batch's CPU, the kept blocks round-tripped. */
function evaluateSetting(st: SettingState, batch: SampledBlock[], path: string): void {
  const codec = st.codec
  const tried = codec ? batch.filter((b) => attemptsCompression(b.raw.length, st.perKb)) : []
  for (const b of batch) {
    if (codec && attemptsCompression(b.raw.length, st.perKb)) continue
    ;(b.certain ? addCertainBlock : addBlock)(st.sums, b.raw.length + TRAILER_BYTES, b.stored, b.raw.length, false)
  }
  if (!codec || tried.length === 0) return
  const c0 = codec.compressNs
  const framed = codec.compressMany(tried.map((b) => b.raw))
  const ms = (codec.compressNs - c0) / 1e6
  let bytes = 0
  for (const b of tried) bytes += b.raw.length
  st.sums.compressMs += ms
  st.sums.timedBytes += bytes
  st.pendingCompressMs += ms
  st.pendingCompressBytes += bytes
  const kept: number[] = []
  for (let i = 0; i < tried.length; i++) {
    const b = tried[i]
    const add = b.certain ? addCertainBlock : addBlock
    if (!keepsCompressed(framed[i].length, b.raw.length, st.perKb)) {
      // The rejected blocks' share of the batch's CPU, by their bytes.
      st.sums.rejectedMs += bytes > 0 ? (ms * b.raw.length) / bytes : 0
      add(st.sums, b.raw.length + TRAILER_BYTES, b.stored, b.raw.length, true)
    } else {
      add(st.sums, framed[i].length + TRAILER_BYTES, b.stored, b.raw.length, false)
      kept.push(i)
    }
  }
  if (kept.length > 0) {
    const d0 = codec.decompressNs
    const bad = codec.roundTripMany(
      kept.map((i) => framed[i]),
      kept.map((i) => tried[i].raw),
    )
    if (bad >= 0) throw new RoundTripError(`round trip mismatch under ${st.spec.label} in the data block at offset ${tried[kept[bad]].offset} of ${path}`)
    const dms = (codec.decompressNs - d0) / 1e6
    let keptBytes = 0
    for (const i of kept) keptBytes += tried[i].raw.length
    st.sums.decompressMs += dms
    st.sums.decompressedBytes += keptBytes
    st.pendingDecompressMs += dms
    st.pendingDecompressBytes += keptBytes
  }
  flushRates(st, false)
}

/** Time the settings again on this file's sampled blocks (held up to TIMING_HOLD_BYTES). */
function timeTable(table: Table, task: FileTask, plan: { rates: number; bytesPerRate: number }): FileTaskResult {
  const result: FileTaskResult = { sums: {}, dictBytes: {}, dictMs: {}, blocks: 0, skipped: [] }
  const formatVersion = defaultFormatVersion(table.formatVersion)
  const blocks: Uint8Array[] = []
  let held = 0
  // Read through one window and decode buffer: only the held copies are allocated.
  const reuse = { window: new ReadWindow(table.source, task.rateHigh - task.rateLow >= 0.5 ? undefined : SAMPLED_READAHEAD), scratch: newScratch() }
  for (const ref of table.dataBlocks()) {
    const draw = blockDraw(task.seed, task.key, ref.handle.offset)
    if (draw < task.rateLow || draw >= task.rateHigh) continue
    try {
      const raw = table.readDataBlock(ref.handle, reuse).slice()
      blocks.push(raw)
      held += raw.length
    } catch {
      continue // reported by the sampling pass
    }
    if (held >= TIMING_HOLD_BYTES) break
  }
  const dicts = blocks.length && task.settings.some((x) => x.spec.dict !== 'none') ? dictionariesFor(table, task) : new Map<string, BuiltDictionary>()
  for (const { id, spec } of task.settings) {
    const sums = emptySums()
    result.sums[id] = sums
    const type = typeByte(spec)
    if (type === CompressionType.None || blocks.length === 0) continue
    const d = spec.dict !== 'none' ? dicts.get(dictKey(spec)) : undefined
    const codec = codecFor(spec, formatVersion, d?.bytes.length ? d.bytes : undefined)
    codec.roundTripMany(codec.compressMany([blocks[0]]), [blocks[0]])
    const perKb = acceptanceOf(spec, task.maxCompressedBytesPerKb)
    let next = 0
    for (let r = 0; r < plan.rates; r++) {
      let cBytes = 0
      let cMs = 0
      let dBytes = 0
      let dMs = 0
      while (cBytes < plan.bytesPerRate) {
        // A batch of the held blocks, cycling over them.
        const chunk: Uint8Array[] = []
        let chunkBytes = 0
        while (chunkBytes < Math.min(BATCH_BYTES, plan.bytesPerRate - cBytes) || chunk.length === 0) {
          const raw = blocks[next]
          next = (next + 1) % blocks.length
          chunk.push(raw)
          chunkBytes += raw.length
        }
        const c0 = codec.compressNs
        const framed = codec.compressMany(chunk)
        cMs += (codec.compressNs - c0) / 1e6
        cBytes += chunkBytes
        const kept = chunk.map((_, i) => i).filter((i) => keepsCompressed(framed[i].length, chunk[i].length, perKb))
        if (kept.length > 0) {
          const d0 = codec.decompressNs
          codec.roundTripMany(
            kept.map((i) => framed[i]),
            kept.map((i) => chunk[i]),
          )
          dMs += (codec.decompressNs - d0) / 1e6
          for (const i of kept) dBytes += chunk[i].length
        }
        collectYoungGarbage(BLOCK_COLLECT_GROWTH_BYTES)
      }
      sums.compressMs += cMs
      sums.timedBytes += cBytes
      sums.decompressMs += dMs
      sums.decompressedBytes += dBytes
      if (cMs > 0) sums.compressRates.push(cMs / 1000 / (cBytes / 1e9))
      if (dMs > 0) sums.decompressRates.push(dBytes / 1e6 / (dMs / 1000))
    }
  }
  return result
}
