/**
 * The event log reader on info LOGs real RocksDB wrote: db_bench 7.8.3 under known workloads
 * (test/fixtures/workload-log.mjs: fill, several column families, LOG rotation, a reopen, a LOG
 * without events at info_log_level=WARN) and RocksDB 11.8.1 (write-v11-db.mjs). Each LOG is summed
 * independently (test/db/event-log-sum.ts); per column family and level the bytes written agree
 * within 1%, and the span, the files and the counts agree exactly.
 */
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { infoLogFiles, infoLogPrefix, MAX_LINE_BYTES, readEventLog, summarizeInfoLogs, type EventLogSummary } from '../../src/db/event-log.js'
import { openDatabase } from '../../src/db/database.js'
import { ROOT, toolPresent } from '../helpers.js'
import { rocksdbJs } from '../rewrite/rocksdb-js.js'
import { type EventSum, logFilesOf, sumEvents } from './event-log-sum.js'
// @ts-expect-error: a plain .mjs generator without declarations
import { DB_BENCH, writeWorkload } from '../fixtures/workload-log.mjs'

function levelMap(summary: EventLogSummary, pick: (l: EventLogSummary['columnFamilies'][0]['levels'][0]) => number): Map<string, number> {
  const out = new Map<string, number>()
  for (const cf of summary.columnFamilies) for (const l of cf.levels) if (pick(l) > 0) out.set(`${cf.name}/L${l.level}`, pick(l))
  return out
}

/** The reader agrees with the independent sum: bytes within 1% per level, the rest exactly. */
function expectAgreement(summary: EventLogSummary, sum: EventSum): void {
  const written = levelMap(summary, (l) => l.writtenBytes)
  expect([...written.keys()].sort()).toEqual([...[...sum.written].filter(([, v]) => v > 0).map(([k]) => k)].sort())
  for (const [key, bytes] of sum.written) {
    if (bytes === 0) continue
    const got = written.get(key) ?? 0
    expect(Math.abs(got - bytes) / bytes, `${key}: reader ${got}, events ${bytes}`).toBeLessThanOrEqual(0.01)
  }
  for (const [key, bytes] of sum.raw) expect(levelMap(summary, (l) => l.rawBytes).get(key), key).toBe(bytes)
  for (const [key, micros] of sum.cpuMicros) expect(levelMap(summary, (l) => l.compactionCpuMicros).get(key) ?? 0, key).toBe(micros)
  // flush CPU: every "Flush lasted" line, on its column family's L0
  expect(levelMap(summary, (l) => l.flushCpuMicros)).toEqual(new Map([...sum.flushCpuMicros].filter(([, v]) => v > 0).map(([cf, v]) => [`${cf}/L0`, v])))
  expect(levelMap(summary, (l) => l.flushCpuFlushes)).toEqual(new Map([...sum.flushCpuLines].map(([cf, n]) => [`${cf}/L0`, n])))
  expect(summary.flushCpuLines).toBe([...sum.flushCpuLines.values()].reduce((a, b) => a + b, 0))
  expect(summary.firstMicros).toBe(sum.first)
  expect(summary.lastMicros).toBe(sum.last)
  expect(summary.spanSeconds).toBeCloseTo((sum.last - sum.first) / 1e6, 6)
  expect(summary.files.length).toBe(sum.logFiles)
  expect(summary.flushes).toBe(sum.flushes)
  expect(summary.compactions).toBe(sum.compactions)
  expect(summary.malformedEvents).toBe(0)
  expect(summary.overlongLines).toBe(0)
  expect(summary.unattributedFiles).toBe(0)
}

describe.runIf(toolPresent('db_bench', DB_BENCH !== null, 'apt-get install rocksdb-tools'))('event log of db_bench 7.8.3 workloads', () => {
  let dir: string
  const dbs: Record<string, string> = {}
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-event-log-'))
    for (const name of ['fill', 'cfs', 'rotation', 'reopen', 'quiet']) dbs[name] = writeWorkload(name, join(dir, name))
  }, 120_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('fill: flushes on L0 and compactions below, as the events sum them', () => {
    const summary = readEventLog(dbs.fill)
    const sum = sumEvents(dbs.fill)
    expectAgreement(summary, sum)
    expect(summary.columnFamilies.map((c) => c.name)).toEqual(['default'])
    const [l0, ...below] = summary.columnFamilies[0].levels
    expect(l0.level).toBe(0)
    expect(l0.flushFiles).toBe(l0.files)
    expect(l0.flushBytes).toBe(l0.writtenBytes)
    expect(below.length).toBeGreaterThan(0)
    for (const level of summary.columnFamilies[0].levels) {
      // lz4 on key-values of db_bench's half-compressible values: smaller on disk than raw
      expect(level.rawBytes).toBeGreaterThan(level.dataBytes)
      expect(Object.keys(level.fileBytesByCompression)).toEqual(['LZ4'])
    }
    for (const level of below) {
      expect(level.compactions).toBeGreaterThan(0)
      expect(level.compactionCpuMicros).toBeGreaterThan(0)
      expect(level.compactionWallMicros).toBeGreaterThanOrEqual(level.compactionCpuMicros * 0.5)
      expect(level.lastOutputCompression).toBe('LZ4')
    }
    expect(summary.reads).toBeNull()
    // RocksDB 7.8.3 logs each flush's CPU: every flush on L0 is covered
    expect(summary.flushCpuLines).toBe(summary.flushes)
    expect(l0.flushCpuFlushes).toBe(summary.flushes)
    expect(l0.flushCpuFileBytes).toBe(l0.flushBytes)
    expect(l0.flushCpuMicros).toBeGreaterThan(0)
    expect(l0.flushWallMicros).toBeGreaterThanOrEqual(l0.flushCpuMicros * 0.5)
  })

  it('several column families: each its own levels, names as the MANIFEST has them', () => {
    const summary = readEventLog(dbs.cfs)
    expectAgreement(summary, sumEvents(dbs.cfs))
    const live = openDatabase(dbs.cfs).columnFamilies.map((c) => c.name)
    expect(summary.columnFamilies.map((c) => c.name).sort()).toEqual([...live].sort())
    expect(summary.columnFamilies).toHaveLength(3)
    for (const cf of summary.columnFamilies) expect(cf.levels[0].fileBytesByCompression.Snappy).toBeGreaterThan(0)
  })

  it('LOG rotated by size: every LOG.old.* read in order, jobs crossing files kept whole', () => {
    const files = infoLogFiles(dbs.rotation)
    expect(files.length).toBeGreaterThan(2)
    expect(files.at(-1)).toBe(join(dbs.rotation, 'LOG'))
    expect(files).toEqual(logFilesOf(dbs.rotation))
    const summary = readEventLog(dbs.rotation)
    const sum = sumEvents(dbs.rotation)
    expect(sum.opens).toBe(1)
    expectAgreement(summary, sum)
    expect(summary.files.filter((f) => f.events > 0).length).toBeGreaterThan(1)
  })

  it('reopened: job numbers start over in the second session and are not mixed with the first', () => {
    const summary = readEventLog(dbs.reopen)
    const sum = sumEvents(dbs.reopen)
    expect(sum.opens).toBe(2)
    expect(summary.files).toHaveLength(2)
    expectAgreement(summary, sum)
    // the first session wrote lz4, the second zstd
    const l0 = summary.columnFamilies[0].levels[0]
    expect(Object.keys(l0.fileBytesByCompression).sort()).toEqual(['LZ4', 'ZSTD'])
    // the second open's WAL recovery wrote an L0 table and logged no CPU: the flush CPU covers the other flushes' bytes
    expect(l0.flushCpuFlushes).toBe(summary.flushCpuLines)
    expect(l0.flushCpuFileBytes).toBeGreaterThan(0)
    expect(l0.flushCpuFileBytes).toBeLessThan(l0.flushBytes)
  })

  it('info_log_level=WARN: a LOG with no event, read as such', () => {
    const summary = readEventLog(dbs.quiet)
    // The LOG is there; at WARN it holds lines only when RocksDB warned (write stalls under load), so none may be read.
    expect(summary.files).toHaveLength(1)
    expect(summary.events).toBe(0)
    expect(summary.columnFamilies).toEqual([])
    expect(summary.firstMicros).toBeNull()
    expect(summary.spanSeconds).toBe(0)
  })

  it('reads nothing it should not: the directory is unchanged', () => {
    const before = spawnSync('ls', ['-l', '--time-style=full-iso', dbs.fill], { encoding: 'utf8' }).stdout
    readEventLog(dbs.fill)
    expect(spawnSync('ls', ['-l', '--time-style=full-iso', dbs.fill], { encoding: 'utf8' }).stdout).toBe(before)
  })

  it('synthetic-cut: a LOG cut in the middle of an event line counts it as malformed, the rest still read', () => {
    const text = readFileSync(join(dbs.fill, 'LOG'), 'latin1')
    const lastEvent = text.lastIndexOf('EVENT_LOG_v1 {')
    const cutDir = join(dir, 'synthetic-cut')
    mkdirSync(cutDir)
    writeFileSync(join(cutDir, 'LOG'), text.slice(0, lastEvent + 40), 'latin1')
    const cut = readEventLog(cutDir)
    const whole = summarizeInfoLogs([join(dbs.fill, 'LOG')])
    expect(cut.malformedEvents).toBe(1)
    expect(cut.events).toBe(whole.events - 1)
  })

  it('synthetic-overlong: a line past the cap is skipped and counted, later lines still read', () => {
    const overDir = join(dir, 'synthetic-overlong')
    mkdirSync(overDir)
    const log = join(overDir, 'LOG')
    writeFileSync(log, `${'x'.repeat(MAX_LINE_BYTES + 10)}\n`)
    appendFileSync(log, readFileSync(join(dbs.fill, 'LOG')))
    const summary = readEventLog(overDir)
    expect(summary.overlongLines).toBe(1)
    expect(summary.events).toBe(summarizeInfoLogs([join(dbs.fill, 'LOG')]).events)
  })

  it("LOGs in db_log_dir are found under RocksDB's name for them", () => {
    const logDir = join(dir, 'logdir')
    mkdirSync(logDir)
    const prefix = infoLogPrefix(dbs.fill, logDir)
    expect(prefix).toBe(`${dbs.fill.slice(1).replace(/[^A-Za-z0-9._-]/g, '_')}_LOG`)
    copyFileSync(join(dbs.fill, 'LOG'), join(logDir, prefix))
    copyFileSync(join(dbs.fill, 'LOG'), join(logDir, `${prefix}.old.1700000000000000`))
    writeFileSync(join(logDir, 'LOG'), '')
    expect(infoLogFiles(dbs.fill, logDir)).toEqual([join(logDir, `${prefix}.old.1700000000000000`), join(logDir, prefix)])
  })

  it('a directory without a LOG gives an empty summary', () => {
    const summary = readEventLog(join(ROOT, 'test/fixtures/db-medium'))
    expect(summary.files).toEqual([])
    expect(summary.events).toBe(0)
    expect(summarizeInfoLogs([]).columnFamilies).toEqual([])
  })
})

describe('event log of RocksDB 6.17.3: before the "Flush lasted" lines', () => {
  // written by generate-workload-v6.sh (npm rocksdb@5.2.1): 14 flushes, compactions, the LOG rotated
  const db = join(ROOT, 'test/fixtures/workload/rocksdb-6.17.3')

  it('flushes and compactions as the events sum them, L0 counted, no flush CPU', () => {
    const logs = logFilesOf(db)
    expect(logs.length).toBeGreaterThan(1)
    expect(readFileSync(logs[0], 'latin1')).toMatch(/ RocksDB version: 6\.17\.3\n/)
    expect(logs.some((path) => readFileSync(path, 'latin1').includes('Flush lasted'))).toBe(false)
    const summary = readEventLog(db)
    expectAgreement(summary, sumEvents(db))
    expect(summary.flushes).toBeGreaterThan(0)
    expect(summary.compactions).toBeGreaterThan(0)
    expect(summary.flushCpuLines).toBe(0)
    const l0 = summary.columnFamilies[0].levels[0]
    expect(l0.level).toBe(0)
    expect(l0.flushFiles).toBe(summary.flushes)
    expect(l0.flushBytes).toBeGreaterThan(0)
    expect([l0.flushCpuMicros, l0.flushCpuFlushes, l0.flushCpuFileBytes]).toEqual([0, 0, 0])
  })
})

describe.runIf(toolPresent('@harperfast/rocksdb-js-linux-x64-glibc', rocksdbJs !== null, 'npm install (devDependency)'))('event log of RocksDB 11.8.1', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-event-log-v11-'))
    const run = spawnSync('node', [join(ROOT, 'test/fixtures/write-v11-db.mjs'), join(dir, 'db')], { encoding: 'utf8' })
    if (run.status !== 0) throw new Error(run.stderr)
  }, 60_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('compaction_started names the column family; flushes and the full compaction agree with the sum', () => {
    const db = join(dir, 'db')
    const summary = readEventLog(db)
    expectAgreement(summary, sumEvents(db))
    expect(summary.columnFamilies.map((c) => c.name)).toEqual(['default', 'events'])
    const compacted = summary.columnFamilies[0].levels.filter((l) => l.compactions > 0)
    expect(compacted).toHaveLength(1)
    expect(compacted[0].level).toBeGreaterThan(0)
  })
})
