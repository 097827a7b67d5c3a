/**
 * `scan` as a library: print a table's entries (and range tombstones) in key
 * order into a LineWriter.
 *
 * A large full scan is split into chunks of consecutive data blocks printed in
 * parallel (parallel.ts); the output is byte-identical to a serial scan.
 */
import { availableParallelism } from 'node:os'
import type { RangeTombstone } from '../format/range-del.js'
import { FileByteSource } from '../io/byte-source.js'
import type { LineWriter } from '../report/line-writer.js'
import type { Table } from '../table/reader.js'
import { canUseWorkers, ParallelScan, type ScanStats } from './parallel.js'

export type { ScanStats } from './parallel.js'
import { EntryPrinter, sortTombstones, type ScanSpec } from './printer.js'
import { Property } from '../format/properties.js'

export type { ScanSpec } from './printer.js'

export interface ScanOptions {
  /** Stop after this many lines. */
  limit?: number
  /** Include range tombstones (default true). */
  rangeDeletions?: boolean
  /** Threads to use (default: all cores). 1 = serial. */
  jobs?: number
  /** Bytes of data blocks per parallel chunk (default 256 KiB). */
  chunkBytes?: number
  /**
   * Scan in parallel only when the data blocks total at least this many bytes
   * (default 32 MiB: a worker takes ~0.1 s to start, about what 32 MiB take).
   */
  parallelThreshold?: number
  /** Filled in with how the work was split (for tests and benchmarks). */
  stats?: ScanStats
  /**
   * Wait for the workers to start before printing (tests: so that workers take
   * chunks even of a small file and the out-of-order path runs).
   */
  awaitWorkers?: boolean
}

/** Data bytes per chunk: small enough that a few chunks of output in flight stay a few MB. */
const CHUNK_BYTES = 256 * 1024

/** Print the table's entries; returns the number of lines printed. */
export function scanTable(table: Table, spec: ScanSpec, w: LineWriter, options: ScanOptions = {}): number {
  const limit = options.limit ?? Infinity
  let tombstones: RangeTombstone[] = []
  const printer0 = new EntryPrinter(table, spec, [])
  if (options.rangeDeletions ?? true) {
    tombstones = sortTombstones(
      table.rangeTombstones().filter((t) => printer0.inRange(t.start)),
      table.userComparator,
    )
  }
  const printer = new EntryPrinter(table, spec, tombstones)
  const start = spec.prefix ?? spec.from
  const refs = start ? table.dataBlocksFrom(start) : table.dataBlocks()
  const handles = (function* () {
    for (const r of refs) yield r.handle
  })()

  const jobs = Math.max(1, Math.floor(options.jobs ?? availableParallelism()))
  const chunkBytes = Math.max(1, options.chunkBytes ?? CHUNK_BYTES)
  const dataBytes = Number(table.properties.known.get(Property.DataSize) ?? 0)
  const path = table.source instanceof FileByteSource ? table.source.name : null
  // Blob values are read on this thread: their files are open here.
  if (jobs > 1 && canUseWorkers && !spec.blobs && limit === Infinity && path !== null && dataBytes >= (options.parallelThreshold ?? 32 * 1024 * 1024)) {
    const scan = new ParallelScan(table, printer, spec, tombstones, path, jobs - 1, chunkBytes, w, options.stats)
    return scan.run(handles, options.awaitWorkers ?? false)
  }
  const r = printer.printBlocks(w, handles, 0, limit)
  const rest = r.stop ? 0 : printer.printTombstones(w, r.tombstonesTo, tombstones.length, limit - r.count)
  return r.count + rest
}
