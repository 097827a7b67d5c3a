/**
 * The table-layout dimension of the matrix: the same settings evaluated under
 * several block sizes, restart intervals, value layouts, index compressions and
 * format_versions, one row per setting and layout. Each layout is one run of
 * the engine (its blocks are cut and encoded differently, so it needs its own
 * pass over the file); the rows are joined into one report, marked together.
 */
import { markResults, recompressFile, type RecompressOptions, type RecompressReport } from './engine.js'
import type { TableLayout } from './config.js'

/** Said under a run with separated rows: the layout is a choice of reader too. */
export const SEPARATED_NOTE =
  'kv=separated: values after the keys in each data block (separate_key_value_in_data_block), which RocksDB reads from 11.0 on, not before'

/** The engine's options for one layout. */
export function layoutOptions(opts: RecompressOptions, layout: TableLayout): RecompressOptions {
  return {
    ...opts,
    source: {
      ...opts.source,
      blockSize: layout.blockSize,
      restartInterval: layout.restartInterval ?? undefined,
      separateKeyValue: layout.separateKeyValue ?? undefined,
    },
    table: { formatVersion: layout.formatVersion, indexCompression: layout.indexCompression },
  }
}

/** Every setting of `opts.matrix` under every layout, in layout order (the first layout's rows first). */
export async function recompressLayouts(file: string, opts: RecompressOptions, layouts: readonly TableLayout[]): Promise<RecompressReport> {
  if (layouts.length === 0) throw new RangeError('no table layout to evaluate')
  const reports: RecompressReport[] = []
  for (const [k, layout] of layouts.entries()) {
    const progress = opts.onProgress && ((done: number, total: number) => opts.onProgress!(k * total + done, layouts.length * total))
    reports.push(await recompressFile(file, { ...layoutOptions(opts, layout), onProgress: progress }))
  }
  if (layouts.some((l) => l.separateKeyValue)) reports[0].notes.push(SEPARATED_NOTE)
  if (reports.length === 1) return reports[0]
  const first = reports[0]
  const results = reports.flatMap((r) => r.results)
  for (const r of results) r.marks = []
  markResults(results)
  const seen = new Set<number>()
  const skipped = reports
    .flatMap((r) => r.skipped)
    .filter((s) => {
      if (seen.has(s.offset)) return false
      seen.add(s.offset)
      return true
    })
  return { ...first, results, notes: [...new Set(reports.flatMap((r) => r.notes))], skipped }
}
