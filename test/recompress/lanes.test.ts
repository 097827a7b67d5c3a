/**
 * How recompress spreads its work over lanes: the partition of the matrix
 * (longest first, dictionary sampling counted once per group), and the stored
 * baseline measured by a task's own pass, equal to the baseline's own pass
 * whatever the source mode or sampling.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openTable, recompressFile, type RecompressOptions, type StoredBaseline } from '../../src/index.js'
import { planSamples } from '../../src/table/compression-dict.js'
import { collectSamples } from '../../src/recompress/dictionary.js'
import { type EntryPosition, recutAt, recutRecording, sourceBlocks } from '../../src/recompress/source.js'
import { CompressionType } from '../../src/codec/compression.js'
import { buildMatrix } from '../../src/recompress/config.js'
import { laneUnits, partition, passes, settingsPerPass } from '../../src/recompress/lanes.js'
import { fixturePath, ROOT, sstkit } from '../helpers.js'

const SAMPLE = join(ROOT, 'examples/sample.sst')
const opts = (over: Partial<RecompressOptions> = {}): RecompressOptions => ({
  matrix: { types: [CompressionType.ZSTD], levels: [3], dicts: ['none'], checksums: [false] },
  source: { blockSize: null, samplePercent: 100 },
  dict: { maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 0 },
  jobs: 1,
  ...over,
})
/** The baseline without its timing. */
const untimed = ({ decompressMs, decompressMBps, decompressNoisy, decompressInterval, readWallMs, ...rest }: StoredBaseline) => rest

describe('passes of a matrix larger than the lanes hold', () => {
  const matrix = (levels: number[], dicts: ('none' | 'raw' | 'train' | 'finalize')[], checksums = [false]) =>
    buildMatrix({ types: [CompressionType.ZSTD], levels, dicts, checksums }).configs

  it('holds fewer settings per pass on files of more blocks, and at least one', () => {
    expect(settingsPerPass(4_000, 1)).toBeGreaterThanOrEqual(14)
    expect(settingsPerPass(88_000, 1)).toBeLessThan(settingsPerPass(4_000, 1))
    expect(settingsPerPass(88_000, 3)).toBeLessThan(settingsPerPass(88_000, 1))
    expect(settingsPerPass(1e9, 3)).toBe(1)
  })

  it('splits the default matrix by dictionary kind, each setting once, in matrix order inside each, costliest first', () => {
    const configs = matrix([1, 3, 6, 9, 12, 15, 19], ['none', 'raw', 'train', 'finalize'], [false, true])
    for (const perPass of [1, 5, 14, 100]) {
      const ps = passes(configs, perPass)
      expect(ps.every((p) => p.length > 0 && p.length <= perPass)).toBe(true)
      expect(
        ps
          .flat()
          .map((c) => c.id)
          .sort((a, b) => a - b),
      ).toEqual(configs.map((c) => c.id))
      for (const p of ps) {
        expect(new Set(p.map((c) => c.dict)).size).toBe(1)
        expect(p.map((c) => c.id)).toEqual([...p.map((c) => c.id)].sort((a, b) => a - b))
      }
      expect(ps.length).toBe(4 * Math.ceil(14 / perPass))
    }
    // 14 a pass: one pass per dictionary kind; none first (zstd 15 and 19 without a dictionary are
    // its costliest settings), then those with one (equal costs: matrix order).
    expect(passes(configs, 14).map((p) => p[0].dict)).toEqual(['none', 'raw', 'train', 'finalize'])
  })

  it('keeps a zstd setting with the checksum in the pass of its twin without it wherever the pass size allows', () => {
    const configs = matrix([1, 3, 6, 9, 12, 15, 19], ['none', 'raw', 'train', 'finalize'], [false, true])
    const twinsApart = (ps: ReturnType<typeof passes>) => {
      const passOf = new Map(ps.flatMap((p, k) => p.map((c) => [`${c.level}/${c.dict}/${c.checksum}`, k] as const)))
      return configs.filter((c) => c.checksum && passOf.get(`${c.level}/${c.dict}/true`) !== passOf.get(`${c.level}/${c.dict}/false`)).length
    }
    // Even pass sizes hold whole pairs; 5 a pass (14 settings of a kind in 5, 5, 4) splits one pair a kind; 1 a pass all.
    expect(twinsApart(passes(configs, 14))).toBe(0)
    expect(twinsApart(passes(configs, 4))).toBe(0)
    expect(twinsApart(passes(configs, 6))).toBe(0)
    expect(twinsApart(passes(configs, 5))).toBe(4)
    expect(twinsApart(passes(configs, 1))).toBe(28)
    // A pass ends one short so that a pair stays whole where the next pass has room: 7 a pass, 14 a kind in 6 and 8 is over 7.
    for (const perPass of [3, 7]) expect(passes(configs, perPass).every((p) => p.length <= perPass)).toBe(true)
  })

  it("weighs zstd's high levels as measured: a dictionary makes them faster, and zstd 19 costs about twice zstd 15 with one", () => {
    // Compression MB/s on an 8 MB LZ4 file: zstd 19 3.2 without a dictionary and 5.3 finalized, zstd 15 6.1 and 13.
    const configs = matrix([1, 15, 19], ['none', 'finalize'])
    const order = passes(configs, 1).map((p) => `${p[0].level}/${p[0].dict}`)
    expect(order).toEqual(['19/none', '19/finalize', '15/none', '15/finalize', '1/finalize', '1/none'])
  })
})

describe('partition of the matrix over lanes', () => {
  const matrix = (levels: number[], dicts: ('none' | 'raw' | 'train' | 'finalize')[]) =>
    buildMatrix({ types: [CompressionType.ZSTD], levels, dicts, checksums: [false] }).configs
  const label = (g: ReturnType<typeof matrix>) => g.map((c) => `${c.level}/${c.dict}`)

  it('weighs dictionaries and sampling, and hands out the costliest group first', () => {
    // zstd 1, 2, 3 cost 1, 1.1, 1.2, a dictionary 0.5 more, and a group sampling the file 0.25 once: all
    // finalize on one lane would cost 5.05 against 3.3; mixed, both lanes sample and cost 4.35 and 4.25.
    const groups = partition(matrix([1, 2, 3], ['none', 'finalize']), 2)
    expect(groups.map(label)).toEqual([
      ['1/none', '1/finalize', '2/finalize'],
      ['2/none', '3/none', '3/finalize'],
    ])
  })

  it('samples on one lane only when balance allows', () => {
    // Two cheap dictionary configurations and two costly ones without: the dictionaries stay together.
    const configs = [...matrix([1], ['none', 'finalize']), ...matrix([9], ['none'])].map((c, id) => ({ ...c, id }))
    const groups = partition(configs, 2)
    expect(groups.map(label)).toEqual([['9/none'], ['1/none', '1/finalize']])
    const withRaw = partition(
      [...matrix([1], ['raw', 'finalize']), ...matrix([9], ['none'])].map((c, id) => ({ ...c, id })),
      2,
    )
    expect(withRaw.map(label)).toEqual([['9/none'], ['1/raw', '1/finalize']])
  })

  it('puts every configuration in exactly one group, in matrix order inside each, never more groups than asked', () => {
    const configs = matrix([1, 3, 9, 19], ['none', 'raw', 'train', 'finalize'])
    for (const n of [1, 2, 3, 5]) {
      const groups = partition(configs, n)
      expect(groups.length).toBeLessThanOrEqual(n)
      expect(
        groups
          .flat()
          .map((c) => c.id)
          .sort((a, b) => a - b),
      ).toEqual(configs.map((c) => c.id))
      for (const g of groups) expect(g.map((c) => c.id)).toEqual([...g.map((c) => c.id)].sort((a, b) => a - b))
    }
  })

  it('puts the lane that reads and samples the file for all last (this thread), its costs counted', () => {
    // Reading 1.3 and sampling 0.25 on the reading lane: zstd 2 and 3 finalized there (4.85) against the
    // other four (4.8). Greedy alone gave 5.3 against 4.35.
    const groups = partition(matrix([1, 2, 3], ['none', 'finalize']), 2, 1.3)
    expect(groups.map(label)).toEqual([
      ['1/none', '1/finalize', '2/none', '3/none'],
      ['2/finalize', '3/finalize'],
    ])
    // With nothing else to weigh, the reading lane takes the cheaper setting.
    expect(partition(matrix([1, 19], ['none']), 2, 1.3).map(label)).toEqual([['19/none'], ['1/none']])
  })

  it('keeps checksum twins on one lane, and counts the one with the checksum at its hash only', () => {
    const withChecksums = buildMatrix({ types: [CompressionType.ZSTD], levels: [1, 3], dicts: ['none'], checksums: [false, true] }).configs
    const label4 = (g: typeof withChecksums) => g.map((c) => `${c.level}/${c.checksum ? 'checksum' : 'plain'}`)
    // Two pairs on two lanes: a pair each, not zstd 1 and 3 without the checksum on one lane and with it on the other.
    expect(partition(withChecksums, 2).map(label4)).toEqual([
      ['3/plain', '3/checksum'],
      ['1/plain', '1/checksum'],
    ])
    // One pair: one lane (no worker for a setting whose twin is made from it), with or without a reading cost.
    const pair = buildMatrix({ types: [CompressionType.ZSTD], levels: [3], dicts: ['none'], checksums: [false, true] }).configs
    expect(laneUnits(pair)).toBe(1)
    expect(laneUnits(withChecksums)).toBe(2)
    expect(partition(pair, 1, 1.3).map(label4)).toEqual([['3/plain', '3/checksum']])
    // Other codecs take no checksum: LZ4 beside a zstd pair is a unit of its own.
    const mixed = buildMatrix({ types: [CompressionType.LZ4, CompressionType.ZSTD], levels: [null], dicts: ['none'], checksums: [false, true] }).configs
    expect(mixed.length).toBe(3)
    expect(laneUnits(mixed)).toBe(2)
  })

  it('balances by cost: zstd 19 alone against the cheap levels', () => {
    const groups = partition(matrix([1, 3, 19], ['none']), 2)
    expect(groups.map(label)).toEqual([['19/none'], ['1/none', '3/none']])
  })

  it("weighs the other codecs as measured: the drop-in's seven codecs leave bzip2 alone on one lane", () => {
    // bzip2 34 units against the other six and the re-cut's reading (none 0.2, snappy and lz4 0.5, lz4hc 2.8, zlib 4.3, zstd 1.2, 1.3).
    const all = buildMatrix({ types: [0, 1, 2, 3, 4, 5, 7], levels: [null], dicts: ['none'], checksums: [false] }).configs
    const groups = partition(all, 2, 1.3)
    expect(groups.map((g) => g.map((c) => c.type))).toEqual([[CompressionType.BZip2], [0, 1, 2, 4, 5, 7]])
    // lz4hc 1 and 9 cost 1.9 and 2.8 (not 2 + level: 3 and 11), zlib 1 and 9 3.0 and 5.1: zlib 9 with lz4hc 1 (7.0) against 5.8.
    const mixed = buildMatrix({ types: [CompressionType.LZ4HC, CompressionType.Zlib], levels: [1, 9], dicts: ['none'], checksums: [false] }).configs
    expect(partition(mixed, 2).map((g) => g.map((c) => `${c.type}/${c.level}`))).toEqual([
      ['5/1', '2/9'],
      ['5/9', '2/1'],
    ])
  })
})

describe('the stored baseline measured in a task', () => {
  it('is the same whether a task times the decoding (own blocks, a full re-cut) or its own pass does (a sampled re-cut)', async () => {
    const own = await recompressFile(SAMPLE, opts())
    const recut = await recompressFile(SAMPLE, opts({ source: { blockSize: 4096, samplePercent: 100 } }))
    expect(own.stored.uncompressedBytes).toBe(169856)
    expect(untimed(recut.stored)).toEqual(untimed(own.stored))
    const ownHalf = await recompressFile(SAMPLE, opts({ source: { blockSize: null, samplePercent: 50 } }))
    const recutHalf = await recompressFile(SAMPLE, opts({ source: { blockSize: 4096, samplePercent: 50 } }))
    expect(untimed(recutHalf.stored)).toEqual(untimed(ownHalf.stored))
    expect(ownHalf.stored.blocks).toBeLessThan(own.stored.blocks)
    expect(ownHalf.stored.uncompressedBytes).toBeLessThan(own.stored.uncompressedBytes)
  })

  it("is the same for an ingested file re-cut with its global seqno applied (the baseline's own pass)", async () => {
    const file = fixturePath('ingested-global-seqno')
    const own = await recompressFile(file, opts())
    const applied = await recompressFile(file, opts({ source: { blockSize: 4096, samplePercent: 100, applyGlobalSeqno: true } }))
    expect(own.stored.uncompressedBytes).toBeGreaterThan(0)
    expect(untimed(applied.stored)).toEqual(untimed(own.stored))
  })

  it('times the decoding it measured', async () => {
    const r = await recompressFile(SAMPLE, opts({ source: { blockSize: 4096, samplePercent: 100 } }))
    expect(r.stored.decompressMs).toBeGreaterThan(0)
    expect(r.stored.decompressMBps).toBeCloseTo(r.stored.uncompressedBytes / 1e6 / (r.stored.decompressMs / 1000), 6)
  })
})

describe('recompress over worker lanes (built CLI)', () => {
  it('gives the same sizes, dictionaries and stored baseline with 1, 2 or 3 jobs, re-cut and with every dictionary kind', () => {
    const args = ['recompress', 'examples/sample.sst', '--levels', '1,3', '--dict', 'none,raw,train,finalize', '--block-size', '4096', '--json']
    const run = (jobs: string) => {
      const r = sstkit([...args, '--jobs', jobs])
      expect(r.status).toBe(0)
      return JSON.parse(r.stdout) as { stored: StoredBaseline; results: Record<string, unknown>[] }
    }
    const outcome = (j: ReturnType<typeof run>) => ({
      stored: untimed(j.stored),
      results: j.results.map((r) => [r.level, r.dict, r.checksum, r.dictId, r.dictBytes, r.dataBytes, r.fileBytes, r.blocks, r.blocksCompressed]),
    })
    const one = outcome(run('1'))
    expect(one.results.length).toBe(2 * 4 * 2)
    expect(one.results.filter((r) => r[1] === 'finalize').every((r) => (r[3] as number) > 0)).toBe(true)
    expect(outcome(run('2'))).toEqual(one)
    expect(outcome(run('3'))).toEqual(one)
  })
})

describe('dictionary samples of a re-cut file', () => {
  it('are the blocks a whole re-cut makes, though the second pass re-cuts only the chosen ones', () => {
    const t = openTable(SAMPLE)
    try {
      for (const blockSize of [1024, 4096, 16384]) {
        const source = { blockSize, samplePercent: 100 }
        // Every re-cut block, cut from the start (the reference), and RocksDB's plan over them.
        const blocks = [...sourceBlocks(t, source, [])].map((b) => b.data.slice())
        // A budget of a few blocks (scattered by the prime stride) and one of the whole file (every block, consecutive).
        for (const budget of [3 * blockSize + 100, 1 << 22]) {
          const plan = planSamples(
            blocks.map((b) => b.length),
            budget,
          )
          const expected = Buffer.concat(plan.map((p) => blocks[p.block].subarray(0, p.take)))
          const got = collectSamples(t, source, { maxDictBytes: 4096, trainBytes: budget, maxDictBufferBytes: 0 }, budget)
          expect(got.bufferedBlocks).toBe(blocks.length)
          expect(got.lengths).toEqual(plan.map((p) => p.take))
          expect(Buffer.from(got.bytes).equals(expected)).toBe(true)
        }
      }
    } finally {
      t.close()
    }
  })

  it('say where each re-cut block starts, and recutAt cuts any of them again to the same bytes', () => {
    const t = openTable(SAMPLE)
    try {
      const source = { blockSize: 4096, samplePercent: 100 }
      const starts: EntryPosition[] = []
      const blocks = [...recutRecording(t, source, [], starts)].map((b) => b.data.slice())
      expect(starts.length).toBe(blocks.length)
      expect(starts[0]).toEqual({ block: 0, entry: 0 })
      const chosen = [0, 1, 2, 7, blocks.length - 1]
      const again = [
        ...recutAt(
          t,
          4096,
          chosen.map((i) => starts[i]),
          [],
        ),
      ]
      expect(again.map((b) => Buffer.from(b).toString('hex'))).toEqual(chosen.map((i) => Buffer.from(blocks[i]).toString('hex')))
    } finally {
      t.close()
    }
  })
})
