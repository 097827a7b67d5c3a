/**
 * The write workload of a database as its info LOGs record it (db/event-log.ts): per column family
 * and level, bytes flushes and compactions wrote and the CPU RocksDB logged, over the LOGs' span;
 * the statistics dumps' read counters. decide/cost.ts prices the advice's settings at it.
 */
import { type EventLogSummary, readEventLog } from '../db/event-log.js'
import { SHORT_SPAN_SECONDS } from '../decide/cost.js'
import type { MeasuredLevel, MeasuredReads, MeasuredWorkload, WorkloadAdvice, WorkloadNote } from '../types/advice.js'

/** Reads the LOGs of a database directory and says whether they give a workload. */
export function measureWorkload(dbDir: string, logDir: string | null = null): WorkloadAdvice {
  try {
    return workloadFromSummary(readEventLog(dbDir, { logDir }), dbDir)
  } catch (e) {
    // an unreadable LOG costs the pricing, not the advice
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message
    return { measured: null, note: { code: 'workload-log-unreadable', dir: dbDir, reason: why }, readsNote: { code: 'reads-not-measured' }, prices: null }
  }
}

/** The workload of an event log summary, or the one line saying why there is none. */
export function workloadFromSummary(summary: EventLogSummary, dbDir: string): WorkloadAdvice {
  const none = (note: WorkloadNote): WorkloadAdvice => ({ measured: null, note, readsNote: { code: 'reads-not-measured' }, prices: null })
  if (summary.files.length === 0) return none({ code: 'workload-no-log', dir: dbDir })
  if (summary.events === 0) return none({ code: 'workload-no-events', logFiles: summary.files.length })
  const levels: MeasuredLevel[] = []
  for (const cf of summary.columnFamilies)
    for (const l of cf.levels) {
      if (l.writtenBytes <= 0) continue
      const total = Object.values(l.fileBytesByCompression).reduce((a, b) => a + b, 0)
      levels.push({
        columnFamily: cf.name,
        level: l.level,
        writtenBytes: l.writtenBytes,
        compactionOutputBytes: l.compactionOutputBytes,
        fileBytes: l.fileBytes,
        dataBytes: l.dataBytes,
        rawBytes: l.rawBytes,
        files: l.files,
        flushFiles: l.flushFiles,
        flushBytes: l.flushBytes,
        compactions: l.compactions,
        compactionCpuSeconds: l.compactionCpuMicros / 1e6,
        flushCpuSeconds: l.flushCpuMicros / 1e6,
        flushCpuFlushes: l.flushCpuFlushes,
        flushCpuFileBytes: l.flushCpuFileBytes,
        compressionShares: Object.fromEntries(Object.entries(l.fileBytesByCompression).map(([k, v]) => [k, total > 0 ? v / total : 0])),
      })
    }
  if (levels.length === 0 || summary.spanSeconds <= 0 || summary.firstMicros === null || summary.lastMicros === null)
    return none({ code: 'workload-no-writes', events: summary.events })
  const span = summary.spanSeconds
  const shortSpan = span < SHORT_SPAN_SECONDS
  const reads = readsOf(summary)
  const measured: MeasuredWorkload = {
    logFiles: summary.files.map((f) => f.path),
    events: summary.events,
    firstMicros: summary.firstMicros,
    lastMicros: summary.lastMicros,
    spanSeconds: span,
    shortSpan,
    levels,
    flushCpuLines: summary.flushCpuLines,
    reads,
    unattributedBytes: summary.unattributedBytes,
  }
  const written = levels.reduce((a, l) => a + l.writtenBytes, 0)
  return {
    measured,
    note: {
      code: 'workload-measured',
      logFiles: summary.files.length,
      flushes: summary.flushes,
      compactions: summary.compactions,
      spanSeconds: span,
      shortSpan,
      writtenPerDay: (written / span) * 86400,
    },
    readsNote: reads ? { code: 'reads-measured', seconds: reads.seconds, dataBlockMissesPerSec: reads.dataBlockMissesPerSec } : { code: 'reads-no-statistics' },
    prices: null,
  }
}

/**
 * The workload at a write rate the user gave (`--write-rate`: bytes flushed a day, what enters L0):
 * the LOG's shape across column families and levels, its rates scaled together so that the
 * flushes write that much a day. A rate given is trusted whatever the LOG's span.
 */
export function atWriteRate(workload: WorkloadAdvice, flushedPerDay: number): WorkloadAdvice {
  const m = workload.measured
  if (!m) return { ...workload, note: { ...workload.note, writeRate: { used: false, why: 'no-shape' } } }
  const flushed = m.levels.reduce((a, l) => a + l.flushBytes, 0)
  if (!(flushed > 0)) return { ...workload, note: { ...workload.note, writeRate: { used: false, why: 'no-flush' } } }
  const measuredPerDay = (flushed / m.spanSeconds) * 86400
  // Rates are bytes over the span: a longer span scales every one of them down together.
  const spanSeconds = m.spanSeconds * (measuredPerDay / flushedPerDay)
  return {
    ...workload,
    measured: { ...m, spanSeconds, shortSpan: false, writeRate: { flushedPerDay, logSpanSeconds: m.spanSeconds } },
    note: { ...workload.note, writeRate: { used: true, flushedPerDay, measuredPerDay } },
  }
}

function readsOf(summary: EventLogSummary): MeasuredReads | null {
  const r = summary.reads
  if (r === null || !(r.seconds > 0) || r.increase['rocksdb.block.cache.data.miss'] === undefined) return null
  const per = (name: string) => (r.increase[name] === undefined ? null : r.increase[name] / r.seconds)
  return {
    seconds: r.seconds,
    dataBlockMissesPerSec: per('rocksdb.block.cache.data.miss') ?? 0,
    blocksDecompressedPerSec: per('rocksdb.number.block.decompressed'),
    userBytesReadPerSec: per('rocksdb.bytes.read'),
  }
}
