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
import { equalBytes } from '../format/coding.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { RoundTripError } from '../recompress/evaluate.js'
import { collectSampleSets, finalizedDictionary, trainedDictionary, type DictionaryOptions } from '../recompress/dictionary.js'
import { defaultFormatVersion } from '../rewrite/rewrite.js'
import { openTable, type Table } from '../table/reader.js'
import { ReadWindow } from '../io/byte-source.js'
import { newScratch } from '../codec/output.js'
import { messageOf } from '../table/layout.js'
import { collectYoungGarbage } from '../util/garbage.js'
import { addBlock, addCertainBlock, emptySums } from '../decide/estimate.js'
import type { SampleSums, SettingSpec } from '../types/advice.js'
import { blockDraw } from './sampling.js'
import { acceptanceOf, dictionaryOptionsOf, typeByte } from '../decide/settings.js'

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
const COLLECT_CHECK_BYTES = 1 << 20

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
  maxCompressedBytesPerKb: number
  /**
   * A timing pass: sizes are not counted again; the blocks in the rate range are
   * compressed and decompressed repeatedly, `rates` measurements of at least
   * `bytesPerRate` input bytes each (the sampled blocks of a small level are too
   * few for steady timings in one pass).
   */
  timing?: { rates: number; bytesPerRate: number }
  /** The file's dictionaries, built once by a `dictionariesOnly` task and handed to every later task of the file. */
  dictionaries?: FileDictionaries
  /** Only build the dictionaries the settings need (what RocksDB's builder would make for this file). */
  dictionariesOnly?: boolean
}

/** A file's dictionaries by kind (raw, train, finalize/LEVEL), with the time each took to build. */
export type FileDictionaries = Record<string, { bytes: Uint8Array; ms: number }>

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
function dictionariesFor(table: Table, task: FileTask): Map<string, { bytes: Uint8Array; ms: number }> {
  const built = new Map(Object.entries(task.dictionaries ?? {}))
  const wanted = task.settings.filter((x) => x.spec.dict !== 'none' && !built.has(dictKey(x.spec)))
  // Settings that share dictionary options share the buffered blocks' samples.
  const byOptions = new Map<string, { spec: SettingSpec }[]>()
  for (const x of wanted) {
    const o = dictionaryOptionsOf(x.spec, task.dict)
    const k = `${o.maxDictBytes}/${o.trainBytes}/${o.maxDictBufferBytes}`
    byOptions.set(k, [...(byOptions.get(k) ?? []), x])
  }
  for (const group of byOptions.values()) buildWithOptions(table, group, dictionaryOptionsOf(group[0].spec, task.dict), built)
  return built
}

/** Build the dictionaries of settings that share dictionary options `o`, from the file's buffered blocks, into `built`. */
function buildWithOptions(table: Table, wanted: { spec: SettingSpec }[], o: DictionaryOptions, built: Map<string, { bytes: Uint8Array; ms: number }>): void {
  const needRaw = wanted.some((x) => x.spec.dict === 'raw')
  const needTrain = wanted.some((x) => x.spec.dict === 'train' || x.spec.dict === 'finalize')
  const budgets = [...(needRaw ? [o.maxDictBytes] : []), ...(needTrain ? [o.trainBytes] : [])]
  const t0 = performance.now()
  const sets = collectSampleSets(table, { blockSize: null, samplePercent: 100 }, o, budgets)
  const sampleMs = (performance.now() - t0) / budgets.length
  const raw = needRaw ? sets[0] : undefined
  const train = needTrain ? sets[needRaw ? 1 : 0] : undefined
  for (const x of wanted) {
    const key = dictKey(x.spec)
    if (built.has(key)) continue
    const t1 = performance.now()
    let bytes: Uint8Array
    if (x.spec.dict === 'raw') bytes = raw!.bytes
    else if (x.spec.dict === 'train') bytes = trainedDictionary(train!, o.maxDictBytes)
    else bytes = finalizedDictionary(train!, o.maxDictBytes, zstdLevel(x.spec.level))
    built.set(key, { bytes, ms: sampleMs + performance.now() - t1 })
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
    const dicts = task.settings.some((x) => x.spec.dict !== 'none') ? dictionariesFor(table, task) : new Map<string, { bytes: Uint8Array; ms: number }>()
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
  for (const ref of table.dataBlocks()) {
    const { offset, size } = ref.handle
    const isCertain = certain.has(offset)
    if (isCertain ? task.rateLow > 0 : !inRange(blockDraw(task.seed, task.key, offset), task)) continue
    let raw: Uint8Array
    try {
      raw = table.readDataBlock(ref.handle, reuse)
    } catch (e) {
      result.skipped.push({ offset, message: messageOf(e) })
      continue
    }
    if (states === null) {
      states = setUp()
      // The first call of a codec allocates its contexts: keep that out of the timings.
      for (const st of states) if (st.codec) st.codec.decompress(st.codec.compress(raw).slice(), raw.length)
    }
    result.blocks++
    const stored = size + TRAILER_BYTES
    const add = isCertain ? addCertainBlock : addBlock
    for (const st of states) {
      if (!st.codec || !attemptsCompression(raw.length, st.perKb)) {
        add(st.sums, raw.length + TRAILER_BYTES, stored, raw.length, false)
        continue
      }
      const t0 = performance.now()
      const framed = st.codec.compress(raw)
      const ms = performance.now() - t0
      st.sums.compressMs += ms
      st.sums.timedBytes += raw.length
      st.pendingCompressMs += ms
      st.pendingCompressBytes += raw.length
      if (!keepsCompressed(framed.length, raw.length, st.perKb)) {
        st.sums.rejectedMs += ms
        add(st.sums, raw.length + TRAILER_BYTES, stored, raw.length, true)
      } else {
        add(st.sums, framed.length + TRAILER_BYTES, stored, raw.length, false)
        const t1 = performance.now()
        const back = st.codec.decompress(framed, raw.length)
        const dms = performance.now() - t1
        st.sums.decompressMs += dms
        st.sums.decompressedBytes += raw.length
        st.pendingDecompressMs += dms
        st.pendingDecompressBytes += raw.length
        if (!equalBytes(back, raw)) throw new RoundTripError(`round trip mismatch under ${st.spec.label} in the data block at offset ${offset} of ${task.path}`)
      }
      flushRates(st, false)
    }
    collectYoungGarbage(BLOCK_COLLECT_GROWTH_BYTES)
  }
  for (const st of states ?? []) {
    flushRates(st, true)
    result.sums[st.id] = st.sums
  }
  for (const { id } of task.settings) result.sums[id] ??= emptySums()
  return result
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
  const dicts =
    blocks.length && task.settings.some((x) => x.spec.dict !== 'none') ? dictionariesFor(table, task) : new Map<string, { bytes: Uint8Array; ms: number }>()
  for (const { id, spec } of task.settings) {
    const sums = emptySums()
    result.sums[id] = sums
    const type = typeByte(spec)
    if (type === CompressionType.None || blocks.length === 0) continue
    const d = spec.dict !== 'none' ? dicts.get(dictKey(spec)) : undefined
    const codec = codecFor(spec, formatVersion, d?.bytes.length ? d.bytes : undefined)
    codec.decompress(codec.compress(blocks[0]).slice(), blocks[0].length)
    for (let r = 0; r < plan.rates; r++) {
      let cBytes = 0
      let cMs = 0
      let dBytes = 0
      let dMs = 0
      for (let i = 0; cBytes < plan.bytesPerRate; i = (i + 1) % blocks.length) {
        const raw = blocks[i]
        const t0 = performance.now()
        const framed = codec.compress(raw)
        const t1 = performance.now()
        cMs += t1 - t0
        cBytes += raw.length
        if (keepsCompressed(framed.length, raw.length, acceptanceOf(spec, task.maxCompressedBytesPerKb))) {
          codec.decompress(framed, raw.length)
          dMs += performance.now() - t1
          dBytes += raw.length
        }
        // Once per COLLECT_CHECK_BYTES compressed, outside the timed spans.
        if (cBytes % COLLECT_CHECK_BYTES < raw.length) collectYoungGarbage(BLOCK_COLLECT_GROWTH_BYTES)
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
