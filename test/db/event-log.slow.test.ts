/**
 * The event log reader on longer db_bench 7.8.3 runs (test/fixtures/workload-log.mjs): fill then
 * overwrite, statistics dumped every second, and 200k writes over two column families with the
 * LOG rotated every 64 KiB (dozens of LOG.old.* files). Bytes per level agree with the tests' own
 * sum of the events (test/db/event-log-sum.ts) within 1%; the read counters with the dumps'
 * own first-to-last difference.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { READ_COUNTERS, readEventLog } from '../../src/db/event-log.js'
import { toolPresent } from '../helpers.js'
import { logFilesOf, sumEvents } from './event-log-sum.js'
// @ts-expect-error: a plain .mjs generator without declarations
import { DB_BENCH, writeWorkload } from '../fixtures/workload-log.mjs'

describe.runIf(toolPresent('db_bench', DB_BENCH !== null, 'apt-get install rocksdb-tools'))('event log of longer db_bench runs', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-event-log-slow-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  for (const name of ['overwrite', 'large']) {
    it(`${name}: bytes written per column family and level within 1% of the events' sum`, () => {
      const db = writeWorkload(name, join(dir, name))
      const summary = readEventLog(db)
      const sum = sumEvents(db)
      expect(summary.files.length).toBe(sum.logFiles)
      if (name === 'large') {
        expect(summary.files.length).toBeGreaterThan(20)
        expect(summary.columnFamilies).toHaveLength(2)
      }
      let checked = 0
      for (const [key, bytes] of sum.written) {
        if (bytes === 0) continue
        const [cf, level] = key.split('/L')
        const got = summary.columnFamilies.find((c) => c.name === cf)?.levels.find((l) => l.level === Number(level))?.writtenBytes ?? 0
        expect(Math.abs(got - bytes) / bytes, `${key}: reader ${got}, events ${bytes}`).toBeLessThanOrEqual(0.01)
        checked++
      }
      expect(checked).toBe(summary.columnFamilies.reduce((n, c) => n + c.levels.filter((l) => l.writtenBytes > 0).length, 0))
      expect(summary.firstMicros).toBe(sum.first)
      expect(summary.lastMicros).toBe(sum.last)
      expect(summary.compactions).toBe(sum.compactions)
      expect(summary.unattributedFiles).toBe(0)
      // flush CPU per column family: the sum of its "Flush lasted" lines, across every rotated LOG
      expect(summary.flushCpuLines).toBeGreaterThan(0)
      expect(summary.flushCpuLines).toBe([...sum.flushCpuLines.values()].reduce((a, b) => a + b, 0))
      for (const cf of summary.columnFamilies) {
        const l0 = cf.levels.find((l) => l.level === 0)
        expect(l0?.flushCpuMicros ?? 0, cf.name).toBe(sum.flushCpuMicros.get(cf.name) ?? 0)
        expect(l0?.flushCpuFlushes ?? 0, cf.name).toBe(sum.flushCpuLines.get(cf.name) ?? 0)
      }
    }, 120_000)
  }

  it('statistics: read counters increase as the dumps say, over the seconds between them', () => {
    const db = writeWorkload('statistics', join(dir, 'statistics'))
    const summary = readEventLog(db)
    // the dumps summed here: one session, counters only grow, so the increase is last - first
    const dumps: { micros: number; values: Map<string, number> }[] = []
    for (const path of logFilesOf(db)) {
      let current: (typeof dumps)[0] | null = null
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        const header = /^(\d{4})\/(\d\d)\/(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6}) .*STATISTICS:$/.exec(line)
        if (header) {
          const [, y, mo, d, h, mi, s, us] = header.map(Number)
          current = { micros: Date.UTC(y, mo - 1, d, h, mi, s) * 1000 + us, values: new Map() }
          dumps.push(current)
          continue
        }
        const counter = /^\s*(rocksdb\.\S+) COUNT : (\d+)$/.exec(line)
        if (current && counter) current.values.set(counter[1], Number(counter[2]))
        else if (!/^\s*rocksdb\./.test(line)) current = null
      }
    }
    expect(dumps.length).toBeGreaterThanOrEqual(3)
    const reads = summary.reads
    expect(reads).not.toBeNull()
    expect(reads?.dumps).toBe(dumps.length)
    expect(reads?.seconds).toBeCloseTo((dumps.at(-1)!.micros - dumps[0].micros) / 1e6, 6)
    for (const name of READ_COUNTERS) {
      expect(reads?.increase[name], name).toBe(dumps.at(-1)!.values.get(name)! - dumps[0].values.get(name)!)
    }
    // readrandom with a 64 KiB block cache: data blocks come from the files
    expect(reads?.increase['rocksdb.block.cache.data.miss']).toBeGreaterThan(1000)
  }, 120_000)
})
