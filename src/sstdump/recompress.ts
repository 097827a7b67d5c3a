/**
 * `--command=recompress` in RocksDB 7.8.3's layout (`ShowAllCompressionSizes`,
 * table/sst_file_dumper.cc): `Block Size: N` once, then per compression type
 * `Compression: %-24s` and per level `Compression level: %d Size: %10llu
 * Blocks: %6llu Time Taken: %10s microsecs Compressed: ... Not compressed
 * (ratio): ... Not compressed (abort): ...`. The numbers come from sstkit's
 * recompress engine (entries re-cut into blocks of the given size) under
 * 7.8.3's rules:
 *  - a compressed block is kept when GoodCompressionRatio says so
 *    (block-compressor.ts, 'good-ratio');
 *  - LZ4 ignores the level (7.8.3 always compresses with acceleration 1);
 *  - the counters are the statistics tickers: NUMBER_BLOCK_COMPRESSED counts
 *    every data and index block stored compressed, NUMBER_BLOCK_NOT_COMPRESSED
 *    every one stored raw although a codec was configured ("abort", whatever
 *    the reason), and "ratio" is the remainder (blocks minus both);
 *  - the size is the whole rebuilt file: data, dictionary and index blocks,
 *    then the properties, metaindex and footer 7.8.3's fresh table builder
 *    writes (rebuiltTailBytes);
 *  - no block is decompressed (7.8.3's output has no decompression figures).
 */
import { hostname } from 'node:os'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { CompressionType, compressionShortName } from '../format/compression-type.js'
import { FOOTER_BYTES } from '../format/footer.js'
import { COMPRESSION_DICT_BLOCK, encodeMetaindex, PROPERTIES_BLOCK } from '../format/metaindex.js'
import { encodeProperties, encodePropertyNumber, encodePropertyString, Property } from '../format/properties.js'
import { ValueType } from '../format/value-type.js'
import type { DictMode } from '../recompress/config.js'
import { type RecompressReport, type RecompressResult, recompressFile } from '../recompress/engine.js'
import type { EntryTotals } from '../recompress/evaluate.js'
import type { Table } from '../table/reader.js'
import { COMPRESSION_TABLE, DEFAULT_COMPRESSION_LEVEL, type SstDumpArgs } from './args.js'
import type { Dumper } from './dumper.js'
import { compressionName783 } from './entry-text.js'
import type { ByteSink } from './sink.js'
import { corruption, type SstDumpStatus } from './status.js'

/** Types this build compresses with (7.8.3's `CompressionTypeSupported`): all but Xpress. */
const SUPPORTED = new Set([0, 1, 2, 3, 4, 5, 7])

/** TablePropertiesCollectorFactory::Context::kUnknownColumnFamily (port::kMaxInt32). */
const UNKNOWN_COLUMN_FAMILY = 0x7fffffff

function pct(n: number, d: number): string {
  return (d === 0 ? 0 : (n / d) * 100).toFixed(1).padStart(5)
}

function dictMode(type: number, a: SstDumpArgs): DictMode {
  if (a.maxDictBytes === 0) return 'none'
  if (type === 7) return a.zstdMaxTrainBytes > 0 ? (a.useZstdFinalizeDict ? 'finalize' : 'train') : 'raw'
  if (type === 2 || type === 4 || type === 5) return 'raw'
  return 'none'
}

/**
 * What 7.8.3's builder adds up over the point entries sst_dump's iterator hands it, by a pass of its own:
 * only for a file the engine could not read whole, where this pass's error is the one 7.8.3 reports.
 */
function entryTotals(table: Table): EntryTotals {
  const t: EntryTotals = { entries: 0, deletions: 0, merges: 0, rawKeyBytes: 0, rawValueBytes: 0 }
  const it = table.iterator({ applyGlobalSeqno: false })
  for (it.seekToFirst(); it.valid; it.next()) {
    const key = it.key
    const type = key[key.length - 8]
    t.entries++
    t.rawKeyBytes += key.length
    t.rawValueBytes += it.value.length
    if (type === ValueType.Deletion || type === ValueType.SingleDeletion || type === ValueType.DeletionWithTimestamp) t.deletions++
    else if (type === ValueType.Merge) t.merges++
  }
  return t
}

/**
 * Properties, metaindex and footer of the table 7.8.3's ShowCompressionSize
 * builds (BlockBasedTableBuilder with default Options and table options, no
 * filter, no file number, DB or session identity, times 0, column family
 * unknown; PropertyBlockBuilder::AddTableProperty plus the
 * BlockBasedTablePropertiesCollector's three), with their block trailers.
 */
function rebuiltTailBytes(type: number, level: number, a: SstDumpArgs, r: RecompressResult, totals: EntryTotals): number {
  const props = new Map<string, Uint8Array>()
  const num = (name: string, v: number) => props.set(name, encodePropertyNumber(v))
  const str = (name: string, v: string) => props.set(name, encodePropertyString(v))
  num(Property.OriginalFileNumber, 0)
  num(Property.RawKeySize, totals.rawKeyBytes)
  num(Property.RawValueSize, totals.rawValueBytes)
  num(Property.DataSize, r.dataBytes)
  // 7.8.3 records the index builder's IndexSize(): the uncompressed index block, plus a trailer.
  num(Property.IndexSize, r.indexUncompressedBytes + BLOCK_TRAILER_BYTES)
  num(Property.IndexKeyIsUserKey, 1)
  num(Property.IndexValueIsDeltaEncoded, 1)
  num(Property.NumEntries, totals.entries)
  num(Property.NumFilterEntries, 0)
  num(Property.DeletedKeys, totals.deletions)
  num(Property.MergeOperands, totals.merges)
  num(Property.NumRangeDeletions, 0)
  num(Property.NumDataBlocks, r.blocks)
  num(Property.FilterSize, 0)
  num(Property.FormatVersion, 0)
  num(Property.FixedKeyLength, 0)
  num(Property.ColumnFamilyId, UNKNOWN_COLUMN_FAMILY)
  num(Property.CreationTime, 0)
  num(Property.OldestKeyTime, 0)
  // db_host_id's default "__hostname__" becomes this machine's name (ReifyDbHostIdProperty).
  str(Property.CreatingHostIdentity, hostname())
  str(Property.Comparator, 'leveldb.BytewiseComparator')
  str(Property.MergeOperator, 'nullptr')
  str(Property.PrefixExtractorName, 'nullptr')
  str(Property.PropertyCollectors, '[]')
  str(Property.Compression, compressionName783(type))
  str(
    Property.CompressionOptions,
    `window_bits=-14; level=${level}; strategy=0; max_dict_bytes=${a.maxDictBytes}; zstd_max_train_bytes=${a.zstdMaxTrainBytes}; ` +
      `enabled=0; max_dict_buffer_bytes=${a.maxDictBufferBytes}; use_zstd_dict_trainer=${a.useZstdFinalizeDict ? 0 : 1}; `,
  )
  props.set(Property.BlockBasedTableIndexType, new Uint8Array(4))
  str(Property.BlockBasedTablePrefixFiltering, '0')
  str(Property.BlockBasedTableWholeKeyFiltering, '1')
  const properties = encodeProperties(props)
  // Data, then the index, then the dictionary: the properties block follows them.
  const dataEnd = r.dataBytes + r.indexBytes
  const meta = [{ name: PROPERTIES_BLOCK, handle: { offset: dataEnd + r.dictBytes, size: properties.length } }]
  if (r.dictBytes > 0) meta.push({ name: COMPRESSION_DICT_BLOCK, handle: { offset: dataEnd, size: r.dictBytes - BLOCK_TRAILER_BYTES } })
  return properties.length + BLOCK_TRAILER_BYTES + encodeMetaindex(meta).length + BLOCK_TRAILER_BYTES + FOOTER_BYTES
}

/** Types whose compression 7.8.3 does the same way at every level. */
const LEVEL_LESS = new Set<number>([CompressionType.None, CompressionType.Snappy, CompressionType.BZip2, CompressionType.LZ4])

/** The level sstkit compresses with for 7.8.3's `compress_opt.level` (null: the library's default). */
function levelFor(type: number, level: number): number | null {
  // 7.8.3's LZ4_Compress always uses acceleration 1, Snappy has no levels and BZip2_Compress always uses
  // block size 900k: the level means nothing to them.
  if (LEVEL_LESS.has(type) || level === DEFAULT_COMPRESSION_LEVEL) return null
  return level
}

/** The levels of `levels` the engine runs for `type` (levelFor of each, once). */
function engineLevels(type: number, levels: number[]): (number | null)[] {
  return [...new Set(levels.map((l) => levelFor(type, l)))]
}

/**
 * Types that can share one run of the recompress engine (the source read and
 * decoded once, every configuration spread over the cores): those with the
 * same dictionary mode and only the library's default level. Others run alone,
 * so that an error of one type's settings stays that type's.
 */
function engineGroups(types: number[], levels: number[], a: SstDumpArgs): number[][] {
  const groups = new Map<string, number[]>()
  for (const type of types) {
    const lv = engineLevels(type, levels)
    const key = lv.length === 1 && lv[0] === null ? `default/${dictMode(type, a)}` : `alone/${type}`
    groups.set(key, [...(groups.get(key) ?? []), type])
  }
  return [...groups.values()]
}

export async function showAllCompressionSizes(d: Dumper, a: SstDumpArgs, out: ByteSink): Promise<SstDumpStatus | null> {
  const blockSize = a.setBlockSize ? a.blockSize : 16384
  out.text(`Block Size: ${blockSize}\n`)
  const types = a.compressionTypes.length > 0 ? a.compressionTypes : COMPRESSION_TABLE
  const levels: number[] = []
  for (let level = a.levelFrom; level <= a.levelTo; level++) levels.push(level)
  const groups = engineGroups(
    types.map(([t]) => t).filter((t) => SUPPORTED.has(t)),
    levels,
    a,
  )
  /** Reports by type, filled a group at a time when its first type is reached. */
  const reports = new Map<number, { report: RecompressReport | null; failure: SstDumpStatus | null }>()
  let totals: EntryTotals | undefined
  const evaluate = async (type: number): Promise<void> => {
    if (reports.has(type)) return
    const group = groups.find((g) => g.includes(type)) ?? [type]
    let report: RecompressReport | null = null
    let failure: SstDumpStatus | null = null
    try {
      report = await recompressFile(d.fsPath, {
        matrix: { types: group, levels: engineLevels(type, levels), dicts: [dictMode(type, a)], checksums: [false] },
        // sst_dump's table reader applies an ingested file's global sequence number.
        source: { blockSize: Math.max(64, blockSize), samplePercent: 100, applyGlobalSeqno: true },
        dict: {
          maxDictBytes: a.maxDictBytes,
          trainBytes: a.zstdMaxTrainBytes,
          maxDictBufferBytes: a.maxDictBufferBytes,
        },
        acceptance: 'good-ratio',
        // 7.8.3's ShowCompressionSizes only compresses: nothing is decompressed.
        roundTrip: 'none',
      })
      // The entries as the engine's pass fed them (one pass less: ~0.15 s of CPU on a 7 MB file); a block it
      // skipped needs the iterator's own pass, whose error 7.8.3 reports.
      totals ??= report.skipped.length === 0 ? report.entries : entryTotals(d.table!)
    } catch (e) {
      report = null
      failure = corruption((e as Error).message)
    }
    for (const t of group)
      reports.set(t, { report: report && { ...report, results: report.results.filter((x) => x.type === compressionShortName(t)) }, failure })
  }
  for (const [type, name] of types) {
    if (!SUPPORTED.has(type)) {
      out.text(`Unsupported compression type: ${name}.\n`)
      continue
    }
    out.text(`Compression: ${name.padEnd(24)}\n`)
    let report: RecompressReport | null = null
    let failure: SstDumpStatus | null = null
    if (levels.length > 0) {
      await evaluate(type)
      ;({ report, failure } = reports.get(type)!)
    }
    for (const level of levels) {
      out.text(`Compression level: ${level}`)
      if (failure || !report) return failure
      const mine = report.results.filter((x) => x.level === levelFor(type, level))
      const r = mine.find((x) => x.autoSkip === null) ?? mine[0]
      if (!r) return corruption(`no result for ${name} level ${level}`)
      const size = r.dataBytes + r.dictBytes + r.indexBytes + rebuiltTailBytes(type, level, a, r, totals as EntryTotals)
      // kNoCompression ticks neither counter: the stored type is the configured one.
      const none = type === CompressionType.None
      const compressed = none ? 0 : r.blocksCompressed + r.indexBlocksCompressed
      const notCompressed = none ? 0 : r.blocksRejected + r.blocksBypassed + r.indexBlocksRejected
      // 7.8.3 widens the block count when the tickers (which include the index) exceed it.
      const n = Math.max(r.blocks, compressed + notCompressed)
      const ratioNot = n - compressed - notCompressed
      const usec = String(Math.round(r.compressMs * 1000))
      out.text(` Size: ${String(size).padStart(10)}`)
      out.text(` Blocks: ${String(r.blocks).padStart(6)}`)
      out.text(` Time Taken: ${usec.padStart(10)} microsecs`)
      out.text(` Compressed: ${String(compressed).padStart(6)} (${pct(compressed, n)}%)`)
      out.text(` Not compressed (ratio): ${String(ratioNot).padStart(6)} (${pct(ratioNot, n)}%)`)
      out.text(` Not compressed (abort): ${String(notCompressed).padStart(6)} (${pct(notCompressed, n)}%)\n`)
    }
  }
  return null
}
