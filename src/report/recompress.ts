/** The `recompress` report: a `stored` baseline row, then one row per configuration. */
import type { RecompressReport, RecompressResult } from '../index.js'
import { TableModel } from './table.js'

export type SortKey = 'matrix' | 'size' | 'ratio' | 'compress' | 'decompress'

export function sortResults(results: RecompressResult[], key: SortKey): RecompressResult[] {
  const size = (r: RecompressResult) => r.dataBytes + r.dictBytes
  const s = [...results]
  switch (key) {
    case 'size':
      return s.sort((a, b) => size(a) - size(b))
    case 'ratio':
      return s.sort((a, b) => b.ratio - a.ratio)
    case 'compress':
      return s.sort((a, b) => (b.compressMBps ?? Infinity) - (a.compressMBps ?? Infinity))
    case 'decompress':
      return s.sort((a, b) => (b.decompressMBps ?? 0) - (a.decompressMBps ?? 0))
    default:
      return s
  }
}

/** Type, level, dictionary, checksum: the cells that name a setting. */
function settingCells(r: RecompressResult): (string | number)[] {
  return [r.type, r.level === null ? 'default' : r.level, r.dict, r.type === 'zstd' ? (r.checksum ? 'on' : 'off') : '']
}

const fmt = (v: number | null, digits = 1) => (v === null || !Number.isFinite(v) ? '' : v.toFixed(digits))
const pct = (v: number) => `${v > 0 ? '+' : ''}${(v * 100).toFixed(1)}%`
const MARK_SYMBOLS: Record<string, string> = { smallest: 'smallest', 'fastest-decompress': 'fastest-dec', pareto: 'pareto' }

export function recompressModel(report: RecompressReport, key: SortKey, opts: { spread?: boolean } = {}): TableModel {
  if (report.results.some((r) => r.autoSkip !== null)) return autoSkipModel(report)
  const st = report.stored
  const spread = (v: number) => (opts.spread && v > 0 ? ` ±${(v * 50).toFixed(0)}%` : '')
  const rows: (string | number)[][] = [
    [
      `stored (${st.compression})`,
      '',
      '',
      '',
      st.dataBytes,
      st.dictBytes,
      st.fileBytes,
      st.ratio.toFixed(3),
      '',
      `${st.blocksCompressed}/${st.blocks}`,
      '',
      '',
      fmt(st.decompressMBps, 0),
      '',
      '',
    ],
  ]
  for (const r of sortResults(report.results, key)) {
    rows.push([
      ...settingCells(r),
      r.dataBytes,
      r.dictBytes,
      r.fileBytes ?? '',
      r.ratio.toFixed(3),
      pct(r.vsStored),
      `${r.blocksCompressed}/${r.blocks}`,
      r.blocksRejected,
      `${fmt(r.compressMBps, 0)}${spread(r.compressSpread)}`,
      `${fmt(r.decompressMBps, 0)}${spread(r.decompressSpread)}`,
      r.dictMs > 0 ? fmt(r.dictMs, 1) : '',
      r.marks.map((m) => MARK_SYMBOLS[m] ?? m).join(' '),
    ])
  }
  return {
    columns: [
      { header: 'Type' },
      { header: 'Level', align: 'right' },
      { header: 'Dict' },
      { header: 'Checksum' },
      { header: 'Data bytes', align: 'right' },
      { header: 'Dict bytes', align: 'right' },
      { header: 'File bytes', align: 'right' },
      { header: 'Ratio', align: 'right' },
      { header: 'vs stored', align: 'right' },
      { header: 'Compressed', align: 'right' },
      { header: 'Rejected', align: 'right' },
      { header: 'Comp MB/s', align: 'right' },
      { header: 'Decomp MB/s', align: 'right' },
      { header: 'Dict ms', align: 'right' },
      { header: 'Marks' },
    ],
    rows,
  }
}

/** The documented JSON document for one file. */
export function recompressJson(report: RecompressReport) {
  return {
    file: report.file,
    stored: report.stored,
    results: report.results,
    notes: report.notes,
    skipped: report.skipped,
    samplePercent: report.samplePercent,
  }
}

/** With --auto-skip: each configuration, then its auto-skip variants against it. */
function autoSkipModel(report: RecompressReport): TableModel {
  const rows: (string | number)[][] = []
  for (const r of report.results) {
    rows.push([
      ...settingCells(r),
      r.autoSkip ?? 'no skip',
      r.blocksAttempted,
      r.blocksBypassed,
      r.blocksRejected,
      fmt(r.compressMs, 1),
      r.vsNoSkip ? pct(r.vsNoSkip.compressMs) : '',
      r.dataBytes,
      r.vsNoSkip ? pct(r.vsNoSkip.dataBytes) : '',
    ])
  }
  return {
    columns: [
      { header: 'Type' },
      { header: 'Level', align: 'right' },
      { header: 'Dict' },
      { header: 'Checksum' },
      { header: 'Auto-skip' },
      { header: 'Attempted', align: 'right' },
      { header: 'Skipped', align: 'right' },
      { header: 'Rejected', align: 'right' },
      { header: 'Comp ms', align: 'right' },
      { header: 'CPU vs no skip', align: 'right' },
      { header: 'Data bytes', align: 'right' },
      { header: 'Bytes vs no skip', align: 'right' },
    ],
    rows,
  }
}
