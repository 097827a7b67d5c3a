/**
 * A database's write workload as its info LOGs record it: every `LOG` and `LOG.old.<micros>` of the
 * directory (or `<db path as a name>_LOG*` in `db_log_dir`), oldest first, streamed one line at a
 * time (memory bounded by one chunk, one line and the jobs still open; nothing is written).
 *
 * From the event log (src/format/info-log.ts), per column family and output level:
 * - bytes written: each `table_file_creation` (its cf_name, file_size, and from table_properties
 *   data_size, raw_key_size, raw_value_size, compression). Its level comes from its job: a job
 *   that ends in `compaction_finished` wrote to that event's output_level; a flush (or the flush
 *   of a recovery) writes L0. The event itself says neither (RocksDB passes the reason only to
 *   listeners), so a file waits until its job's outcome is read.
 * - compactions: each `compaction_finished` (output_level, total_output_size,
 *   compaction_time_micros, compaction_time_cpu_micros, num_output_files, output_compression).
 *   Before RocksDB 8 neither compaction event names the column family; it is taken from the job's
 *   output files, else from the job's "[cf] [JOB n] Compacting ... to Lk" text line.
 * - flush CPU: each flush's "[cf] [JOB n] Flush lasted W microseconds, and C cpu microseconds."
 *   text line (RocksDB 6.24 and later), booked with its job to the column family's L0 once the
 *   job's outcome is read; the line also tells its job is a flush. A WAL recovery's flush logs none.
 * - the span: first and last time_micros of any event.
 * From statistics dumps (`statistics` enabled; cumulative since the database opened, so rates come
 * from differences between consecutive dumps, a counter going down starts a new run): the counters
 * in READ_COUNTERS.
 *
 * Job numbers and statistics restart when the database reopens (a new "DB Session ID" in the
 * LOG's header; a rotated LOG repeats the same one): jobs still open then are settled with what is
 * known of them. A job number seen starting again while still open is settled the same way.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  eventNumber,
  eventString,
  isStatisticsHeader,
  lineTimestampMicros,
  parseCompactingLine,
  parseEventLine,
  parseFlushLastedLine,
  parseOpenIdLine,
  parseStatisticLine,
  type InfoLogEvent,
} from '../format/info-log.js'

/** Bytes one LOG line may hold before it is skipped as overlong (event lines are a few KiB). */
export const MAX_LINE_BYTES = 1 << 20
/**
 * Bytes read at a time: a chunk's decoded string stays below V8's large-object size (128 KiB), so it
 * is young garbage a scavenge reclaims. A larger one is a large object (1 MiB and up: external),
 * reclaimed only by a full collection: 256 KiB chunks of a 59 MB LOG had up to 18 MB of them on the
 * heap at advise's start, 1 MiB chunks 60 MB.
 */
const CHUNK_BYTES = 64 << 10

export interface LevelWrites {
  level: number
  /**
   * Bytes written to this level: flushed files' file_size plus each compaction's
   * total_output_size (which counts output files a failed or cancelled compaction wrote and
   * deleted, whose table_file_creation is never logged), plus the files of compactions whose end
   * the LOGs do not hold.
   */
  writtenBytes: number
  /** Flushed files' file_size (L0 only). */
  flushBytes: number
  /** Table files written to this level. */
  files: number
  /** Their file_size: what went to disk. */
  fileBytes: number
  /** table_properties.data_size: the data blocks as stored (compressed). */
  dataBytes: number
  /** table_properties raw_key_size + raw_value_size: the key-values before compression. */
  rawBytes: number
  entries: number
  /** fileBytes per table_properties.compression ("LZ4", "ZSTD", "NoCompression", ...). */
  fileBytesByCompression: Record<string, number>
  /** Table files flushes (and recovery) wrote; only on L0. */
  flushFiles: number
  /** compaction_finished events with this output level. */
  compactions: number
  /** Their total_output_size. */
  compactionOutputBytes: number
  /** Their compaction_time_cpu_micros and compaction_time_micros. */
  compactionCpuMicros: number
  compactionWallMicros: number
  /** output_compression of the last compaction to this level. */
  lastOutputCompression: string | null
  /**
   * The CPU and wall-clock microseconds flushes logged in their "Flush lasted" lines (L0 only),
   * the number of those flushes, and the file_size of the table files they wrote.
   */
  flushCpuMicros: number
  flushWallMicros: number
  flushCpuFlushes: number
  flushCpuFileBytes: number
}

export interface ColumnFamilyWrites {
  name: string
  /** Levels with anything written, ascending. */
  levels: LevelWrites[]
}

/** Read-side counters of the statistics dumps RocksDB writes when `statistics` is enabled. */
export const READ_COUNTERS = [
  /** Data blocks not found in the block cache: read from the file (and decompressed). */
  'rocksdb.block.cache.data.miss',
  /** Blocks decompressed, by reads and compactions alike. */
  'rocksdb.number.block.decompressed',
  /** Bytes read by Get/MultiGet/iterators (user-visible values). */
  'rocksdb.bytes.read',
  /** Bytes compactions read. */
  'rocksdb.compact.read.bytes',
] as const

/** Histograms whose SUM is used: RocksDB 7 (decompressed bytes, decompression nanoseconds). */
export const READ_HISTOGRAMS = ['rocksdb.bytes.decompressed', 'rocksdb.decompression.times.nanos'] as const

/** Tickers of later releases holding the same as READ_HISTOGRAMS' sums. */
export const READ_TICKERS_LATER = ['rocksdb.bytes.decompressed.to'] as const

export interface ReadStatistics {
  /** Statistics dumps read. */
  dumps: number
  /** Seconds between consecutive dumps of one run, summed (the denominator of every rate). */
  seconds: number
  /** Increase of each counter over those intervals (histograms: of their SUM); absent when never dumped. */
  increase: Record<string, number>
}

export interface InfoLogFileRead {
  path: string
  bytes: number
  lines: number
  events: number
}

export interface EventLogSummary {
  /** The LOG files read, oldest first. */
  files: InfoLogFileRead[]
  /** Events parsed, and lines after EVENT_LOG_v1 that did not parse (cut short). */
  events: number
  malformedEvents: number
  /** Lines longer than MAX_LINE_BYTES, skipped. */
  overlongLines: number
  /** time_micros of the first and last event; null when no event. */
  firstMicros: number | null
  lastMicros: number | null
  /** (last - first) / 1e6. */
  spanSeconds: number
  flushes: number
  /** compaction_finished events (trivial moves write nothing and are counted apart). */
  compactions: number
  trivialMoves: number
  /** "Flush lasted … cpu microseconds" lines read (none before RocksDB 6.24). */
  flushCpuLines: number
  columnFamilies: ColumnFamilyWrites[]
  /** Table files whose job's level or column family is unknown (its outcome not in the LOGs). */
  unattributedFiles: number
  unattributedBytes: number
  /** Null when no statistics dump was found. */
  reads: ReadStatistics | null
}

/** RocksDB's name of the info LOG when db_log_dir is set: the absolute db path as a file name. */
export function infoLogPrefix(dbDir: string, logDir: string | null): string {
  if (logDir === null || logDir === '') return 'LOG'
  const path = resolve(dbDir)
  let name = ''
  for (let i = 0; i < path.length; i++) {
    const c = path[i]
    if (/[A-Za-z0-9._-]/.test(c)) name += c
    else if (i > 0) name += '_'
  }
  return `${name}_LOG`
}

/** The info LOG files of a database, oldest first: `LOG.old.<micros>` by number, then `LOG`. */
export function infoLogFiles(dbDir: string, logDir: string | null = null): string[] {
  const dir = logDir === null || logDir === '' ? dbDir : logDir
  const prefix = infoLogPrefix(dbDir, logDir)
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const old: { name: string; micros: bigint }[] = []
  let current: string | null = null
  for (const name of names) {
    if (name === prefix) current = name
    else if (name.startsWith(`${prefix}.old.`)) {
      const suffix = name.slice(prefix.length + 5)
      if (/^\d+$/.test(suffix)) old.push({ name, micros: BigInt(suffix) })
    }
  }
  old.sort((a, b) => (a.micros < b.micros ? -1 : a.micros > b.micros ? 1 : 0))
  const ordered = old.map((o) => o.name)
  if (current !== null) ordered.push(current)
  return ordered
    .map((name) => join(dir, name))
    .filter((path) => {
      try {
        return statSync(path).isFile()
      } catch {
        return false
      }
    })
}

/**
 * Calls `onLine` for each line of the file (without its newline, decoded as Latin-1 so bytes
 * survive; see utf8). Reads CHUNK_BYTES at a time; a line longer than MAX_LINE_BYTES is skipped
 * and counted. Returns [lines, overlong lines, bytes].
 */
export function forEachLine(path: string, onLine: (line: string) => void): { lines: number; overlong: number; bytes: number } {
  const fd = openSync(path, 'r')
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let carry = ''
  let skipping = false
  let lines = 0
  let overlong = 0
  let bytes = 0
  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK_BYTES, null)
      if (n === 0) break
      bytes += n
      const text = chunk.toString('latin1', 0, n)
      let start = 0
      for (;;) {
        const nl = text.indexOf('\n', start)
        if (nl < 0) break
        if (skipping) skipping = false
        else if (carry.length + nl - start > MAX_LINE_BYTES) overlong++
        else {
          lines++
          onLine(carry === '' ? text.slice(start, nl) : carry + text.slice(start, nl))
        }
        carry = ''
        start = nl + 1
      }
      if (!skipping) {
        carry += text.slice(start)
        if (carry.length > MAX_LINE_BYTES) {
          carry = ''
          skipping = true
          overlong++
        }
      }
    }
    if (!skipping && carry !== '') {
      lines++
      onLine(carry)
    }
  } finally {
    closeSync(fd)
  }
  return { lines, overlong, bytes }
}

/** A Latin-1 decoded line back to its UTF-8 text (column family names may be any bytes). */
function utf8(latin1: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: any byte above 0x7f means UTF-8 to decode
  return /[^\x00-\x7f]/.test(latin1) ? Buffer.from(latin1, 'latin1').toString('utf8') : latin1
}

interface PendingFile {
  columnFamily: string
  fileBytes: number
  dataBytes: number
  rawBytes: number
  entries: number
  compression: string
}

interface FlushCpu {
  columnFamily: string
  cpuMicros: number
  wallMicros: number
}

interface OpenJob {
  kind: 'flush' | 'compaction' | 'unknown'
  files: PendingFile[]
  /** A flush's "Flush lasted" lines (one per column family an atomic flush wrote). */
  flushCpu: FlushCpu[]
  /** From the "Compacting" text line or compaction_started's cf_name. */
  columnFamily: string | null
  outputLevel: number | null
}

function emptyLevel(level: number): LevelWrites {
  return {
    level,
    writtenBytes: 0,
    flushBytes: 0,
    files: 0,
    fileBytes: 0,
    dataBytes: 0,
    rawBytes: 0,
    entries: 0,
    fileBytesByCompression: {},
    flushFiles: 0,
    compactions: 0,
    compactionOutputBytes: 0,
    compactionCpuMicros: 0,
    compactionWallMicros: 0,
    lastOutputCompression: null,
    flushCpuMicros: 0,
    flushWallMicros: 0,
    flushCpuFlushes: 0,
    flushCpuFileBytes: 0,
  }
}

/** Folds events, text lines and statistics dumps, in LOG order, into an EventLogSummary. */
class WorkloadAccumulator {
  readonly levels = new Map<string, Map<number, LevelWrites>>()
  readonly jobs = new Map<number, OpenJob>()
  events = 0
  malformed = 0
  firstMicros: number | null = null
  lastMicros: number | null = null
  flushes = 0
  compactions = 0
  trivialMoves = 0
  flushCpuLines = 0
  unattributedFiles = 0
  unattributedBytes = 0
  // statistics
  inStatistics = false
  dumpMicros: number | null = null
  dumpValues = new Map<string, number>()
  previousDump: { micros: number; values: Map<string, number> } | null = null
  dumps = 0
  readSeconds = 0
  increase: Record<string, number> = {}
  openId: string | null = null

  level(columnFamily: string, level: number): LevelWrites {
    let cf = this.levels.get(columnFamily)
    if (cf === undefined) {
      cf = new Map()
      this.levels.set(columnFamily, cf)
    }
    let entry = cf.get(level)
    if (entry === undefined) {
      entry = emptyLevel(level)
      cf.set(level, entry)
    }
    return entry
  }

  line(raw: string): void {
    if (this.inStatistics) {
      const stat = parseStatisticLine(raw)
      if (stat !== null) {
        this.dumpValues.set(stat.name, stat.sum ?? stat.count)
        return
      }
      this.endDump()
    }
    if (raw.includes('EVENT_LOG_v1')) {
      const event = parseEventLine(utf8(raw))
      if (event === 'malformed') this.malformed++
      else if (event !== null) this.event(event)
      return
    }
    if (raw.includes('] Compacting ')) {
      const compacting = parseCompactingLine(utf8(raw))
      if (compacting !== null) {
        const job = this.start(compacting.job, 'compaction')
        job.columnFamily = compacting.columnFamily
        job.outputLevel = compacting.outputLevel
      }
      return
    }
    if (raw.includes('] Flush lasted ')) {
      const lasted = parseFlushLastedLine(utf8(raw))
      if (lasted !== null) {
        this.flushCpuLines++
        this.flushJob(lasted.job).flushCpu.push({ columnFamily: lasted.columnFamily, cpuMicros: lasted.cpuMicros, wallMicros: lasted.wallMicros })
      }
      return
    }
    if (raw.includes('DB Session ID:')) {
      const openId = parseOpenIdLine(raw)
      if (openId !== null && openId !== this.openId) {
        if (this.openId !== null) this.reopened()
        this.openId = openId
      }
      return
    }
    if (isStatisticsHeader(raw)) {
      this.inStatistics = true
      this.dumpMicros = lineTimestampMicros(raw)
      this.dumpValues = new Map()
    }
  }

  /** The database opened again: its jobs and counters start over. */
  reopened(): void {
    for (const [id, job] of [...this.jobs]) this.settle(id, job, null)
    this.previousDump = null
  }

  endDump(): void {
    this.inStatistics = false
    if (this.dumpMicros === null || this.dumpValues.size === 0) return
    this.dumps++
    const current = { micros: this.dumpMicros, values: this.dumpValues }
    const previous = this.previousDump
    this.previousDump = current
    if (previous === null) return
    const seconds = (current.micros - previous.micros) / 1e6
    if (!(seconds > 0)) return
    const tracked = [...READ_COUNTERS, ...READ_HISTOGRAMS, ...READ_TICKERS_LATER]
    // a counter going down: the database reopened (new counters), not a rate
    for (const name of tracked) {
      const before = previous.values.get(name)
      const after = current.values.get(name)
      if (before !== undefined && after !== undefined && after < before) return
    }
    this.readSeconds += seconds
    for (const name of tracked) {
      const before = previous.values.get(name)
      const after = current.values.get(name)
      if (before !== undefined && after !== undefined) this.increase[name] = (this.increase[name] ?? 0) + after - before
    }
  }

  /**
   * The job of that number as it starts: a job still open under that number with files written,
   * or of another kind, is an earlier one that never finished (the database reopened and numbers
   * restarted): it is settled with what is known of it first.
   */
  start(id: number, kind: 'flush' | 'compaction'): OpenJob {
    const existing = this.jobs.get(id)
    if (existing !== undefined) {
      if (existing.files.length === 0 && (existing.kind === kind || existing.kind === 'unknown')) {
        existing.kind = kind
        return existing
      }
      this.settle(id, existing, null)
    }
    const job: OpenJob = { kind, files: [], flushCpu: [], columnFamily: null, outputLevel: null }
    this.jobs.set(id, job)
    return job
  }

  /**
   * The flush job a "Flush lasted" line names: logged after the flush's table file and before its
   * flush_finished, so the job is open with its files; one whose start no LOG holds is opened here.
   * A compaction open under that number is an earlier one that never finished.
   */
  flushJob(id: number): OpenJob {
    const existing = this.jobs.get(id)
    if (existing !== undefined && existing.kind !== 'compaction') {
      existing.kind = 'flush'
      return existing
    }
    if (existing !== undefined) this.settle(id, existing, null)
    const job: OpenJob = { kind: 'flush', files: [], flushCpu: [], columnFamily: null, outputLevel: null }
    this.jobs.set(id, job)
    return job
  }

  event(e: InfoLogEvent): void {
    this.events++
    if (this.firstMicros === null || e.timeMicros < this.firstMicros) this.firstMicros = e.timeMicros
    if (this.lastMicros === null || e.timeMicros > this.lastMicros) this.lastMicros = e.timeMicros
    const f = e.fields
    switch (e.event) {
      case 'flush_started':
      case 'recovery_started': {
        if (e.job !== null) this.start(e.job, 'flush')
        return
      }
      case 'compaction_started': {
        if (e.job === null) return
        const job = this.start(e.job, 'compaction')
        const cf = eventString(f, 'cf_name')
        if (cf !== null) job.columnFamily = cf
        return
      }
      case 'table_file_creation': {
        const cf = eventString(f, 'cf_name')
        const props = f.table_properties
        const p = props !== null && typeof props === 'object' ? (props as Record<string, unknown>) : {}
        const file: PendingFile = {
          columnFamily: cf ?? eventString(p, 'column_family_name') ?? '',
          fileBytes: eventNumber(f, 'file_size') ?? 0,
          dataBytes: eventNumber(p, 'data_size') ?? 0,
          rawBytes: (eventNumber(p, 'raw_key_size') ?? 0) + (eventNumber(p, 'raw_value_size') ?? 0),
          entries: eventNumber(p, 'num_entries') ?? 0,
          compression: eventString(p, 'compression') ?? 'unknown',
        }
        if (e.job === null) {
          this.unattributed(file)
          return
        }
        let job = this.jobs.get(e.job)
        if (job === undefined) {
          // its start is in a LOG no longer there: the outcome may still come
          job = { kind: 'unknown', files: [], flushCpu: [], columnFamily: null, outputLevel: null }
          this.jobs.set(e.job, job)
        }
        job.files.push(file)
        return
      }
      case 'flush_finished': {
        if (e.job === null) return
        const job = this.jobs.get(e.job)
        if (job !== undefined) this.settle(e.job, { ...job, kind: 'flush' }, null)
        this.flushes++
        return
      }
      case 'recovery_finished': {
        if (e.job === null) return
        const job = this.jobs.get(e.job)
        if (job !== undefined) this.settle(e.job, { ...job, kind: 'flush' }, null)
        return
      }
      case 'compaction_finished': {
        if (e.job === null) return
        const job = this.jobs.get(e.job) ?? { kind: 'compaction', files: [], flushCpu: [], columnFamily: null, outputLevel: null }
        const outputLevel = eventNumber(f, 'output_level')
        this.compactions++
        this.settle(e.job, { ...job, kind: 'compaction', outputLevel: outputLevel ?? job.outputLevel }, f)
        return
      }
      case 'trivial_move':
        this.trivialMoves++
        return
    }
  }

  unattributed(file: PendingFile): void {
    this.unattributedFiles++
    this.unattributedBytes += file.fileBytes
  }

  /** Books a job's files (and, for compaction_finished, its totals) to their level; forgets the job. */
  settle(id: number, job: OpenJob, finished: Record<string, unknown> | null): void {
    this.jobs.delete(id)
    const level = job.kind === 'flush' ? 0 : job.kind === 'compaction' ? job.outputLevel : null
    for (const file of job.files) {
      const cf = file.columnFamily !== '' ? file.columnFamily : job.columnFamily
      if (level === null || cf === null) {
        this.unattributed(file)
        continue
      }
      const entry = this.level(cf, level)
      entry.files++
      entry.fileBytes += file.fileBytes
      entry.dataBytes += file.dataBytes
      entry.rawBytes += file.rawBytes
      entry.entries += file.entries
      entry.fileBytesByCompression[file.compression] = (entry.fileBytesByCompression[file.compression] ?? 0) + file.fileBytes
      if (job.kind === 'flush') {
        entry.flushFiles++
        entry.flushBytes += file.fileBytes
        entry.writtenBytes += file.fileBytes
      } else if (finished === null) entry.writtenBytes += file.fileBytes
    }
    if (job.kind === 'flush') {
      const timed = new Set<string>()
      for (const cpu of job.flushCpu) {
        const entry = this.level(cpu.columnFamily, 0)
        entry.flushCpuMicros += cpu.cpuMicros
        entry.flushWallMicros += cpu.wallMicros
        entry.flushCpuFlushes++
        if (timed.has(cpu.columnFamily)) continue
        timed.add(cpu.columnFamily)
        for (const file of job.files) if (file.columnFamily === cpu.columnFamily) entry.flushCpuFileBytes += file.fileBytes
      }
    }
    if (finished === null || level === null) return
    const cf = job.columnFamily ?? job.files.find((file) => file.columnFamily !== '')?.columnFamily ?? null
    // a compaction that wrote nothing and whose column family no line names: nothing to book
    if (cf === null) return
    const entry = this.level(cf, level)
    entry.compactions++
    const output = eventNumber(finished, 'total_output_size') ?? job.files.reduce((sum, file) => sum + file.fileBytes, 0)
    entry.compactionOutputBytes += output
    entry.writtenBytes += output
    entry.compactionCpuMicros += eventNumber(finished, 'compaction_time_cpu_micros') ?? 0
    entry.compactionWallMicros += eventNumber(finished, 'compaction_time_micros') ?? 0
    entry.lastOutputCompression = eventString(finished, 'output_compression') ?? entry.lastOutputCompression
  }

  finish(files: InfoLogFileRead[], overlong: number): EventLogSummary {
    if (this.inStatistics) this.endDump()
    for (const [id, job] of [...this.jobs]) this.settle(id, job, null)
    const columnFamilies = [...this.levels]
      .map(([name, levels]) => ({ name, levels: [...levels.values()].sort((a, b) => a.level - b.level) }))
      .sort((a, b) => (a.name === 'default' ? -1 : b.name === 'default' ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return {
      files,
      events: this.events,
      malformedEvents: this.malformed,
      overlongLines: overlong,
      firstMicros: this.firstMicros,
      lastMicros: this.lastMicros,
      spanSeconds: this.firstMicros !== null && this.lastMicros !== null ? (this.lastMicros - this.firstMicros) / 1e6 : 0,
      flushes: this.flushes,
      compactions: this.compactions,
      trivialMoves: this.trivialMoves,
      flushCpuLines: this.flushCpuLines,
      columnFamilies,
      unattributedFiles: this.unattributedFiles,
      unattributedBytes: this.unattributedBytes,
      reads: this.dumps > 0 ? { dumps: this.dumps, seconds: this.readSeconds, increase: this.increase } : null,
    }
  }
}

export interface ReadEventLogOptions {
  /** RocksDB's db_log_dir, when the LOGs live outside the database directory. */
  logDir?: string | null
}

/** Reads every info LOG of the database (see the header). Never writes; missing LOGs give an empty summary. */
export function readEventLog(dbDir: string, options: ReadEventLogOptions = {}): EventLogSummary {
  const paths = infoLogFiles(dbDir, options.logDir ?? null)
  return summarizeInfoLogs(paths)
}

/** Reads the given LOG files, in the order given (oldest first), as one stream. */
export function summarizeInfoLogs(paths: string[]): EventLogSummary {
  const acc = new WorkloadAccumulator()
  const files: InfoLogFileRead[] = []
  let overlong = 0
  for (const path of paths) {
    const eventsBefore = acc.events
    // a statistics dump does not continue into the next file
    if (acc.inStatistics) acc.endDump()
    const read = forEachLine(path, (line) => acc.line(line))
    overlong += read.overlong
    files.push({ path, bytes: read.bytes, lines: read.lines, events: acc.events - eventsBefore })
  }
  return acc.finish(files, overlong)
}
