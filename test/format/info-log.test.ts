/**
 * The info LOG line parsers. The lines below have the shape db_bench 7.8.3 writes (real LOGs are
 * read whole in test/db/event-log.test.ts); the broken ones are synthetic, made to be broken.
 */
import { describe, expect, it } from 'vitest'
import {
  eventNumber,
  eventString,
  isStatisticsHeader,
  lineTimestampMicros,
  parseCompactingLine,
  parseEventLine,
  parseOpenIdLine,
  parseStatisticLine,
} from '../../src/format/info-log.js'

const FINISHED =
  '2026/12/03-09:19:11.904363 10482 (Original Log Time 2026/12/03-09:19:11.904286) EVENT_LOG_v1 {"time_micros": 1796289551904271, "job": 6, "event": "compaction_finished", "compaction_time_micros": 32443, "compaction_time_cpu_micros": 11748, "output_level": 1, "num_output_files": 2, "total_output_size": 456710, "output_compression": "LZ4", "lsm_state": [1, 2, 0, 0, 0, 0, 0]}'

describe('info LOG lines', () => {
  it('an event: time, job and fields, also behind an "Original Log Time" prefix', () => {
    const e = parseEventLine(FINISHED)
    expect(e).not.toBeNull()
    if (e === null || e === 'malformed') return
    expect(e.event).toBe('compaction_finished')
    expect(e.timeMicros).toBe(1796289551904271)
    expect(e.job).toBe(6)
    expect(eventNumber(e.fields, 'total_output_size')).toBe(456710)
    expect(eventNumber(e.fields, 'output_compression')).toBeNull()
    expect(eventString(e.fields, 'output_compression')).toBe('LZ4')
    expect(eventString(e.fields, 'missing')).toBeNull()
  })

  it('synthetic: a line cut short, or an object without time_micros/event, is malformed; no marker is null', () => {
    expect(parseEventLine(FINISHED.slice(0, 150))).toBe('malformed')
    expect(parseEventLine('2026/12/03-09:19:11.904363 1 EVENT_LOG_v1 {"job": 1}')).toBe('malformed')
    expect(parseEventLine('2026/12/03-09:19:11.904363 1 EVENT_LOG_v1 [1, 2]')).toBe('malformed')
    expect(parseEventLine('2026/12/03-09:19:11.904363 1 [db/db_impl/db_impl.cc:1] Shutdown complete')).toBeNull()
  })

  it('the text timestamp, in microseconds (differences only)', () => {
    const a = lineTimestampMicros('2026/12/03-09:19:11.904363 10482 x')
    const b = lineTimestampMicros('2026/12/04-09:19:12.000001 10482 x')
    expect(a).not.toBeNull()
    expect((b ?? 0) - (a ?? 0)).toBe(86_400_000_000 + 95_638)
    expect(lineTimestampMicros(' rocksdb.bytes.read COUNT : 0')).toBeNull()
  })

  it('statistics: the dump header, tickers and histograms', () => {
    expect(isStatisticsHeader('2026/12/03-09:19:11.796941 10515 [db/db_impl/db_impl.cc:788] STATISTICS:')).toBe(true)
    expect(isStatisticsHeader('STATISTICS:')).toBe(false)
    expect(parseStatisticLine(' rocksdb.block.cache.data.miss COUNT : 1316333')).toEqual({ name: 'rocksdb.block.cache.data.miss', count: 1316333, sum: null })
    expect(
      parseStatisticLine('rocksdb.bytes.decompressed P50 : 4096.000000 P95 : 4200.000000 P99 : 4300.000000 P100 : 4400.000000 COUNT : 12 SUM : 49152'),
    ).toEqual({ name: 'rocksdb.bytes.decompressed', count: 12, sum: 49152 })
    expect(parseStatisticLine('2026/12/03-09:19:11.796941 10515 something else')).toBeNull()
  })

  it('the "Compacting" line: column family, job, output level', () => {
    expect(
      parseCompactingLine(
        '2026/12/03-09:19:11.945292 10482 [db/compaction/compaction_job.cc:1994] [default] [JOB 11] Compacting 4@0 + 2@1 files to L1, score 1.00',
      ),
    ).toEqual({ columnFamily: 'default', job: 11, outputLevel: 1 })
    expect(
      parseCompactingLine('2026/12/03-09:19:11.945292 10482 [db/compaction/compaction_job.cc:1994] [cf [x]] [JOB 3] Compacting 1@2 files to L3, score 1.20'),
    ).toEqual({
      columnFamily: 'cf [x]',
      job: 3,
      outputLevel: 3,
    })
    expect(parseCompactingLine('2026/12/03-09:19:11.945292 10482 [default] Compacting nothing')).toBeNull()
  })

  it("the id of the database's open, in the header", () => {
    expect(parseOpenIdLine('2026/12/03-09:25:18.513896 21451 DB Session ID:  LXYSHGA0CRRSXJML1OZ1')).toBe('LXYSHGA0CRRSXJML1OZ1')
    expect(parseOpenIdLine('2026/12/03-09:25:18.513896 21451 DB SUMMARY')).toBeNull()
  })
})
