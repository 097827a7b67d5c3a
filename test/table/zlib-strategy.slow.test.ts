/**
 * CompressionOptions::strategy, which RocksDB hands to zlib's deflateInit2 (and to no other
 * codec): tables `ldb` 7.8.3 writes with kZlibCompression under compression_opts strategy 1..4
 * (Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED) against sstkit's rewrite of the same entries with
 * that strategy: the same data blocks and index, to the byte (zlib through the library RocksDB
 * links), and `strategy=N` in rocksdb.compression_options.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultRewriteOptions, rewriteFile } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { LDB } from '../db/ldb.js'
import { toolPresent } from '../helpers.js'
import { ldbZlibSst, strategyData, tableShape as shape } from './zlib-strategy-tables.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-zlib-strategy-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const ldbSst = (name: string, data: string, strategy: number) => ldbZlibSst(tmp, name, data, strategy)

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('zlib under CompressionOptions::strategy vs ldb 7.8.3', () => {
  const data = strategyData()
  const sizes = new Map<number, number>()

  it.each([0, 1, 2, 3, 4])('strategy %i: the same data blocks and index, to the byte', (strategy) => {
    const real = shape(ldbSst(`s${strategy}`, data, strategy))
    expect(real.options).toContain(`strategy=${strategy};`)
    const out = join(tmp, `sstkit-${strategy}.sst`)
    rewriteFile(
      ldbSst(`src${strategy}`, data, 0),
      out,
      defaultRewriteOptions({ compressionType: CompressionType.Zlib, strategy, blockSize: 4096, formatVersion: 5, force: true }),
    )
    const ours = shape(out)
    expect({ ...ours, options: ours.options.includes(`strategy=${strategy};`) }).toEqual({ ...real, options: true })
    sizes.set(strategy, real.dataBytes)
  })

  it('the strategies write different tables (else the checks above could not tell one ignored)', () => {
    expect(new Set(sizes.values()).size).toBeGreaterThan(2)
  })
})
