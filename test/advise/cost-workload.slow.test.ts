/**
 * advise priced on the database's own workload (src/decide/cost.ts), through the built CLI, on
 * databases db_bench 7.8.3 wrote under known workloads (test/fixtures/workload-log.mjs): the JSON
 * carries per level the bytes written over the LOGs' span (within 1% of the tests' own sum of the
 * events), every setting's cores at that rate, and the decisions use them (balanced weighted by
 * rate, --objective cost at the least total), and L0's flush CPU (the "Flush lasted" lines) is the
 * sum of those lines per column family, checked against sstkit's model. A LOG RocksDB 6.17.3 wrote
 * (before those lines) prices L0 on the model only and says so. Without a usable LOG: one line,
 * and the fixed rules.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Advice, LevelAdvice } from '../../src/types/advice.js'
import { levelCost, NEGLIGIBLE_CORES, rateWeightedLimits, SHORT_SPAN_SECONDS, speedsOf } from '../../src/decide/cost.js'
import { measureWorkload } from '../../src/advise/workload.js'
import { limitsFor, references } from '../../src/decide/rule.js'
import { renderAdviceText } from '../../src/report/advise.js'
import { renderAdviceMarkdown } from '../../src/report/advise-markdown.js'
import { renderAdviceHtml } from '../../src/report/advise-html.js'
import { noteText } from '../../src/report/advise-notes.js'
import { jsonNoteTexts, ROOT, sstkit, toolPresent } from '../helpers.js'
import { sumEvents } from '../db/event-log-sum.js'
// @ts-expect-error: a plain .mjs generator without declarations
import { DB_BENCH, writeWorkload } from '../fixtures/workload-log.mjs'

/** Every block evaluated: the small databases are read whole, so runs are quick and exact. */
const WHOLE = ['--sample', '100%']

/** The sentence `advise --json` writes beside a coded note. */
const text = (note: object) => (note as { text: string }).text

function advise(args: string[]): Advice {
  const r = sstkit(['advise', ...args, '--json'])
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Advice
}

const levelsOf = (a: Advice): LevelAdvice[] => a.columnFamilies.flatMap((c) => c.levels)

describe.runIf(toolPresent('db_bench', DB_BENCH !== null, 'apt-get install rocksdb-tools'))('advise priced on the measured workload', () => {
  let dir: string
  const dbs: Record<string, string> = {}
  let balanced: Advice
  let cfsCost: Advice
  let cfsShort: Advice
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-cost-'))
    for (const name of ['fill', 'cfs', 'quiet', 'reopen']) dbs[name] = writeWorkload(name, join(dir, name))
    balanced = advise([dbs.fill, ...WHOLE])
    // db_bench's LOG spans seconds: cost prices it only at a rate given.
    cfsCost = advise([dbs.cfs, ...WHOLE, '--objective', 'cost', '--cpu-price', '0.05', '--storage-price', '0.1', '--write-rate', '20GB'])
    cfsShort = advise([dbs.cfs, ...WHOLE, '--objective', 'cost', '--cpu-price', '0.05', '--storage-price', '0.1'])
  }, 180_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('the JSON carries per level the bytes written over the span, within 1% of the events', () => {
    const w = balanced.workload
    expect(w?.measured).toBeTruthy()
    const sum = sumEvents(dbs.fill)
    const measured = w!.measured!
    expect(measured.spanSeconds).toBeCloseTo((sum.last - sum.first) / 1e6, 6)
    const keys = measured.levels.map((l) => `${l.columnFamily}/L${l.level}`).sort()
    expect(keys).toEqual([...sum.written.keys()].filter((k) => (sum.written.get(k) ?? 0) > 0).sort())
    for (const l of measured.levels) {
      const expected = sum.written.get(`${l.columnFamily}/L${l.level}`)!
      expect(Math.abs(l.writtenBytes - expected) / expected).toBeLessThanOrEqual(0.01)
    }
    // a db_bench run of seconds: labelled a short span
    expect(measured.shortSpan).toBe(true)
    expect(w!.note).toMatchObject({ code: 'workload-measured', shortSpan: true, spanSeconds: measured.spanSeconds })
    expect(text(w!.note)).toMatch(/short span/)
    expect(w!.readsNote).toMatchObject({ code: 'reads-no-statistics' })
    expect(text(w!.readsNote)).toMatch(/reads not measured/)
  })

  it('every setting of a measured level is priced: cores = CPU per GB × input GB/s, CPU-hours = cores × 24', () => {
    const w = balanced.workload!.measured!
    for (const l of levelsOf(balanced)) {
      const m = w.levels.find((x) => x.columnFamily === l.columnFamily && x.level === l.level)
      if (!m) {
        expect(l.cost ?? null).toBeNull()
        continue
      }
      const c = l.cost!
      expect(c.settings).toHaveLength(l.matrix.length)
      expect(c.writtenPerDay).toBeCloseTo((m.writtenBytes / w.spanSeconds) * 86400, 0)
      const inputGBps = c.inputPerDay / 86400 / 1e9
      l.matrix.forEach((x, i) => {
        const s = c.settings[i]
        expect(s.label).toBe(x.setting.label)
        expect(s.cores).toBeCloseTo(speedsOf(x).compressSecPerGB * inputGBps + s.dictCores, 9)
        expect(s.cpuHoursPerDay).toBeCloseTo(s.cores * 24, 9)
        if (x.setting.type === 'none') expect(s.cores).toBe(0)
      })
      expect(c.today?.label).toBe(l.today?.setting.label)
      expect(c.today?.savedBytes).toBeCloseTo(0, 6)
      expect(c.recommended.label).toBe(l.recommended.estimate.setting.label)
      // today's data blocks at the measured rate, uncompressed: more than written
      expect(c.inputPerDay).toBeGreaterThan(c.writtenPerDay * 0.9)
      if (m.compactions > 0) {
        expect(c.measuredCompactionCores).toBeCloseTo(m.compactionCpuSeconds / w.spanSeconds, 9)
        expect(c.modelCompactionCores).toBeGreaterThan(0)
        expect(c.modelCheck).toMatch(/^RocksDB spent [\d.]+ cores compacting into L\d+; sstkit's model of /)
      }
    }
  })

  it('the JSON carries per column family the flush CPU of its "Flush lasted" lines, and L0 checks the model against it', () => {
    let checked = 0
    for (const [name, a] of [
      ['fill', balanced],
      ['cfs', cfsCost],
    ] as const) {
      const sum = sumEvents(dbs[name])
      const measured = a.workload!.measured!
      expect(measured.flushCpuLines).toBe([...sum.flushCpuLines.values()].reduce((x, y) => x + y, 0))
      const l0s = measured.levels.filter((m) => m.level === 0)
      expect(l0s.map((m) => m.columnFamily).sort()).toEqual([...sum.flushCpuMicros.keys()].sort())
      for (const m of l0s) {
        expect(m.flushCpuSeconds, m.columnFamily).toBe(sum.flushCpuMicros.get(m.columnFamily)! / 1e6)
        expect(m.flushCpuFlushes, m.columnFamily).toBe(sum.flushCpuLines.get(m.columnFamily))
        // no WAL recovery in these runs: the flushes logged cover every byte flushed
        expect(m.flushCpuFileBytes).toBe(m.flushBytes)
      }
      for (const l of levelsOf(a)) {
        if (l.level !== 0 || !l.cost || !l.today) continue
        const m = l0s.find((x) => x.columnFamily === l.columnFamily)!
        const c = l.cost
        expect(c.measuredFlushCores).toBeCloseTo(m.flushCpuSeconds / measured.spanSeconds, 12)
        const inputGBps = c.inputPerDay / 86400 / 1e9
        expect(c.modelFlushCores).toBeCloseTo(inputGBps * (m.flushCpuFileBytes / m.writtenBytes) * speedsOf(l.today).compressSecPerGB, 12)
        expect(c.flushCheck).toMatch(
          new RegExp(
            `^RocksDB spent \\S+ cores flushing into L0 \\(${m.flushCpuFlushes} flush(es)?\\); sstkit's model of .+ \\(compress those bytes\\) \\S+, [\\d.]+% of it`,
          ),
        )
        const share = c.modelFlushCores! / c.measuredFlushCores!
        expect(c.flushCheck).toContain(`${(share * 100).toFixed(share >= 0.1 ? 0 : 1)}% of it`)
        checked++
      }
    }
    // fill's one column family and cfs's three each end with a flush onto L0 (test/fixtures/workload-log.mjs)
    expect(checked).toBe(4)
  })

  it("flushes that logged no CPU (the reopen's WAL recovery): L0's check is on the other flushes' bytes and says which share", () => {
    const w = measureWorkload(dbs.reopen)
    const m = w.measured!.levels.find((l) => l.columnFamily === 'default' && l.level === 0)!
    expect(m.flushCpuFileBytes).toBeGreaterThan(0)
    expect(m.flushCpuFileBytes).toBeLessThan(m.flushBytes)
    // the reopened database's LOG priced on the settings evaluated for fill's L0 (same column family, lz4 today)
    const l0 = levelsOf(balanced).find((l) => l.columnFamily === 'default' && l.level === 0)!
    const c = levelCost(l0, w)!
    const share = m.flushCpuFileBytes / m.flushBytes
    expect(c.flushCheck).toContain(
      `(${m.flushCpuFlushes} flushes, ${(share * 100).toFixed(share >= 0.1 ? 0 : 1)}% of the bytes flushed; the rest logged no CPU (a WAL recovery at open, or RocksDB before 6.24)); `,
    )
    expect(c.measuredFlushCores).toBeCloseTo(m.flushCpuSeconds / w.measured!.spanSeconds, 12)
    const inputGBps = c.inputPerDay / 86400 / 1e9
    expect(c.modelFlushCores).toBeCloseTo(inputGBps * (m.flushCpuFileBytes / m.writtenBytes) * speedsOf(l0.today!).compressSecPerGB, 12)
  })

  it('balanced weighs each level by its measured rate and says so', () => {
    expect(balanced.notes.find((n) => n.code === 'balanced-write-weighted')).toMatchObject({ negligibleCores: NEGLIGIBLE_CORES })
    expect(jsonNoteTexts(balanced).some((n) => /weighted by the write rate the info LOG measured/.test(n))).toBe(true)
    const w = balanced.workload!
    const rated = levelsOf(balanced).filter((l) => w.measured!.levels.some((m) => m.columnFamily === l.columnFamily && m.level === l.level))
    // which levels hold files depends on db_bench's background compactions: L0 always, others as they ran
    expect(rated.length).toBeGreaterThan(0)
    const mean = w.measured!.levels.reduce((sum, m) => sum + m.rawBytes, 0) / w.measured!.levels.length
    for (const l of rated) {
      const m = w.measured!.levels.find((x) => x.columnFamily === l.columnFamily && x.level === l.level)!
      const fixed = limitsFor('balanced', l.bottommost, l.matrix, l.today, null)
      const weighted = rateWeightedLimits(fixed, 'balanced', false, l, l.matrix, w)
      const { fastestCpu } = references(l.matrix)
      const expected = Math.min(32, Math.max(1.25, (l.bottommost ? 8 : 3) / (m.rawBytes / mean)))
      expect(weighted.maxCompressSecPerGB! / fastestCpu!).toBeCloseTo(expected, 9)
      expect(weighted.describe).toMatch(/weighted by this level's measured write rate, [\d.]+x the average level's/)
      // the recommendation keeps within it (on the figures decisions rank on)
      // dictionary building counted at the measured rate (cores per input GB/s)
      const dictSecPerGB = l.cost!.recommended.dictCores / (l.cost!.inputPerDay / 86400 / 1e9)
      const anyNoisy = l.matrix.some((x) => x.setting.type !== 'none' && (x.compressSecPerGB.noisy || x.decompressMBps.noisy))
      // below the write path (L2 and lower) the limit is never tighter than NEGLIGIBLE_CORES at the level's rate
      const inputGBps = l.cost!.inputPerDay / 86400 / 1e9
      const limit = Math.max(weighted.maxCompressSecPerGB!, (l.level ?? 0) >= 2 ? NEGLIGIBLE_CORES / inputGBps : 0)
      if ((l.level ?? 0) < 2) expect(l.recommended.reason).not.toMatch(/cores at this level's measured write rate/)
      if (!anyNoisy && l.recommended.estimate.setting.type !== 'none' && !/no setting meets/.test(l.recommended.reason))
        expect(l.recommended.estimate.compressSecPerGB.value! + dictSecPerGB).toBeLessThanOrEqual(limit * (1 + 1e-9))
    }
    // other objectives, explicit limits and plain files keep their limits
    const l = rated[0]
    const fixed = limitsFor('size', l.bottommost, l.matrix, l.today, null)
    expect(rateWeightedLimits(fixed, 'size', false, l, l.matrix, w)).toBe(fixed)
    expect(rateWeightedLimits(fixed, 'balanced', true, l, l.matrix, w)).toBe(fixed)
    expect(rateWeightedLimits(fixed, 'balanced', false, { ...l, level: null }, l.matrix, w)).toBe(fixed)
  })

  it('text, Markdown and HTML show the cost next to each recommendation', () => {
    const text = renderAdviceText(balanced)
    expect(text).toMatch(/L0: [\d.]+ [KMGT]?B\/day written; .+ costs [\d.e-]+ cores \([\d.]+ CPU-h\/day\)/)
    const checked = levelsOf(balanced).filter((l) => l.cost?.modelCheck)
    expect(checked.length).toBeGreaterThan(0)
    const unwrapped = text.replace(/\n\s+/g, ' ')
    for (const l of checked) expect(unwrapped).toContain(l.cost!.modelCheck!.split(';')[0])
    const flushChecked = levelsOf(balanced).filter((l) => l.cost?.flushCheck)
    expect(flushChecked.map((l) => l.level)).toEqual([0])
    const flushCheck = flushChecked[0].cost!.flushCheck!
    expect(unwrapped).toContain(flushCheck.split(';')[0])
    expect(renderAdviceMarkdown(balanced)).toContain(`- ${flushCheck.split(';')[0]}`)
    expect(renderAdviceText(balanced, { wide: true })).toMatch(/Cores\s*│\s*CPU-h\/day/)
    expect(renderAdviceMarkdown(balanced)).toMatch(/^- L0: [\d.]+ [KMGT]?B\/day written;/m)
    const html = renderAdviceHtml(balanced)
    expect(html).toMatch(/<section id="workload">[\s\S]*?<svg[\s\S]*?<\/section>/)
    expect(html).toMatch(/<p class="cost">L0: /)
    expect(html).toMatch(/<p class="cost-check">RocksDB spent \S+ cores flushing into L0 /)
  })

  it('--objective cost: per level the setting of least total, as priced', () => {
    const a = cfsCost
    expect(a.objective.name).toBe('cost')
    expect(a.objective.limits).toEqual({ cpuPerCoreHour: 0.05, storagePerGBMonth: 0.1 })
    expect(a.workload?.prices).toEqual({ cpuPerCoreHour: 0.05, storagePerGBMonth: 0.1 })
    expect(a.columnFamilies).toHaveLength(3)
    for (const l of levelsOf(a)) {
      if (!l.cost) continue
      const least = Math.min(...l.cost.settings.map((s) => s.dollarsPerMonth!))
      expect(l.cost.recommended.dollarsPerMonth).toBeCloseTo(least, 12)
      // The arithmetic behind the figures: the input a day at the setting's speed, the bytes at the storage price.
      expect(l.recommended.reason).toMatch(
        /^least total \S+\/month: compression \S+ \((\S+ GB\/day of input at \S+ s\/GB, \$0\.05\/core-hour|stored raw: \S+ GB\/day of input compressed by nothing)\) \+ storage \S+ \(\S+ GB at \$0\.1\/GB-month\)/,
      )
    }
    // At the rate given: the LOG's shape kept, its flushes scaled to 20 GB a day.
    const m = a.workload!.measured!
    expect(m.writeRate?.flushedPerDay).toBe(20e9)
    const flushed = m.levels.reduce((n, l) => n + l.flushBytes, 0)
    expect((flushed / m.spanSeconds) * 86400).toBeCloseTo(20e9, -3)
    expect(a.workload!.note.writeRate).toMatchObject({ used: true, flushedPerDay: 20e9 })
    expect(text(a.workload!.note)).toMatch(/priced at --write-rate 20\.0 GB\/day flushed \(the LOG measured \S+ \S+\/day\)/)
  })

  it('--objective cost on a LOG spanning under an hour, without --write-rate: the balanced rules decide, and a note says why', () => {
    const m = cfsShort.workload!.measured!
    expect(m.shortSpan).toBe(true)
    expect(m.spanSeconds).toBeLessThan(SHORT_SPAN_SECONDS)
    expect(cfsShort.notes.find((n) => n.code === 'cost-short-log-span')).toMatchObject({ spanSeconds: m.spanSeconds, shortSpanSeconds: SHORT_SPAN_SECONDS })
    expect(jsonNoteTexts(cfsShort).join('\n')).toMatch(
      /--objective cost: the info LOG spans \S+ s, under the 60\.0 min a measured write rate is priced from .*give --write-rate/,
    )
    const balancedCfs = advise([dbs.cfs, ...WHOLE])
    const picks = (a: Advice) => levelsOf(a).map((l) => [l.columnFamily, l.level, l.recommended.estimate.setting.label, l.recommended.reason])
    expect(picks(cfsShort)).toEqual(picks(balancedCfs))
    for (const l of levelsOf(cfsShort)) expect(l.recommended.reason).not.toMatch(/least total/)
  })

  it('a LOG without events (info_log_level=WARN): one line, the fixed rules, no prices', () => {
    const a = advise([dbs.quiet, ...WHOLE])
    expect(a.workload?.measured).toBeNull()
    expect(a.workload?.note).toMatchObject({ code: 'workload-no-events' })
    expect(text(a.workload!.note)).toMatch(/holds no event: info_log_level above INFO, or a LevelDB LOG: compression CPU is ranked by the fixed rules/)
    expect(jsonNoteTexts(a).filter((n) => /info LOG/.test(n))).toHaveLength(1)
    for (const l of levelsOf(a)) expect(l.cost ?? null).toBeNull()
  })
})

describe('the example database (RocksDB 7.8.3, its LOG committed)', () => {
  it("each column family's L0 flush CPU is its LOG lines' sum; L0 without compression: all of it building the table", () => {
    const db = join(ROOT, 'examples/db')
    const a = advise([db, ...WHOLE])
    const sum = sumEvents(db)
    const measured = a.workload!.measured!
    let none = 0
    for (const l of levelsOf(a).filter((x) => x.level === 0)) {
      const m = measured.levels.find((x) => x.columnFamily === l.columnFamily && x.level === 0)!
      expect(m.flushCpuSeconds * 1e6).toBeCloseTo(sum.flushCpuMicros.get(l.columnFamily)!, 6)
      expect(l.cost!.measuredFlushCores).toBeCloseTo(sum.flushCpuMicros.get(l.columnFamily)! / 1e6 / measured.spanSeconds, 12)
      if (l.today?.setting.type === 'none') {
        none++
        expect(l.cost!.modelFlushCores).toBe(0)
        expect(l.cost!.flushCheck).toMatch(
          /^RocksDB spent \S+ cores flushing into L0 \(\d+ flushes\); today's setting none compresses nothing: all of it is building the table from the memtable and writing it$/,
        )
      } else expect(l.cost!.modelFlushCores).toBeGreaterThan(0)
    }
    // the "events" column family stores L0 uncompressed (compression_per_level none first)
    expect(none).toBe(1)
  })
})

describe('a LOG RocksDB 6.17.3 wrote: no "Flush lasted" lines', () => {
  // generate-workload-v6.sh (npm rocksdb@5.2.1): flushes on L0 and a compaction into L1
  const db = join(ROOT, 'test/fixtures/workload/rocksdb-6.17.3')

  it('L0 priced on the model only, and says so; compactions still checked', () => {
    const a = advise([db, ...WHOLE])
    const measured = a.workload!.measured!
    expect(measured.flushCpuLines).toBe(0)
    const l0m = measured.levels.find((m) => m.level === 0)!
    expect(l0m.flushFiles).toBeGreaterThan(0)
    expect([l0m.flushCpuSeconds, l0m.flushCpuFlushes, l0m.flushCpuFileBytes]).toEqual([0, 0, 0])
    const l0 = levelsOf(a).find((l) => l.level === 0)!
    const c = l0.cost!
    expect(c.measuredFlushCores).toBeNull()
    expect(c.modelFlushCores).toBeNull()
    expect(c.flushCheck).toMatch(
      /^no flush into L0 logged its CPU \(.*RocksDB 6\.24 and later.*\): L0 is priced on sstkit's speed model only, unchecked against RocksDB$/,
    )
    // L0's settings are priced as ever: the model's CPU at the measured rate
    const inputGBps = c.inputPerDay / 86400 / 1e9
    for (const [i, x] of l0.matrix.entries()) expect(c.settings[i].cores).toBeCloseTo(speedsOf(x).compressSecPerGB * inputGBps + c.settings[i].dictCores, 9)
    const compacted = levelsOf(a).filter((l) => l.cost?.measuredCompactionCores != null)
    expect(compacted.length).toBeGreaterThan(0)
    for (const l of compacted) expect(l.cost!.modelCheck).toMatch(/^RocksDB spent \S+ cores compacting into L\d+; /)
    expect(renderAdviceText(a).replace(/\n\s+/g, ' ')).toContain(c.flushCheck!)
  })
})

describe('no usable LOG', () => {
  it('no LOG at all: one line saying so', () => {
    const w = measureWorkload(join(ROOT, 'test/fixtures/db-medium'))
    expect(w.measured).toBeNull()
    expect(w.note).toEqual({ code: 'workload-no-log', dir: join(ROOT, 'test/fixtures/db-medium') })
    expect(noteText(w.note)).toMatch(/^no info LOG in .*db-medium \(deleted, or written to db_log_dir\): compression CPU is ranked by the fixed rules$/)
  })

  it('a LOG that is not a file: one line, never a stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sstkit-cost-nolog-'))
    try {
      mkdirSync(join(dir, 'LOG'))
      expect(measureWorkload(dir).note).toEqual({ code: 'workload-no-log', dir })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('cost flags', () => {
  it('prices without --objective cost, or cost with explicit limits, are usage errors', () => {
    const db = join(ROOT, 'test/fixtures/db-medium')
    for (const [args, message] of [
      [['--cpu-price', '0.1'], /--cpu-price and --storage-price price --objective cost: give --objective cost too/],
      [['--objective', 'cost', '--max-bytes', '50%'], /--max-bytes cannot be used together with --objective/],
      [['--objective', 'cost', '--storage-price', 'cheap'], /--storage-price takes a price in dollars such as 0.04 \(got "cheap"\)/],
    ] as const) {
      const r = sstkit(['advise', db, ...args])
      expect(r.status).toBe(2)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(message)
    }
  })
})
