/**
 * recompress's separated key/value layout (--separate-key-value, RocksDB 11's
 * separate_key_value_in_data_block) against the tables RocksDB 11.8.1 wrote with it
 * (test/fixtures/v11-layout/, generate-v11-layout.sh): the same entries, written by RocksDB in the
 * inline layout, recompressed under each table's options give that table's data blocks (their
 * count and uncompressed bytes always), and under zstd and none its data and index bytes, to the
 * byte, and its whole file where sstkit writes the properties as 11.8 does (format_version 7; an
 * older format_version gets the properties of the release that wrote it). Snappy and LZ4 blocks
 * differ by a few bytes: the npm build bundles its own Snappy and LZ4, whose output is not Debian's
 * (sstkit's own-block LZ4 row of real/v11-fv7-lz4.sst is 10,754 bytes against 11.8.1's 10,746).
 * Each separated table recompressed inline gives the inline one's.
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import type { TableLayout } from '../../src/recompress/config.js'
import { recompressLayouts } from '../../src/recompress/layouts.js'
import { tableLayout } from '../../src/table/layout.js'
import { openTable } from '../../src/table/reader.js'
import { ROOT } from '../helpers.js'

const DIR = join(ROOT, 'test/fixtures/v11-layout')
const manifest = JSON.parse(readFileSync(join(DIR, 'fixtures.json'), 'utf8')) as { tables: { name: string; compression: string; tableOptions: string }[] }
const CODEC: Record<string, number> = {
  kNoCompression: CompressionType.None,
  kSnappyCompression: CompressionType.Snappy,
  kLZ4Compression: CompressionType.LZ4,
  kZSTD: CompressionType.ZSTD,
}
const file = (name: string) => join(DIR, `${name}.sst`)

/** The fixture's table options as recompress's layout. */
function layoutOf(tableOptions: string): TableLayout {
  const o = Object.fromEntries(tableOptions.split(';').map((kv) => kv.split('=')))
  return {
    blockSize: Number(o.block_size ?? 4096),
    restartInterval: Number(o.block_restart_interval ?? 16),
    separateKeyValue: o.separate_key_value_in_data_block === 'true',
    indexCompression: o.enable_index_compression !== 'false',
    formatVersion: Number(o.format_version ?? 7),
  }
}

/** A table's data blocks and index as stored, and its size. */
function stored(path: string): { blocks: number; uncompressedBytes: number; dataBytes: number; indexBytes: number; fileBytes: number } {
  const table = openTable(path)
  try {
    const l = tableLayout(table, { decompress: true })
    const data = l.blocks.filter((b) => b.kind === 'data')
    return {
      blocks: data.length,
      uncompressedBytes: data.reduce((a, b) => a + (b.uncompressedSize ?? Number.NaN), 0),
      dataBytes: data.reduce((a, b) => a + b.sizeOnDisk, 0),
      indexBytes: l.blocks.filter((b) => b.kind === 'index').reduce((a, b) => a + b.sizeOnDisk, 0),
      fileBytes: statSync(path).size,
    }
  } finally {
    table.close()
  }
}

async function row(source: string, codec: number, layout: TableLayout) {
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
  return {
    blocks: r.blocks,
    uncompressedBytes: r.uncompressedBytes,
    dataBytes: r.dataBytes,
    indexBytes: r.indexBytes,
    fileBytes: r.fileBytes,
    separateKeyValue: r.separateKeyValue,
  }
}

const separated = manifest.tables.filter((t) => layoutOf(t.tableOptions).separateKeyValue)

describe('recompress --separate-key-value vs the tables RocksDB 11.8.1 writes with separate_key_value_in_data_block', () => {
  it.each(separated)('$name ($compression, $tableOptions): the same data blocks, index and file size', async ({ name, compression, tableOptions }) => {
    const layout = layoutOf(tableOptions)
    const real = stored(file(name))
    const r = await row(file('inline-zstd-4k'), CODEC[compression], layout)
    const exact = compression === 'kZSTD' || compression === 'kNoCompression'
    expect({ blocks: r.blocks, uncompressedBytes: r.uncompressedBytes, separateKeyValue: r.separateKeyValue }).toEqual({
      blocks: real.blocks,
      uncompressedBytes: real.uncompressedBytes,
      separateKeyValue: true,
    })
    if (exact) {
      expect({ dataBytes: r.dataBytes, indexBytes: r.indexBytes }).toEqual({ dataBytes: real.dataBytes, indexBytes: real.indexBytes })
      if (layout.formatVersion === 7) expect(r.fileBytes).toBe(real.fileBytes)
    } else expect(Math.abs(r.dataBytes - real.dataBytes) / real.dataBytes).toBeLessThan(0.01)
    // The layout changes what is written (else the test could not tell it ignored).
    const inline = await row(file('inline-zstd-4k'), CODEC[compression], { ...layout, separateKeyValue: false })
    expect(inline.dataBytes).not.toBe(real.dataBytes)
  })

  it.each(separated)('$name recompressed inline (zstd, 4 KiB) gives the inline table RocksDB wrote', async ({ name }) => {
    const r = await row(file(name), CompressionType.ZSTD, layoutOf('block_size=4096'))
    expect(r).toEqual({ ...stored(file('inline-zstd-4k')), separateKeyValue: false })
  })
})
