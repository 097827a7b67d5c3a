/**
 * recompress's table layouts against files the real RocksDB 7.8.3 writes with those options:
 * one set of entries loaded by `ldb` into fresh databases whose OPTIONS set block_size,
 * block_restart_interval, enable_index_compression and format_version (as
 * test/fixtures/generate.sh's ldb_sst does), each flushed into one SST. Recompressing the file
 * written with RocksDB's defaults under a layout must give the data blocks and the index of the
 * file RocksDB wrote with that layout: the same block count and the same bytes, to the byte
 * (Snappy and LZ4 through the libraries RocksDB links, so the blocks are the very bytes).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import type { TableLayout } from '../../src/recompress/config.js'
import { recompressLayouts } from '../../src/recompress/layouts.js'
import { tableLayout } from '../../src/table/layout.js'
import { openTable } from '../../src/table/reader.js'
import { LDB } from '../db/ldb.js'
import { ROOT, toolPresent } from '../helpers.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-layouts-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** One SST written by ldb 7.8.3 from `data` (`0xKEY ==> 0xVALUE` lines) under these OPTIONS table settings. */
function ldbSst(name: string, data: string, options: Record<string, string>): string {
  const db = join(tmp, `db-${name}`)
  const run = (args: string[], input = '') => {
    const r = spawnSync(LDB!, args, { input, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`ldb ${args.join(' ')}: ${r.stderr}`)
  }
  run([`--db=${db}`, '--create_if_missing', 'load'])
  const optionsFile = join(
    db,
    readdirSync(db)
      .filter((n) => n.startsWith('OPTIONS-'))
      .sort()
      .pop()!,
  )
  let text = readFileSync(optionsFile, 'utf8')
  for (const [k, v] of Object.entries(options)) {
    const re = new RegExp(`^(\\s*)${k}=.*$`, 'm')
    if (!re.test(text)) throw new Error(`option not in the OPTIONS file: ${k}`)
    text = text.replace(re, `$1${k}=${v}`)
  }
  writeFileSync(optionsFile, text)
  run([`--db=${db}`, '--hex', 'load', '--disable_wal'], data)
  const ssts = readdirSync(db).filter((n) => n.endsWith('.sst'))
  if (ssts.length !== 1) throw new Error(`${name}: expected one SST, found ${ssts.join(', ')}`)
  return join(db, ssts[0])
}

/** The data blocks and the index of a table as stored. */
function stored(file: string): { blocks: number; dataBytes: number; indexBytes: number; indexCompressed: boolean } {
  const table = openTable(file)
  try {
    const l = tableLayout(table, { decompress: false })
    const data = l.blocks.filter((b) => b.kind === 'data')
    const index = l.blocks.filter((b) => b.kind === 'index')
    return {
      blocks: data.length,
      dataBytes: data.reduce((a, b) => a + b.sizeOnDisk, 0),
      indexBytes: index.reduce((a, b) => a + b.sizeOnDisk, 0),
      indexCompressed: index.some((b) => (b.compressionType ?? 0) !== 0),
    }
  } finally {
    table.close()
  }
}

const ldbPresent = toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools')

describe.runIf(ldbPresent)('recompress layouts vs the files ldb 7.8.3 writes with those table options', () => {
  const data = spawnSync('node', [join(ROOT, 'test/fixtures/gen-data.mjs'), '--seed=40', '--count=2500', '--keys=seq:key:8', '--values=text:8:160'], {
    encoding: 'utf8',
  }).stdout
  const base = { compression: 'kSnappyCompression', format_version: '5', block_size: '4096' }

  const variants: { name: string; codec: number; options: Record<string, string>; layout: TableLayout }[] = [
    { name: '16 KiB blocks', codec: CompressionType.Snappy, options: { block_size: '16384' }, layout: layout({ blockSize: 16384 }) },
    { name: '64 KiB blocks', codec: CompressionType.Snappy, options: { block_size: '65536' }, layout: layout({ blockSize: 65536 }) },
    { name: 'restart interval 4', codec: CompressionType.Snappy, options: { block_restart_interval: '4' }, layout: layout({ restartInterval: 4 }) },
    { name: 'restart interval 1', codec: CompressionType.Snappy, options: { block_restart_interval: '1' }, layout: layout({ restartInterval: 1 }) },
    {
      name: 'index compression off',
      codec: CompressionType.Snappy,
      options: { enable_index_compression: 'false' },
      layout: layout({ indexCompression: false }),
    },
    { name: 'format_version 3', codec: CompressionType.Snappy, options: { format_version: '3' }, layout: layout({ formatVersion: 3 }) },
    { name: 'format_version 2', codec: CompressionType.Snappy, options: { format_version: '2' }, layout: layout({ formatVersion: 2 }) },
    {
      name: 'LZ4, 32 KiB blocks, restart interval 32, index raw, format_version 4',
      codec: CompressionType.LZ4,
      options: { compression: 'kLZ4Compression', block_size: '32768', block_restart_interval: '32', enable_index_compression: 'false', format_version: '4' },
      layout: layout({ blockSize: 32768, restartInterval: 32, indexCompression: false, formatVersion: 4 }),
    },
  ]

  function layout(o: Partial<TableLayout>): TableLayout {
    return { blockSize: 4096, restartInterval: 16, separateKeyValue: false, indexCompression: true, formatVersion: null, ...o }
  }

  let source = ''
  beforeAll(() => {
    source = ldbSst('base', data, base)
  })

  it.each(variants)('$name: the same data blocks and index, to the byte', async ({ name, codec, options, layout }) => {
    const real = stored(ldbSst(name.replace(/\W+/g, '-'), data, { ...base, ...options }))
    // The option changes the file RocksDB writes (else the test could not tell a layout ignored).
    const plain = stored(
      codec === CompressionType.Snappy ? source : ldbSst(`${name.replace(/\W+/g, '-')}-plain`, data, { ...base, compression: options.compression }),
    )
    expect(real).not.toEqual(plain)
    const report = await recompressLayouts(
      source,
      {
        matrix: { types: [codec], levels: [null], dicts: ['none'], checksums: [false] },
        source: { blockSize: null, samplePercent: 100 },
        dict: { maxDictBytes: 0, trainBytes: 0, maxDictBufferBytes: 0 },
        jobs: 1,
      },
      [layout],
    )
    expect(report.results).toHaveLength(1)
    const r = report.results[0]
    expect(r.blocks).toBe(real.blocks)
    expect(r.dataBytes).toBe(real.dataBytes)
    expect(r.indexBytes).toBe(real.indexBytes)
    expect(r.indexBlocksCompressed > 0).toBe(real.indexCompressed)
    expect(r.restartInterval).toBe(layout.restartInterval)
    expect(r.formatVersion).toBe(layout.formatVersion ?? 5)
  })

  it('the layouts of one run are its rows, each as its own run gives it', async () => {
    const opts = {
      matrix: { types: [CompressionType.Snappy], levels: [null], dicts: ['none' as const], checksums: [false] },
      source: { blockSize: null, samplePercent: 100 },
      dict: { maxDictBytes: 0, trainBytes: 0, maxDictBufferBytes: 0 },
      jobs: 1,
    }
    const layouts = [layout({ blockSize: 4096 }), layout({ blockSize: 16384, indexCompression: false })]
    const both = await recompressLayouts(source, opts, layouts)
    expect(both.results.map((r) => [r.blockSize, r.indexCompression])).toEqual([
      [4096, true],
      [16384, false],
    ])
    for (const [i, l] of layouts.entries()) {
      const alone = await recompressLayouts(source, opts, [l])
      expect(both.results[i].dataBytes).toBe(alone.results[0].dataBytes)
      expect(both.results[i].indexBytes).toBe(alone.results[0].indexBytes)
    }
    expect(both.results.filter((r) => r.marks.includes('smallest'))).toHaveLength(1)
  })
})
