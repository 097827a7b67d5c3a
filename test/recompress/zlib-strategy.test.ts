/**
 * recompress --compression-strategy: each zlib setting under each CompressionOptions::strategy, a
 * row apiece, against the tables `ldb` 7.8.3 writes from the same entries under that strategy
 * (test/table/zlib-strategy-tables.ts): every row's data blocks as many and as large, to the byte,
 * as the real table's; the other codecs' rows not multiplied; the flag's values checked.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { recompressFile } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { LDB } from '../db/ldb.js'
import { ROOT, sstkit, toolPresent } from '../helpers.js'
import { ldbZlibSst, strategyData, tableShape } from '../table/zlib-strategy-tables.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-recompress-strategy-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const STRATEGIES = [0, 1, 2, 3, 4]

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('recompress --compression-strategy vs ldb 7.8.3', () => {
  it("each strategy's row has the data blocks of the table ldb writes under it, to the byte; lz4 is one row", async () => {
    const data = strategyData()
    const real = new Map(STRATEGIES.map((s) => [s, tableShape(ldbZlibSst(tmp, `s${s}`, data, s))]))
    // The strategies write different tables: else equal sizes could not tell one ignored.
    expect(new Set([...real.values()].map((r) => r.dataBytes)).size).toBeGreaterThan(2)
    const report = await recompressFile(ldbZlibSst(tmp, 'source', data, 0), {
      matrix: { types: [CompressionType.Zlib, CompressionType.LZ4], dicts: ['none'], checksums: [false], strategies: STRATEGIES },
      source: { blockSize: 4096, samplePercent: 100 },
      table: { formatVersion: 5 },
      dict: { maxDictBytes: 16384, trainBytes: 1638400, maxDictBufferBytes: 0 },
      jobs: 2,
    })
    const zlib = report.results.filter((r) => r.type === 'zlib')
    expect(zlib.map((r) => r.strategy)).toEqual(STRATEGIES)
    for (const r of zlib) {
      const { blocks, dataBytes, indexBytes } = real.get(r.strategy!)!
      expect({ strategy: r.strategy, blocks: r.blocks, dataBytes: r.dataBytes, indexBytes: r.indexBytes }).toEqual({
        strategy: r.strategy,
        blocks,
        dataBytes,
        indexBytes,
      })
    }
    expect(report.results.filter((r) => r.type === 'lz4').map((r) => r.strategy)).toEqual([null])
  })
})

describe('recompress --compression-strategy on the command line', () => {
  const sample = join(ROOT, 'examples/sample.sst')

  it('labels, JSON and CSV carry the strategy of each zlib row', () => {
    const j = JSON.parse(sstkit(['recompress', sample, '--types', 'zlib,snappy', '--compression-strategy', '1,3', '--json']).stdout)
    expect(j.results.map((r: { type: string; strategy: number | null }) => [r.type, r.strategy])).toEqual([
      ['zlib', 1],
      ['zlib', 3],
      ['snappy', null],
    ])
    const table = sstkit(['recompress', sample, '--types', 'zlib', '--levels', '9', '--compression-strategy', '0..1'])
    expect(table.status, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/zlib 9 strategy=0 /)
    expect(table.stdout).toMatch(/zlib 9 strategy=1 /)
    const csv = sstkit(['recompress', sample, '--types', 'zlib', '--compression-strategy', '2', '--format', 'csv']).stdout.trim().split('\n')
    const header = csv[0].split(',')
    expect(csv[2].split(',')[header.indexOf('Strategy')]).toBe('2')
  })

  it('says in a note that no zlib type takes it', () => {
    const r = sstkit(['recompress', sample, '--types', 'zstd', '--levels', '1', '--dict', 'none', '--checksum', 'off', '--compression-strategy', '2'])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain("note: --compression-strategy is zlib's deflate strategy, and no zlib type is evaluated: ignored")
  })

  it('is a usage error on a blob file, which has no compression options', () => {
    const r = sstkit(['recompress', join(ROOT, 'test/fixtures/blob/dbbench-zstd/000009.blob'), '--compression-strategy', '1'])
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: '' })
    expect(r.stderr).toBe(
      "sstkit: --compression-strategy is a table's CompressionOptions::strategy: a blob file has blob_compression_type and no compression options\n",
    )
  })

  it.each([
    ['5', 'sstkit: compression strategy 5 is out of range (0..4)'],
    ['-1', 'sstkit: not a compression strategy or range: "-1"'],
    ['filtered', 'sstkit: not a compression strategy or range: "filtered"'],
  ])('--compression-strategy %s is a usage error in one line (exit 2)', (value, line) => {
    const r = sstkit(['recompress', sample, '--types', 'zlib', '--compression-strategy', value])
    expect({ status: r.status, stderr: r.stderr, stdout: r.stdout }).toEqual({ status: 2, stderr: `${line}\n`, stdout: '' })
  })
})
