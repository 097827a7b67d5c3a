/**
 * What advise samples from: the live files of each (column family, level),
 * with the facts the estimator needs about every data block (how many, and
 * their size on disk today) read from the files' indexes, and what the
 * files and the OPTIONS file say the compression is today.
 */
import { statSync } from 'node:fs'
import { basename } from 'node:path'
import { COMPRESSION_DICT_BLOCK } from '../format/metaindex.js'
import { Property, propertyNumber, propertyString } from '../format/properties.js'
import { declaredUncompressedSize } from '../codec/compression.js'
import type { DictionaryOptions } from '../recompress/dictionary.js'
import { planSamples } from '../table/compression-dict.js'
import { openTable, type Table } from '../table/reader.js'
import { readRawBlock } from '../table/block-reader.js'
import { ReadWindow } from '../io/byte-source.js'
import { SstkitError } from '../errors.js'
import type { SettingSpec } from './model.js'
import { blockDraw, fileKey } from './sampling.js'
import { settingFromProperties } from './settings.js'
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
}

export interface LevelGroup {
  columnFamily: string
  level: number | null
  bottommost: boolean
  /** The files read (all of the level's, unless the time budget ended the first pass). */
  files: PopulationFile[]
  /** Live files whose index the time budget left unread: only their size on disk is known. */
  unread: { files: number; fileBytes: number }
  /** What the OPTIONS file says this level gets today, when there is one. */
  optionsSetting: SettingSpec | null
}

/** A file as a database lists it, or a plain file (fileNumber null, level unknown). */
export interface GroupInput {
  columnFamily: string
  level: number | null
  bottommost: boolean
  files: { path: string; fileNumber: number | null }[]
  optionsSetting: SettingSpec | null
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
): PopulationFile {
  const table = openTable(path)
  try {
    // A table without the property (no properties block: LevelDB's) says it in its blocks' trailers.
    const compression = propertyString(table.properties, Property.Compression) ?? compressionFromTrailers(table) ?? 'unknown'
    const propertiesSetting = settingFromProperties(compression, propertyString(table.properties, Property.CompressionOptions))
    const todayDict = (optionsSetting ?? propertiesSetting)?.dictOptions
    const dictionaryContent = dictionaryContentBlocks(table, [...(dict ? [dict] : []), ...(todayDict ? [todayDict] : [])])
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
  // 0: no limit but the file (RocksDB buffers up to the target file size).
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
  /** Stop reading more files once `clock()` passes this (ms); every level still gets one file. */
  deadline: number
  clock: () => number
}

/**
 * The first pass: each level's files, read (index, properties, dictionary
 * framing) in an order drawn from the seed, one file per level in turn so that
 * every level is represented when the deadline stops the pass. A file that
 * cannot be opened is reported and left out.
 */
export function readPopulation(
  inputs: GroupInput[],
  o: PopulationOptions,
): { groups: LevelGroup[]; problems: { file: string; offset: number | null; message: string }[] } {
  const problems: { file: string; offset: number | null; message: string }[] = []
  const queues = inputs.map((g) =>
    g.files.map((f, i) => ({ f, i, draw: blockDraw(o.seed, fileKey(basename(f.path), f.fileNumber), 0) })).sort((a, b) => a.draw - b.draw || a.i - b.i),
  )
  const read = inputs.map(() => [] as { i: number; file: PopulationFile }[])
  const unreadOf = inputs.map(() => ({ files: 0, fileBytes: 0 }))
  const longest = Math.max(0, ...queues.map((q) => q.length))
  for (let k = 0; k < longest; k++) {
    queues.forEach((q, g) => {
      const next = q[k]
      if (!next) return
      // Every level gets one file whatever the clock says: without one it has no estimate at all.
      if (read[g].length > 0 && o.clock() >= o.deadline) {
        unreadOf[g].files++
        unreadOf[g].fileBytes += sizeOnDisk(next.f.path)
        return
      }
      try {
        read[g].push({ i: next.i, file: describeFile(next.f.path, next.f.fileNumber, o.dict, inputs[g].optionsSetting) })
      } catch (e) {
        problems.push({ file: next.f.path, offset: (e as { offset?: number }).offset ?? null, message: `${(e as Error).message}; left out` })
      }
    })
  }
  const groups = inputs.map((g, k) => ({
    columnFamily: g.columnFamily,
    level: g.level,
    bottommost: g.bottommost,
    optionsSetting: g.optionsSetting,
    // The files in the level's own order, so shards and rounds see them the same way.
    files: read[k].sort((a, b) => a.i - b.i).map((r) => r.file),
    unread: unreadOf[k],
  }))
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
  const byFamily = new Map<string, { path: string; fileNumber: number | null }[]>()
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
    byFamily.set(name, [...(byFamily.get(name) ?? []), { path, fileNumber: null }])
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
  const names = [...new Set(g.files.map((f) => f.compression))].sort()
  return names.length ? names.join('+') : 'none'
}
