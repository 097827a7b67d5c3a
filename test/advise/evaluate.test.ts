import { describe, expect, it } from 'vitest'
import { evaluateFile } from '../../src/advise/evaluate.js'
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
