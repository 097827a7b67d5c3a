/**
 * Lines of RocksDB's info LOG (`LOG`, `LOG.old.<micros>`; `logging/event_logger.h`,
 * `monitoring/statistics.cc`, `db/compaction/compaction_job.cc`) that carry numbers:
 *
 *   2026/12/03-09:19:11.821634 10483 EVENT_LOG_v1 {"time_micros": 1796289551821601, "cf_name": ...}
 *   2026/12/03-09:19:11.823667 10483 (Original Log Time 2026/12/03-09:19:11.823582) EVENT_LOG_v1 {...}
 *   2026/12/03-09:19:11.870846 10482 [db/compaction/compaction_job.cc:1994] [default] [JOB 6] Compacting 4@0 files to L1, score 1.00
 *   2026/12/03-13:14:40.907156 31715 [db/flush_job.cc:1025] [default] [JOB 2] Flush lasted 16830 microseconds, and 3531 cpu microseconds.
 *   2026/12/03-09:19:11.796941 10515 [db/db_impl/db_impl.cc:788] STATISTICS:
 *    rocksdb.block.cache.data.miss COUNT : 0
 *    rocksdb.bytes.decompressed P50 : 0.000000 P95 : ... COUNT : 0 SUM : 0
 *
 * An event is one JSON object on one line after the marker, `time_micros` (microseconds since the
 * epoch, the writer's clock) first; `job` ties a flush's or compaction's events together. The text
 * timestamp at the start of a line is the writer's local time; only differences of it are used.
 * Pure: one line in, one value out; a line that is not of the kind asked for gives null.
 */

export const EVENT_LOG_MARKER = 'EVENT_LOG_v1'

export interface InfoLogEvent {
  /** "table_file_creation", "compaction_finished", "flush_started", ... */
  event: string
  timeMicros: number
  /** The flush or compaction job; null for events without one. */
  job: number | null
  /** The whole object, as parsed. */
  fields: Record<string, unknown>
}

/**
 * The event on a line holding EVENT_LOG_v1, null when the line holds none, 'malformed' when the
 * JSON after the marker does not parse (a line cut short by a crash or by a logger's length cap)
 * or lacks time_micros and event.
 */
export function parseEventLine(line: string): InfoLogEvent | null | 'malformed' {
  const at = line.indexOf(EVENT_LOG_MARKER)
  if (at < 0) return null
  const json = line.slice(at + EVENT_LOG_MARKER.length).trim()
  let fields: unknown
  try {
    fields = JSON.parse(json)
  } catch {
    return 'malformed'
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return 'malformed'
  const record = fields as Record<string, unknown>
  const { time_micros: timeMicros, event, job } = record
  if (typeof timeMicros !== 'number' || typeof event !== 'string') return 'malformed'
  return { event, timeMicros, job: typeof job === 'number' ? job : null, fields: record }
}

/** A number field of an event, or null when absent or not a number. */
export function eventNumber(fields: Record<string, unknown>, name: string): number | null {
  const value = fields[name]
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/** A string field of an event, or null. */
export function eventString(fields: Record<string, unknown>, name: string): string | null {
  const value = fields[name]
  return typeof value === 'string' ? value : null
}

const TIMESTAMP = /^(\d{4})\/(\d{2})\/(\d{2})-(\d{2}):(\d{2}):(\d{2})\.(\d{6}) /

/**
 * The text timestamp opening a LOG line, in microseconds as if it were UTC (it is the writer's
 * local time: use differences only), or null for a continuation line.
 */
export function lineTimestampMicros(line: string): number | null {
  const m = TIMESTAMP.exec(line)
  if (m === null) return null
  const seconds = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000
  return seconds * 1e6 + +m[7]
}

/** The line opening a statistics dump (`DBImpl::DumpStats`): its counters follow, one a line. */
export function isStatisticsHeader(line: string): boolean {
  return line.endsWith('STATISTICS:') && TIMESTAMP.test(line)
}

export interface StatisticLine {
  /** "rocksdb.block.cache.data.miss" */
  name: string
  /** A ticker's value, or a histogram's number of samples. */
  count: number
  /** A histogram's sum; null for a ticker. */
  sum: number | null
}

const TICKER = /^\s*(rocksdb\.[\w.]+) COUNT : (\d+)\s*$/
const HISTOGRAM = /^\s*(rocksdb\.[\w.]+) P50 : .* COUNT : (\d+) SUM : (\d+)\s*$/

/** One counter line of a statistics dump, or null. */
export function parseStatisticLine(line: string): StatisticLine | null {
  const ticker = TICKER.exec(line)
  if (ticker !== null) return { name: ticker[1], count: Number(ticker[2]), sum: null }
  const histogram = HISTOGRAM.exec(line)
  if (histogram !== null) return { name: histogram[1], count: Number(histogram[2]), sum: Number(histogram[3]) }
  return null
}

export interface CompactingLine {
  columnFamily: string
  job: number
  outputLevel: number
}

const COMPACTING = /\] \[(.*)\] \[JOB (\d+)\] Compacting .* files to L(\d+)/

/**
 * The text line a compaction job logs as it starts ("[cf] [JOB 6] Compacting 4@0 files to L1"):
 * before RocksDB 8 the compaction_started event names no column family, this line does.
 */
export function parseCompactingLine(line: string): CompactingLine | null {
  if (!line.includes('] Compacting ')) return null
  const m = COMPACTING.exec(line)
  if (m === null) return null
  return { columnFamily: m[1], job: Number(m[2]), outputLevel: Number(m[3]) }
}

export interface FlushLastedLine {
  columnFamily: string
  job: number
  /** Wall-clock microseconds the flush took writing its table. */
  wallMicros: number
  /** CPU microseconds of the flushing thread over the same (RocksDB's FlushJob::WriteLevel0Table). */
  cpuMicros: number
}

const FLUSH_LASTED = /\] \[(.*)\] \[JOB (\d+)\] Flush lasted (\d+) microseconds, and (\d+) cpu microseconds\./

/**
 * The text line a flush job logs once its L0 table is written ("[cf] [JOB 2] Flush lasted 16830
 * microseconds, and 3531 cpu microseconds."): RocksDB 6.24 and later (the same wording since); the
 * event log carries no flush CPU. A WAL recovery's flush at open logs none.
 */
export function parseFlushLastedLine(line: string): FlushLastedLine | null {
  if (!line.includes('] Flush lasted ')) return null
  const m = FLUSH_LASTED.exec(line)
  if (m === null) return null
  return { columnFamily: m[1], job: Number(m[2]), wallMicros: Number(m[3]), cpuMicros: Number(m[4]) }
}

const OPEN_ID = / DB Session ID: +(\S+)\s*$/

/**
 * The id RocksDB gives one open of the database, from a LOG's header ("DB Session ID:
 * LXYSHGA0CRRSXJML1OZ1"): the same in every file a size- or age-based rotation starts, new each
 * time the database opens.
 */
export function parseOpenIdLine(line: string): string | null {
  if (!line.includes('DB Session ID:')) return null
  return OPEN_ID.exec(line)?.[1] ?? null
}
