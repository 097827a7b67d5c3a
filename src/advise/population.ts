/**
 * What advise samples from: the live files of each (column family, level),
 * with the facts the estimator needs about every data block (how many, and
 * their size on disk today) read from the files' indexes, and what the
 * files and the OPTIONS file say the compression is today.
 */
import { statSync } from 'node:fs'
import { basename } from 'node:path'
import { compressionPropertyName } from '../format/compression-type.js'
import { COMPRESSION_DICT_BLOCK } from '../format/metaindex.js'
import { Property, propertyNumber, propertyString } from '../format/properties.js'
import { declaredUncompressedSize } from '../codec/compression.js'
import type { DictionaryOptions } from '../recompress/dictionary.js'
import { planSamples } from '../table/compression-dict.js'
import { openTable, type Table } from '../table/reader.js'
import { readRawBlock } from '../table/block-reader.js'
import { ReadWindow } from '../io/byte-source.js'
import { SstkitError } from '../errors.js'
import type { SettingSpec } from '../types/advice.js'
import { blockDraw, fileKey } from './sampling.js'
import { settingFromProperties } from '../db/today-setting.js'
import { bufferLimited } from '../decide/settings.js'
import { compressionFromTrailers } from './trailers.js'

const TRAILER_BYTES = 5

export interface PopulationFile {
  path: string
  /** The database's file number, or null for plain files. */
  fileNumber: number | null
  key: number
  fileSize: number
  dataBlocks: number
  /** Data blocks on disk, trailers included. */
  dataBytes: number
  /** The entries its properties record; null for a table without properties (LevelDB's): unknown, not 0. */
  entries: number | null
  /** Dictionary block on disk today (trailer included), 0 without one. */
  dictBytes: number
  compression: string
  /** Today's setting as the file's properties record it. */
  propertiesSetting: SettingSpec | null
  /**
   * Offsets of the data blocks evaluated with certainty, outside the sample: those whose bytes RocksDB's
   * builder would put into this file's dictionary (under a dictionary they compress unlike any other), and
   * the file's last data block, cut short at the file's end (a small block far from the others' sizes, which
   * a regression fitted on full blocks would extrapolate to badly whenever the sample missed it).
   */
  certain: number[]
  /** Read early, whatever its draw, and left out of the ratios the unread files are estimated at (smallEarly). */
  small?: boolean
}

export interface LevelGroup {
  columnFamily: string
  level: number | null
  bottommost: boolean
  /** The files read (index, properties, dictionary framing): the first in the level's size-proportional order. */
  files: PopulationFile[]
  /** Live files not read yet, in the level's size-proportional order: only their size on disk is known. */
  pending: InputFile[]
  /** The same in short: how many, and their bytes on disk. */
  unread: { files: number; fileBytes: number }
  /** What the OPTIONS file says this level gets today, when there is one. */
  optionsSetting: SettingSpec | null
  /** The target file size RocksDB writes this level's files with (options.ts targetFileSize; 0: none, unknown). */
  targetFileSize?: number
}

/** A live file as the MANIFEST lists it (or a plain file): `size` its bytes on disk when the list says (else looked up). */
export interface InputFile {
  path: string
  fileNumber: number | null
  size?: number
  /** See PopulationFile's. */
  small?: boolean
}

/** A file as a database lists it, or a plain file (fileNumber null, level unknown). */
export interface GroupInput {
  columnFamily: string
  level: number | null
  bottommost: boolean
  files: InputFile[]
  optionsSetting: SettingSpec | null
  /** As LevelGroup's. */
  targetFileSize?: number
}

/**
 * Read each file's index and properties (the data blocks themselves are not read). `optionsSetting`: what the
 * OPTIONS file says the level gets today; today's dictionary (that one's, else the file's own) has its content blocks too.
 */
export function describeFile(
  path: string,
  fileNumber: number | null,
  dict: DictionaryOptions | null = null,
  optionsSetting: SettingSpec | null = null,
  targetFileSize = 0,
): PopulationFile {
  const table = openTable(path)
  try {
    // A table without the property (no properties block: LevelDB's) says it in its blocks' trailers.
    const compression = propertyString(table.properties, Property.Compression) ?? compressionFromTrailers(table) ?? 'unknown'
    const propertiesSetting = settingFromProperties(compression, propertyString(table.properties, Property.CompressionOptions))
    const todayDict = (optionsSetting ?? propertiesSetting)?.dictOptions
    const dicts = [...(dict ? [dict] : []), ...(todayDict ? [todayDict] : [])].map((d) => bufferLimited(d, targetFileSize))
    const dictionaryContent = dictionaryContentBlocks(table, dicts)
    let dataBlocks = 0
    let dataBytes = 0
    let last: number | null = null
    for (const ref of table.dataBlocks()) {
      dataBlocks++
      dataBytes += ref.handle.size + TRAILER_BYTES
      last = ref.handle.offset
    }
    const certain = last === null || dictionaryContent.includes(last) ? dictionaryContent : [...dictionaryContent, last]
    const dictBlock = table.metaBlock(COMPRESSION_DICT_BLOCK)
    return {
      path,
      fileNumber,
      key: fileKey(basename(path), fileNumber),
      fileSize: table.fileSize,
      dataBlocks,
      dataBytes,
      entries: propertyNumber(table.properties, Property.NumEntries) ?? null,
      dictBytes: dictBlock ? dictBlock.size + TRAILER_BYTES : 0,
      compression,
      propertiesSetting,
      certain,
    }
  } finally {
    table.close()
  }
}

/**
 * The blocks RocksDB's builder samples first for a dictionary (the walk of
 * table/compression-dict.ts over the buffered blocks, up to max_dict_bytes):
 * a raw dictionary is their bytes, and a finalized one starts from them. Sizes
 * come from the blocks' framing where it records them, so this reads but does
 * not decompress. For several dictionary options (the run's and today's), the
 * union of their blocks, in one walk.
 */
function dictionaryContentBlocks(table: Table, dicts: DictionaryOptions[]): number[] {
  if (dicts.length === 0) return []
  const sizes: number[] = []
  const offsets: number[] = []
  let total = 0
  // 0: no limit but the file (bufferLimited applied the target file size).
  const limitOf = (d: DictionaryOptions) => (d.maxDictBufferBytes === 0 ? Number.POSITIVE_INFINITY : d.maxDictBufferBytes)
  const limit = Math.max(...dicts.map(limitOf))
  const window = new ReadWindow(table.source)
  for (const ref of table.dataBlocks()) {
    let size: number | undefined
    try {
      const raw = readRawBlock(table.source, ref.handle, table.checksum, { what: 'data block', verifyChecksum: false, limit: table.footer.offset, window })
      size = declaredUncompressedSize(raw.compressionType, raw.payload, table.formatVersion, ref.handle.offset)
      size ??= table.readBlock(ref.handle, 'data block', true).length
    } catch {
      continue // an unreadable block is not buffered, as in the dictionary builder
    }
    sizes.push(size)
    offsets.push(ref.handle.offset)
    total += size
    if (total > limit) break
  }
  const blocks = new Set<number>()
  for (const d of dicts) {
    const buffered = bufferedCount(sizes, limitOf(d))
    for (const p of planSamples(sizes.slice(0, buffered), d.maxDictBytes)) blocks.add(offsets[p.block])
  }
  return [...blocks].sort((a, b) => a - b)
}

/** How many of the blocks RocksDB buffers under a buffer limit: up to and including the one that passes it. */
function bufferedCount(sizes: number[], limit: number): number {
  let total = 0
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i]
    if (total > limit) return i + 1
  }
  return sizes.length
}

export interface PopulationOptions {
  /** Dictionary options when a setting uses a dictionary (its content blocks are located), else null. */
  dict: DictionaryOptions | null
  seed: number
  /** Stop reading more files once `clock()` passes this (ms); every level still gets MIN_FILES_READ files. */
  deadline: number
  clock: () => number
  /** Read at most this many files of a level (the engine reads more later where the spread between files asks for it). */
  filesPerLevel?: number
}

/** Files of a level read whatever the clock says: with fewer than two, the spread between files is unknown. */
export const MIN_FILES_READ = 2

/**
 * The order in which a level's files are read: sequential Poisson sampling
 * with probability proportional to size (key = u / size, u a uniform draw
 * from the seed and the file), so that any prefix is a sample of files drawn
 * in proportion to their bytes, and a longer prefix only adds files.
 */
export function sizeProportionalOrder<T extends InputFile>(files: T[], seed: number, sizeOf: (f: T) => number): T[] {
  const keyed = files.map((f, i) => {
    const u = blockDraw(seed, fileKey(basename(f.path), f.fileNumber), 0)
    return { f, i, key: (u + 1e-12) / Math.max(1, sizeOf(f)) }
  })
  return keyed.sort((a, b) => a.key - b.key || a.i - b.i).map((k) => k.f)
}

/** Files under this share of their level's median size on disk are read early (smallEarly). */
export const SMALL_FILE_SHARE = 0.25

/**
 * A level's files in the order they are read: the first MIN_FILES_READ large ones of the size-proportional
 * order (read whatever the clock says), then its small files (under SMALL_FILE_SHARE of the median, marked),
 * then the other large ones. A compaction's last output file is unlike the others in more than size (its
 * dictionary is sampled from all of its blocks, not from the first target-size bytes of them, and its fixed
 * parts weigh more), so no ratio of the large files read predicts it, while reading it costs little. The unread
 * files are estimated from the large files read alone; a small file the time budget leaves unread is
 * estimated with them.
 */
export function smallEarly<T extends InputFile & { size: number }>(ordered: T[]): T[] {
  if (ordered.length < 3) return ordered
  const sizes = ordered.map((f) => f.size).sort((a, b) => a - b)
  const limit = SMALL_FILE_SHARE * sizes[sizes.length >> 1]
  const small = ordered.filter((f) => f.size < limit).map((f) => ({ ...f, small: true }))
  if (small.length === 0) return ordered
  const large = ordered.filter((f) => !(f.size < limit))
  return [...large.slice(0, MIN_FILES_READ), ...small, ...large.slice(MIN_FILES_READ)]
}

/** Read one file for the population, or report it and leave it out. */
export function readFile(
  f: InputFile,
  dict: DictionaryOptions | null,
  optionsSetting: SettingSpec | null,
  problems: { file: string; offset: number | null; message: string }[],
  targetFileSize = 0,
): PopulationFile | null {
  try {
    const file = describeFile(f.path, f.fileNumber, dict, optionsSetting, targetFileSize)
    return f.small ? { ...file, small: true } : file
  } catch (e) {
    problems.push({ file: f.path, offset: (e as { offset?: number }).offset ?? null, message: `${(e as Error).message}; left out` })
    return null
  }
}

/**
 * The first pass: each level's files in size-proportional order (index,
 * properties, dictionary framing), one file per level in turn, so that every
 * level is represented when the deadline or `filesPerLevel` stops the pass;
 * the rest stay pending (their size on disk from the MANIFEST). A file that
 * cannot be opened is reported and left out.
 */
export function readPopulation(
  inputs: GroupInput[],
  o: PopulationOptions,
): { groups: LevelGroup[]; problems: { file: string; offset: number | null; message: string }[] } {
  const problems: { file: string; offset: number | null; message: string }[] = []
  const cap = o.filesPerLevel ?? Number.POSITIVE_INFINITY
  const queues = inputs.map((g) => {
    const sized = g.files.map((f) => ({ ...f, size: f.size ?? sizeOnDisk(f.path) }))
    return smallEarly(sizeProportionalOrder(sized, o.seed, (f) => f.size))
  })
  const read = inputs.map(() => [] as { i: number; file: PopulationFile }[])
  const next = inputs.map(() => 0)
  for (let progressed = true; progressed; ) {
    progressed = false
    queues.forEach((q, g) => {
      if (next[g] >= q.length || read[g].length >= cap) return
      // Every level gets MIN_FILES_READ files whatever the clock says: without them it has no interval at all.
      if (read[g].length >= MIN_FILES_READ && o.clock() >= o.deadline) return
      const f = q[next[g]++]
      progressed = true
      const file = readFile(f, o.dict, inputs[g].optionsSetting, problems, inputs[g].targetFileSize)
      if (file) read[g].push({ i: next[g] - 1, file })
    })
  }
  const groups = inputs.map((g, k) => {
    const pending = queues[k].slice(next[k])
    return {
      columnFamily: g.columnFamily,
      level: g.level,
      bottommost: g.bottommost,
      optionsSetting: g.optionsSetting,
      targetFileSize: g.targetFileSize ?? 0,
      files: read[k].map((r) => r.file),
      pending,
      unread: { files: pending.length, fileBytes: pending.reduce((a, f) => a + (f.size ?? 0), 0) },
    }
  })
  return { groups, problems }
}

function sizeOnDisk(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** Plain files: grouped by the column family their properties name; levels unknown. */
export function groupsOfFiles(paths: string[]): GroupInput[] {
  const byFamily = new Map<string, InputFile[]>()
  for (const path of paths) {
    let table: Table
    try {
      table = openTable(path)
    } catch (e) {
      // The file named in the one line the command prints (a plain file that is not an SST among several).
      if (e instanceof SstkitError && e.file === undefined) Object.assign(e, { file: path })
      throw e
    }
    let name: string
    try {
      name = propertyString(table.properties, Property.ColumnFamilyName) || 'default'
    } finally {
      table.close()
    }
    byFamily.set(name, [...(byFamily.get(name) ?? []), { path, fileNumber: null, size: sizeOnDisk(path) }])
  }
  return [...byFamily].map(([columnFamily, files]) => ({ columnFamily, level: null, bottommost: false, files, optionsSetting: null }))
}

export function levelTotals(g: LevelGroup): {
  files: number
  fileBytes: number
  dataBytes: number
  dataBlocks: number
  entries: number | null
  dictBytes: number
} {
  let fileBytes = 0
  let dataBytes = 0
  let dataBlocks = 0
  // Unknown when any file's count is (a table without properties).
  let entries: number | null = 0
  let dictBytes = 0
  for (const f of g.files) {
    fileBytes += f.fileSize
    dataBytes += f.dataBytes
    dataBlocks += f.dataBlocks
    entries = entries === null || f.entries === null ? null : entries + f.entries
    dictBytes += f.dictBytes
  }
  return { files: g.files.length, fileBytes, dataBytes, dataBlocks, entries, dictBytes }
}

/** The compression the files name, e.g. "LZ4" or "LZ4+ZSTD" when mixed. */
export function compressionNames(g: LevelGroup): string {
  const names = [...new Set(g.files.map((f) => compressionPropertyName(f.compression)))].sort()
  return names.length ? names.join('+') : 'none'
}
