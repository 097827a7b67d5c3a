/**
 * `--command=recompress` in RocksDB 7.8.3's layout (`ShowAllCompressionSizes`,
 * table/sst_file_dumper.cc): `Block Size: N` once, then per compression type
 * `Compression: %-24s` and per level `Compression level: %d Size: %10llu
 * Blocks: %6llu Time Taken: %10s microsecs Compressed: ... Not compressed
 * (ratio): ... Not compressed (abort): ...`. The numbers come from sstkit's
 * recompress engine (entries re-cut into blocks of the given size).
 */
import { type RecompressReport, recompressFile } from '../recompress/engine.js'
import type { DictMode } from '../recompress/config.js'
import { type SstDumpArgs, COMPRESSION_TABLE, DEFAULT_COMPRESSION_LEVEL } from './args.js'
import { compressionName783, type Dumper } from './dumper.js'
import type { ByteSink } from './sink.js'
import { corruption, type SstDumpStatus } from './status.js'

/** Types this build compresses with (7.8.3's `CompressionTypeSupported`): all but Xpress. */
const SUPPORTED = new Set([0, 1, 2, 3, 4, 5, 7])

const META_BASE = 819

/** Properties + metaindex + footer of the table 7.8.3's ShowCompressionSize builds (calibrated on its output). */
function rebuiltMetaBytes(compressionName: string, level: number, a: SstDumpArgs, dict: boolean): number {
  const digits = (v: number): number => String(v).length
  return (
    META_BASE +
    compressionName.length +
    (digits(level) - 5) +
    (digits(a.maxDictBytes) - 1) +
    (digits(a.zstdMaxTrainBytes) - 1) +
    (digits(a.maxDictBufferBytes) - 1) +
    (dict ? 32 : 0)
  )
}

function pct(n: number, d: number): string {
  return (d === 0 ? 0 : (n / d) * 100).toFixed(1).padStart(5)
}

function dictMode(type: number, a: SstDumpArgs): DictMode {
  if (a.maxDictBytes === 0) return 'none'
  if (type === 7) return a.zstdMaxTrainBytes > 0 ? (a.useZstdFinalizeDict ? 'finalize' : 'train') : 'raw'
  if (type === 2 || type === 4 || type === 5) return 'raw'
  return 'none'
}

export async function showAllCompressionSizes(d: Dumper, a: SstDumpArgs, out: ByteSink): Promise<SstDumpStatus | null> {
  const blockSize = a.setBlockSize ? a.blockSize : 16384
  out.text(`Block Size: ${blockSize}\n`)
  const types = a.compressionTypes.length > 0 ? a.compressionTypes : COMPRESSION_TABLE
  for (const [type, name] of types) {
    if (!SUPPORTED.has(type)) {
      out.text(`Unsupported compression type: ${name}.\n`)
      continue
    }
    out.text(`Compression: ${name.padEnd(24)}\n`)
    // Every level of a type in one run of the recompress engine, as `sstkit recompress` runs them:
    // the source is read and decoded once and the levels are spread over every core.
    const levelOf = (level: number): number | null => (level === DEFAULT_COMPRESSION_LEVEL || type === 0 ? null : level)
    const levels: number[] = []
    for (let level = a.levelFrom; level <= a.levelTo; level++) levels.push(level)
    let report: RecompressReport | null = null
    let failure: SstDumpStatus | null = null
    if (levels.length > 0) {
      try {
        report = await recompressFile(d.fsPath, {
          matrix: { types: [type], levels: [...new Set(levels.map(levelOf))], dicts: [dictMode(type, a)], checksums: [false] },
          source: { blockSize: Math.max(64, blockSize), samplePercent: 100 },
          dict: {
            maxDictBytes: a.maxDictBytes,
            trainBytes: a.zstdMaxTrainBytes,
            maxDictBufferBytes: a.maxDictBufferBytes,
          },
        })
      } catch (e) {
        failure = corruption((e as Error).message)
      }
    }
    for (const level of levels) {
      out.text(`Compression level: ${level}`)
      if (failure || !report) return failure
      const mine = report.results.filter((x) => x.level === levelOf(level))
      const r = mine.find((x) => x.autoSkip === null) ?? mine[0]
      if (!r) return corruption(`no result for ${name} level ${level}`)
      // 7.8.3 rebuilds with a fresh table builder: no filter, no range deletions, and properties
      // without the file's identities; its meta blocks (properties, metaindex, footer) take about
      // META_BASE bytes plus the variable-length strings below.
      const size = r.dataBytes + r.dictBytes + r.indexBytes + rebuiltMetaBytes(compressionName783(type), level, a, r.dictBytes > 0)
      const dataBlocks = r.blocks
      // 7.8.3 counts the index block too (index compression is on): one more block, compressed or not.
      const compressed = type === 0 ? 0 : r.blocksCompressed
      const notCompressed = type === 0 ? 0 : r.blocksRejected + 1
      let n = dataBlocks
      if (compressed + notCompressed > n) n = compressed + notCompressed
      const ratioNot = n - compressed - notCompressed
      const usec = String(Math.round(r.compressMs * 1000))
      out.text(` Size: ${String(size).padStart(10)}`)
      out.text(` Blocks: ${String(dataBlocks).padStart(6)}`)
      out.text(` Time Taken: ${usec.padStart(10)} microsecs`)
      out.text(` Compressed: ${String(compressed).padStart(6)} (${pct(compressed, n)}%)`)
      out.text(` Not compressed (ratio): ${String(ratioNot).padStart(6)} (${pct(ratioNot, n)}%)`)
      out.text(` Not compressed (abort): ${String(notCompressed).padStart(6)} (${pct(notCompressed, n)}%)\n`)
    }
  }
  return null
}
