import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { openTable, recompressFile, type RecompressOptions } from '../../src/index.js'
import { CompressionType, compressionTypeName } from '../../src/codec/compression.js'
import { BlockCompressor } from '../../src/codec/block-compressor.js'
import { handedBatches, lendCores, spareCores } from '../../src/codec/kernel.js'
import { ZSTD_DICT_MAGIC } from '../../src/codec/zdict.js'
import { collectSamples, trainedDictionary } from '../../src/recompress/dictionary.js'
import { isNoisyTiming, MAX_TIMING_SPREAD, MIN_TIMED_MS } from '../../src/recompress/engine.js'
import { storedTally } from '../../src/recompress/stored.js'
import { fixturePath, ROOT, sstkit } from '../helpers.js'

const SAMPLE = join(ROOT, 'examples/sample.sst')
const base = (over: Partial<RecompressOptions> = {}): RecompressOptions => ({
  matrix: { types: [CompressionType.ZSTD], levels: [3], dicts: ['none'], checksums: [false] },
  source: { blockSize: null, samplePercent: 100 },
  dict: { maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 0 },
  jobs: 1,
  ...over,
})

describe('recompress engine', () => {
  it('always reports the file as stored, matching its layout', async () => {
    const r = await recompressFile(SAMPLE, base())
    expect(r.stored).toMatchObject({ compression: 'ZSTD', blocks: 43, blocksCompressed: 43, dataBytes: 55060, fileBytes: 57785 })
    expect(r.stored.uncompressedBytes).toBe(169856)
  })

  it('tallies the stored blocks in the pass that reads them: what reading every trailer counts', async () => {
    // Files with blocks stored raw beside compressed ones; own boundaries, a re-cut, a sample.
    for (const name of ['index-partitioned', 'fv1-lz4', 'binary-keys'])
      for (const source of [
        { blockSize: null, samplePercent: 100 },
        { blockSize: 4096, samplePercent: 100 },
        { blockSize: null, samplePercent: 30 },
      ]) {
        const file = fixturePath(name)
        const t = openTable(file)
        const expected = storedTally(t, source.samplePercent)
        t.close()
        if (source.samplePercent === 100) expect(expected.types.length, name).toBe(2)
        const r = await recompressFile(file, base({ source }))
        const what = `${name} ${JSON.stringify(source)}`
        expect(r.stored.blocks, what).toBe(expected.blocks)
        expect(r.stored.blocksCompressed, what).toBe(expected.compressed)
        expect(r.stored.dataBytes, what).toBe(expected.storedBytes)
        expect(r.stored.compression, what).toBe(compressionTypeName(expected.types.find((x) => x !== 0) ?? 0))
      }
  })

  it('counts the point entries it fed, as the file records them, the same re-cut', async () => {
    const t = openTable(SAMPLE)
    const known = t.properties.known
    const expected = {
      entries: Number(known.get('rocksdb.num.entries')),
      rawKeyBytes: Number(known.get('rocksdb.raw.key.size')),
      rawValueBytes: Number(known.get('rocksdb.raw.value.size')),
    }
    t.close()
    const own = await recompressFile(SAMPLE, base())
    const recut = await recompressFile(SAMPLE, base({ source: { blockSize: 16384, samplePercent: 100 } }))
    expect(own.entries).toMatchObject(expected)
    expect(recut.entries).toEqual(own.entries)
  })

  it("keeps the file's block boundaries by default and counts every block", async () => {
    const r = await recompressFile(SAMPLE, base())
    expect(r.results[0]).toMatchObject({ blocks: 43, blocksCompressed: 43, blocksRejected: 0, uncompressedBytes: 169856 })
    expect(r.results[0].fileBytes).toBe(r.results[0].dataBytes + r.results[0].indexBytes + r.results[0].filterBytes + r.results[0].metaBytes)
  })

  it('stores a block raw and counts it rejected when it misses the acceptance rule', async () => {
    const r = await recompressFile(SAMPLE, base({ maxCompressedBytesPerKb: 200 }))
    // 200/1024 is below zstd's ratio on this data: every block is stored raw.
    expect(r.results[0]).toMatchObject({ blocksCompressed: 0, blocksRejected: 43 })
    expect(r.results[0].dataBytes).toBe(169856 + 43 * 5)
  })

  it('builds dictionaries of the right kind: raw has no magic, train and finalize carry the zstd magic and an ID', async () => {
    const r = await recompressFile(
      SAMPLE,
      base({ matrix: { types: [CompressionType.ZSTD], levels: [3], dicts: ['raw', 'train', 'finalize'], checksums: [false] } }),
    )
    const by = Object.fromEntries(r.results.map((x) => [x.dict, x]))
    expect(by.raw.dictId).toBe(0)
    expect(by.raw.dictBytes).toBe(4096 + 5)
    expect(by.train.dictId).toBeGreaterThan(32767)
    expect(by.finalize.dictId).toBeGreaterThan(32767)
    for (const x of r.results) expect(x.blocksCompressed).toBe(43) // every block round-tripped
  })

  it('samples dictionaries exactly like RocksDB: middle block first, prime stride, truncated at the budget', () => {
    const t = openTable(SAMPLE)
    const s = collectSamples(t, { blockSize: null, samplePercent: 100 }, { maxDictBytes: 4096, trainBytes: 10000, maxDictBufferBytes: 0 }, 10000)
    const blocks = [...t.dataBlocks()].map((b) => t.readBlock(b.handle, 'data block', true).slice())
    const n = blocks.length
    const step = Number(545055921143n % BigInt(n))
    let idx = Math.floor(n / 2)
    const expected: Uint8Array[] = []
    let total = 0
    while (total < 10000) {
      const take = Math.min(10000 - total, blocks[idx].length)
      expected.push(blocks[idx].subarray(0, take))
      total += take
      idx = (idx + step) % n
    }
    expect(s.lengths).toEqual(expected.map((e) => e.length))
    expect(Buffer.from(s.bytes).equals(Buffer.concat(expected))).toBe(true)
    const big = collectSamples(t, { blockSize: null, samplePercent: 100 }, { maxDictBytes: 4096, trainBytes: 200000, maxDictBufferBytes: 0 }, 200000)
    const dict = trainedDictionary(big, 4096)
    expect(dict.length).toBeGreaterThan(0)
    expect(new DataView(dict.buffer, dict.byteOffset).getUint32(0, true)).toBe(ZSTD_DICT_MAGIC)
    t.close()
  })

  it('buffers only up to max_dict_buffer_bytes before sampling', () => {
    const t = openTable(SAMPLE)
    const s = collectSamples(t, { blockSize: null, samplePercent: 100 }, { maxDictBytes: 4096, trainBytes: 1 << 20, maxDictBufferBytes: 20000 }, 1 << 20)
    // blocks are ~4 KiB: the limit is passed after the 5th or 6th block
    expect(s.bufferedBlocks).toBeGreaterThanOrEqual(5)
    expect(s.bufferedBlocks).toBeLessThanOrEqual(6)
    t.close()
  })

  it('evaluates every codec with a round trip, including dictionaries for lz4 and zlib', async () => {
    const r = await recompressFile(SAMPLE, base({ matrix: { types: [0, 1, 2, 3, 4, 5, 7], levels: [null], dicts: ['none', 'raw'], checksums: [false] } }))
    for (const x of r.results) {
      if (x.type === 'none') expect(x.blocksCompressed).toBe(0)
      else expect(x.blocksCompressed, `${x.type} ${x.dict}`).toBe(43)
    }
    expect(
      r.results
        .filter((x) => x.dict === 'raw')
        .map((x) => x.type)
        .sort(),
    ).toEqual(['lz4', 'lz4hc', 'zlib', 'zstd'])
  })

  it('evaluates an external dictionary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sstkit-dict-'))
    const file = join(dir, 'ext.dict')
    writeFileSync(file, Buffer.from('{"id":0,"name":"margaret dijkstra","email":"@example.com","city":"lima"}'.repeat(40)))
    const r = await recompressFile(SAMPLE, base({ dictFile: file })).finally(() => rmSync(dir, { recursive: true, force: true }))
    const ext = r.results.find((x) => x.dict === 'file')!
    expect(ext.dictBytes).toBeGreaterThan(0)
    expect(ext.dataBytes).toBeLessThan(r.results.find((x) => x.dict === 'none')!.dataBytes)
  })

  it('samples a deterministic, evenly spread share of blocks and says so', async () => {
    const r = await recompressFile(SAMPLE, base({ source: { blockSize: null, samplePercent: 25 } }))
    expect(r.results[0].blocks).toBe(Math.floor((43 * 25) / 100))
    expect(r.results[0].fileBytes).toBeNull()
    expect(r.notes.join(' ')).toMatch(/sampled 25%/)
    expect(r.stored.blocks).toBe(r.results[0].blocks)
  })

  it('marks the smallest setting and a Pareto front that rests on sound timings only', async () => {
    const r = await recompressFile(SAMPLE, base({ matrix: { types: [CompressionType.ZSTD], levels: [1, 19], dicts: ['none'], checksums: [false] } }))
    const l19 = r.results.find((x) => x.level === 19)!
    const l1 = r.results.find((x) => x.level === 1)!
    expect(l19.marks).toContain('smallest')
    // Nothing is smaller than zstd 19: it is on the front exactly when its own timing is sound.
    expect(l19.marks.includes('pareto')).toBe(!l19.compressNoisy)
    // zstd 1 takes about a millisecond here: noise, so no claim rests on it.
    expect(l1.compressMs).toBeLessThan(MIN_TIMED_MS)
    expect(l1.compressNoisy).toBe(true)
    expect(l1.marks).not.toContain('pareto')
  })

  it('calls a timing noise when its runs total under MIN_TIMED_MS or spread over MAX_TIMING_SPREAD', () => {
    expect(isNoisyTiming(MIN_TIMED_MS - 1, 0, 1)).toBe(true)
    expect(isNoisyTiming(MIN_TIMED_MS, 0, 1)).toBe(false)
    expect(isNoisyTiming(20, 0.05, 3)).toBe(false) // 60 ms in all, 5% spread
    expect(isNoisyTiming(200, MAX_TIMING_SPREAD + 0.01, 3)).toBe(true)
    expect(isNoisyTiming(200, MAX_TIMING_SPREAD, 3)).toBe(false)
  })

  it('lends the spare cores to one lane for the run, and only with --jobs above 1', async () => {
    const seen = async (over: Partial<RecompressOptions>) => {
      const lent = new Set<number>()
      await recompressFile(SAMPLE, base({ ...over, onProgress: () => lent.add(lendCores(0)) }))
      return [...lent]
    }
    expect(await seen({ jobs: 2 })).toEqual([1])
    expect(await seen({ jobs: 3 })).toEqual([2])
    expect(await seen({ jobs: 1 })).toEqual([0])
    expect(await seen({ jobs: 2, splitCompression: false })).toEqual([0])
    expect(lendCores(0)).toBe(0)
  })

  it('one setting with a core to spare: its batches go to a helper thread while this one goes on, the same sizes as on one core', async () => {
    // ~2 MB of blocks: batches handed over one after the other, each collected as the next goes out.
    const file = join(ROOT, 'test/fixtures/db-medium/000019.sst')
    for (const checksums of [[false], [false, true]]) {
      const matrix = { types: [CompressionType.ZSTD], levels: [3], dicts: ['none' as const], checksums }
      const handed = handedBatches()
      const two = await recompressFile(file, base({ matrix, jobs: 2 }))
      const batches = handedBatches() - handed
      const one = await recompressFile(file, base({ matrix, jobs: 1 }))
      expect(handedBatches() - handed).toBe(batches)
      // Each 128 KiB batch (a few KiB more with its last block), once the one before is collected: the core is spare again then.
      expect(batches, `checksums ${checksums}`).toBeGreaterThanOrEqual(Math.floor(two.stored.uncompressedBytes / (144 << 10)))
      // Blocks written out of order would change the index (its separators and handles).
      const sizes = (r: typeof one) =>
        r.results.map((x) => [x.checksum, x.dataBytes, x.indexBytes, x.fileBytes, x.blocks, x.blocksCompressed, x.blocksRejected, x.roundTripBlocks])
      expect(sizes(two)).toEqual(sizes(one))
      for (const r of two.results) expect(r.compressMs).toBeGreaterThan(0)
    }
    expect(lendCores(0)).toBe(0)
    expect(spareCores()).toBe(0)
  })

  it('a zstd setting with the checksum round-trips through the same setting without it: its frames decoded once, the content hashed', async () => {
    // ~2 MB of blocks, every one round-tripped: batches of 128 KiB, the last written at the end.
    const file = join(ROOT, 'test/fixtures/db-medium/000019.sst')
    const matrix = { types: [CompressionType.ZSTD], levels: [3], dicts: ['none' as const, 'raw' as const], checksums: [false, true] }
    const roundTrip = vi.spyOn(BlockCompressor.prototype, 'roundTripMany')
    const hash = vi.spyOn(BlockCompressor.prototype, 'contentChecksumsMany')
    const blocksBy = (spy: typeof roundTrip | typeof hash, checksum: boolean) =>
      spy.mock.calls.reduce((n, call, i) => n + ((spy.mock.contexts[i] as BlockCompressor).zstdChecksum === checksum ? call.at(-1)!.length : 0), 0)
    let r: Awaited<ReturnType<typeof recompressFile>>
    const counted = { decoded: [0, 0], hashed: 0 }
    try {
      r = await recompressFile(file, base({ matrix }))
      counted.decoded = [blocksBy(roundTrip, false), blocksBy(roundTrip, true)]
      counted.hashed = blocksBy(hash, true)
    } finally {
      roundTrip.mockRestore()
      hash.mockRestore()
    }
    const rows = (checksum: boolean) => r.results.filter((x) => x.checksum === checksum)
    const roundTripped = rows(false).reduce((n, x) => n + x.roundTripBlocks, 0)
    expect(roundTripped).toBeGreaterThan(500)
    // The plain rows decode every block; the checksum rows hash them, but for the last block (written at the end, on its own).
    expect(counted.decoded).toEqual([roundTripped, 2])
    expect(counted.hashed).toBe(roundTripped - 2)
    for (const on of rows(true)) {
      const off = rows(false).find((x) => x.dict === on.dict)!
      expect(on.roundTripBlocks).toBe(off.roundTripBlocks)
      expect(on.decompressMs).toBeGreaterThan(off.decompressMs)
      expect(on.dataBytes).toBe(off.dataBytes + 4 * off.blocksCompressed)
    }
  })

  it('reads a format_version 7 file with a dictionary and a zstd checksum', async () => {
    const r = await recompressFile(fixturePath('v11-fv7-zstd-dict-checksum'), base())
    expect(r.stored.dictBytes).toBeGreaterThan(0)
    expect(r.results[0].blocksCompressed).toBeGreaterThan(0)
  })
})

describe('recompress CLI', () => {
  it('gives the same sizes whatever --jobs (JSON contract)', () => {
    const args = ['recompress', 'examples/sample.sst', '--levels', '1,3,9', '--json']
    const one = JSON.parse(sstkit([...args, '--jobs', '1']).stdout)
    const two = JSON.parse(sstkit([...args, '--jobs', '2']).stdout)
    const sizes = (j: { results: Record<string, unknown>[] }) =>
      j.results.map((r) => [r.type, r.level, r.dict, r.checksum, r.dataBytes, r.dictBytes, r.fileBytes, r.blocksCompressed])
    expect(sizes(one)).toEqual(sizes(two))
    expect(one.results.length).toBe(3 * 4 * 2)
    for (const k of [
      'type',
      'level',
      'dict',
      'checksum',
      'blockSize',
      'dataBytes',
      'dictBytes',
      'fileBytes',
      'uncompressedBytes',
      'ratio',
      'blocks',
      'blocksCompressed',
      'blocksRejected',
      'compressMs',
      'decompressMs',
      'dictMs',
    ])
      expect(one.results[0]).toHaveProperty(k)
    expect(one.stored.fileBytes).toBe(57785)
  })

  it('prints a table with the stored row first, and csv / markdown', () => {
    const t = sstkit(['recompress', 'examples/sample.sst', '--levels', '3', '--dict', 'none', '--checksum', 'off'])
    expect(t.status, t.stderr).toBe(0)
    const lines = t.stdout.split('\n')
    expect(lines.findIndex((l) => l.includes('stored (ZSTD)'))).toBeLessThan(lines.findIndex((l) => /│ zstd /.test(l)))
    const csv = sstkit(['recompress', 'examples/sample.sst', '--levels', '3', '--dict', 'none', '--checksum', 'off', '--format', 'csv'])
    expect(csv.stdout.split('\n')[0]).toMatch(/^Type,Level,Dict,Checksum,Data bytes/)
    const md = sstkit(['recompress', 'examples/sample.sst', '--types', 'snappy,lz4', '--format', 'markdown'])
    expect(md.stdout).toMatch(/^\| snappy \| \d+\.\d KiB \| \+\d+\.\d% \|/m)
    const wide = sstkit(['recompress', 'examples/sample.sst', '--types', 'snappy,lz4', '--format', 'markdown', '--wide'])
    expect(wide.stdout).toMatch(/^\| snappy \| default \|/m)
  })

  it('is a usage error (exit 2) for an impossible combination', () => {
    const r = sstkit(['recompress', 'examples/sample.sst', '--types', 'snappy', '--dict', 'train'])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/nothing to evaluate/)
    expect(sstkit(['recompress', 'examples/sample.sst', '--levels', 'fast']).status).toBe(2)
    expect(sstkit(['recompress', 'examples/sample.sst', '--sample', '10', '--block-size', '16384']).status).toBe(2)
  })
})

describe('recompress on damaged input', () => {
  it('reports a corrupt block with its offset, goes on with the rest, says how much was skipped (exit 1)', () => {
    const r = sstkit(['recompress', 'test/fixtures/bad/data-flip-none.sst', '--levels', '3', '--dict', 'none', '--checksum', 'off', '--json'])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/skipped data block at offset \d+: data block checksum mismatch/)
    const j = JSON.parse(r.stdout)
    expect(j.skipped.length).toBe(1)
    expect(j.notes.join(' ')).toMatch(/1 data block\(s\) could not be read and were skipped/)
    expect(j.results[0].blocks).toBe(8) // 9 blocks, 1 skipped
    // The stored row still counts every block: the pass met an unreadable one, so each trailer was read.
    expect(j.stored).toMatchObject({ blocks: 9, blocksCompressed: 0 })
  })
  it('a re-cut stopped at an unreadable first block: its rows evaluated nothing and are neither marked nor chosen (exit 1)', () => {
    const r = sstkit([
      'recompress',
      'test/fixtures/bad/data-flip-zstd.sst',
      '--types',
      'zstd,snappy',
      '--levels',
      '1',
      '--dict',
      'none',
      '--checksum',
      'off',
      '--block-size',
      '8192',
      '--json',
    ])
    expect(r.status).toBe(1)
    const j = JSON.parse(r.stdout)
    expect(j.skipped[0].message).toMatch(/checksum mismatch/)
    expect(j.results.map((x: { blocks: number; marks: string[] }) => [x.blocks, x.marks])).toEqual([
      [0, []],
      [0, []],
    ])
    expect(j.verdict).toBeNull()
  })
  it('refuses a file that is not an SST (exit 2, one line)', () => {
    const r = sstkit(['recompress', 'test/fixtures/bad/bad-magic.sst'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split('\n').length).toBe(1)
    expect(r.stderr).toMatch(/bad magic number/)
  })
})
