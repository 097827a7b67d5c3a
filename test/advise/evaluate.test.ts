import { describe, expect, it } from 'vitest'
import { evaluateFile, keepDictionaries, unpackDictionaries } from '../../src/advise/evaluate.js'
import { spec } from '../../src/decide/settings.js'
import { recompressFile } from '../../src/recompress/engine.js'
import { parseTypes } from '../../src/recompress/config.js'
import { ROOT, fixturePath } from '../helpers.js'
import { wholeFileTask } from './options.js'
import { join } from 'node:path'

const DICT = { maxDictBytes: 16384, trainBytes: 1638400, maxDictBufferBytes: 64 << 20 }

/** Real RocksDB files of different codecs and block layouts. */
const FILES = [join(ROOT, 'examples/sample.sst'), fixturePath('fv5-snappy'), fixturePath('fv5-lz4'), fixturePath('fv5-none')]

describe('advise evaluates a block exactly as the exhaustive recompress does', () => {
  for (const file of FILES) {
    it(`every block of ${file.split('/').pop()}: data + dictionary bytes equal recompress's`, async () => {
      const settings = [
        spec('none', null, 'none', false),
        spec('snappy', null, 'none', false),
        spec('lz4', null, 'none', false),
        spec('zstd', 3, 'none', false),
        spec('zstd', 3, 'none', true),
        spec('zstd', 6, 'finalize', false),
        spec('zstd', 3, 'raw', false),
        spec('zstd', 3, 'train', false),
      ]
      const r = evaluateFile(wholeFileTask(file, settings, { dict: DICT }))
      const exhaustive = await recompressFile(file, {
        matrix: { types: parseTypes('none,snappy,lz4,zstd'), levels: [null, 3, 6], dicts: ['none', 'finalize', 'raw', 'train'], checksums: [false, true] },
        source: { blockSize: null, samplePercent: 100 },
        dict: DICT,
        jobs: 1,
      })
      for (const [id, s] of settings.entries()) {
        const row = exhaustive.results.find(
          (x) => x.type === s.type && (x.level ?? null) === (s.type === 'zstd' ? s.level : null) && x.dict === s.dict && x.checksum === s.checksum,
        )
        expect(row, s.label).toBeDefined()
        expect(r.sums[id].n).toBe(row!.blocks)
        expect(r.sums[id].sumC + (r.dictBytes[id] ?? 0), s.label).toBe(row!.dataBytes + row!.dictBytes)
        expect(r.sums[id].sumS).toBe(exhaustive.stored.dataBytes)
        expect(r.sums[id].rejected).toBe(row!.blocksRejected)
      }
    })
  }
})

describe("a file's dictionaries kept between rounds", () => {
  it("are kept shared (a finalized dictionary as its tables and the raw one's start), come back byte for byte, and evaluate the same", () => {
    const file = join(ROOT, 'examples/sample.sst')
    const settings = [
      spec('zstd', 1, 'finalize', false),
      spec('zstd', 3, 'finalize', false),
      spec('zstd', 12, 'finalize', false),
      spec('zstd', 3, 'raw', false),
      spec('zstd', 3, 'train', false),
    ]
    const built = evaluateFile(wholeFileTask(file, settings, { dict: DICT, rateHigh: 0, dictionariesOnly: true })).dictionaries!
    expect(Object.keys(built).sort()).toEqual(['finalize/1', 'finalize/12', 'finalize/3', 'raw', 'train'])
    const kept = keepDictionaries(built)
    for (const key of ['finalize/1', 'finalize/3', 'finalize/12']) {
      const k = kept[key]
      expect('head' in k && k.of, key).toBe('raw')
      expect('head' in k && k.head.length, key).toBeLessThan(1024)
    }
    expect('head' in kept.raw || 'head' in kept.train).toBe(false)
    const back = unpackDictionaries(structuredClone(kept))
    for (const [key, d] of Object.entries(built)) {
      expect(Buffer.from(back[key].bytes).equals(Buffer.from(d.bytes)), key).toBe(true)
      expect(back[key].ms).toBe(d.ms)
      expect(back[key].sampleBytes).toBe(d.sampleBytes)
    }
    const bytes = (x: Record<string, { bytes?: Uint8Array; head?: Uint8Array }>) =>
      Object.values(x).reduce((a, d) => a + (d.bytes ?? d.head ?? new Uint8Array(0)).length, 0)
    expect(bytes(kept)).toBeLessThan(bytes(built) / 2)
    const own = evaluateFile(wholeFileTask(file, settings, { dict: DICT }))
    const given = evaluateFile(wholeFileTask(file, settings, { dict: DICT, dictionaries: structuredClone(kept) }))
    for (const id of settings.keys()) {
      expect(given.sums[id].sumC, settings[id].label).toBe(own.sums[id].sumC)
      expect(given.sums[id].n).toBe(own.sums[id].n)
      expect(given.dictBytes[id]).toBe(own.dictBytes[id])
    }
  })
})
