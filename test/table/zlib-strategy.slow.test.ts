/**
 * CompressionOptions::strategy, which RocksDB hands to zlib's deflateInit2 (and to no other
 * codec): tables `ldb` 7.8.3 writes with kZlibCompression under compression_opts strategy 1..4
 * (Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED) against sstkit's rewrite of the same entries with
 * that strategy: the same data blocks and index, to the byte (zlib through the library RocksDB
 * links), and `strategy=N` in rocksdb.compression_options.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultRewriteOptions, rewriteFile } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { tableLayout } from '../../src/table/layout.js'
import { openTable } from '../../src/table/reader.js'
import { LDB } from '../db/ldb.js'
import { ROOT, toolPresent } from '../helpers.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-zlib-strategy-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** One SST written by ldb 7.8.3 from `data` with zlib under this deflate strategy. */
function ldbSst(name: string, data: string, strategy: number): string {
  const db = join(tmp, `db-${name}`)
  const run = (args: string[], input = '') => {
    const r = spawnSync(LDB!, args, { input, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`ldb ${args.join(' ')}: ${r.stderr}`)
  }
  run([`--db=${db}`, '--create_if_missing', 'load'])
  const file = join(
    db,
    readdirSync(db)
      .filter((n) => n.startsWith('OPTIONS-'))
      .sort()
      .pop()!,
  )
  let text = readFileSync(file, 'utf8')
  text = text.replace(/^(\s*)compression=.*$/m, '$1compression=kZlibCompression')
  text = text.replace(/^(\s*compression_opts=\{.*)strategy=0;/m, `$1strategy=${strategy};`)
  text = text.replace(/^(\s*)format_version=.*$/m, '$1format_version=5')
  writeFileSync(file, text)
  run([`--db=${db}`, '--hex', 'load', '--disable_wal'], data)
  const ssts = readdirSync(db).filter((n) => n.endsWith('.sst'))
  if (ssts.length !== 1) throw new Error(`${name}: expected one SST, found ${ssts.join(', ')}`)
  return join(db, ssts[0])
}

function shape(file: string): { blocks: number; dataBytes: number; indexBytes: number; options: string } {
  const table = openTable(file)
  try {
    const l = tableLayout(table, { decompress: false })
    const data = l.blocks.filter((b) => b.kind === 'data')
    return {
      blocks: data.length,
      dataBytes: data.reduce((a, b) => a + b.sizeOnDisk, 0),
      indexBytes: l.blocks.filter((b) => b.kind === 'index').reduce((a, b) => a + b.sizeOnDisk, 0),
      options: String(table.properties.known.get('rocksdb.compression_options')),
    }
  } finally {
    table.close()
  }
}

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('zlib under CompressionOptions::strategy vs ldb 7.8.3', () => {
  const data = spawnSync('node', [join(ROOT, 'test/fixtures/gen-data.mjs'), '--seed=41', '--count=1500', '--keys=seq:key:8', '--values=text:8:160'], {
    encoding: 'utf8',
  }).stdout
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
