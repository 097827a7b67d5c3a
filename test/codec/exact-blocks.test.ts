/**
 * Byte-exact codecs: every compressed block real RocksDB 7.8.3 (ldb) wrote
 * into the fixtures, decompressed and compressed again by sstkit with the
 * same setting, gives the very bytes RocksDB stored. sstkit compresses with
 * the libraries librocksdb 7.8.3 links here (system liblz4, libz, libsnappy,
 * libbz2) and calls them as RocksDB's util/compression.h does: LZ4 and LZ4HC
 * through a fresh stream per block, zlib through deflateInit2(-14, memLevel 8)
 * + deflateSetDictionary, Snappy through RawCompress, BZip2 with
 * blockSize100k 1. zstd is the exception: sstkit's zstd-napi bundles 1.5.7,
 * sst_dump links 1.5.4, whose frames differ by some bytes with a dictionary.
 */
import { describe, expect, it } from 'vitest'
import { compressBlock } from '../../src/codec/compression.js'
import { lz4Compress } from '../../src/codec/lz4.js'
import { snappyBackend, snappyCompressPackage, snappyDecompress } from '../../src/codec/snappy.js'
import { zlibCompressBackend, zlibCompressWithNode, zlibDecompress } from '../../src/codec/zlib.js'
import type { BlockHandle } from '../../src/format/block-handle.js'
import { openTable, type Table } from '../../src/table/reader.js'
import { fixturePath } from '../helpers.js'
import { kvText } from './helpers.js'

interface Tally {
  identical: number
  different: number
  stored: number
  ours: number
}

/** Recompress every compressed block (data blocks with the file's dictionary, the index without). */
function recompressStored(table: Table): Tally {
  const tally: Tally = { identical: 0, different: 0, stored: 0, ours: 0 }
  const dictionary = table.dictionary() ?? undefined
  const check = (handle: BlockHandle, isData: boolean) => {
    const raw = table.readRaw(handle, 'block')
    if (raw.compressionType === 0) return
    const plain = table.readBlock(handle, 'block', isData)
    const ours = compressBlock(raw.compressionType, plain, { formatVersion: table.formatVersion, dictionary: isData ? dictionary : undefined })
    tally.stored += raw.payload.length
    tally.ours += ours.length
    if (Buffer.from(ours).equals(Buffer.from(raw.payload))) tally.identical++
    else tally.different++
  }
  for (const block of table.dataBlocks()) check(block.handle, true)
  check(table.footer.indexHandle!, false)
  return tally
}

const EXACT = ['fv5-snappy', 'fv5-zlib', 'fv5-bzip2', 'fv5-lz4', 'fv5-lz4hc', 'lz4-dict-raw', 'zlib-dict-raw', 'binary-keys', 'long-prefix', 'entry-types']

describe('compressed blocks identical to real RocksDB 7.8.3 (same system libraries)', () => {
  it('compresses with the libraries RocksDB links', () => {
    expect(zlibCompressBackend()).toMatch(/^libz /)
    expect(snappyBackend()).toBe('libsnappy')
  })

  it.each(EXACT)('%s: every compressed block byte for byte', (name) => {
    const table = openTable(fixturePath(name))
    try {
      const t = recompressStored(table)
      expect(t.identical).toBeGreaterThan(0)
      expect(t, `${name}: ${t.different} blocks differ, ${t.ours} vs ${t.stored} bytes`).toMatchObject({ different: 0, ours: t.stored })
    } finally {
      table.close()
    }
  })

  it('zstd (zstd-napi 1.5.7 vs the 1.5.4 RocksDB links): identical without a dictionary, within 1% with one', () => {
    const plain = openTable(fixturePath('fv5-zstd'))
    const dict = openTable(fixturePath('zstd-dict-raw'))
    try {
      expect(recompressStored(plain).different).toBe(0)
      const t = recompressStored(dict)
      expect(Math.abs(t.ours - t.stored) / t.stored).toBeLessThan(0.01)
    } finally {
      plain.close()
      dict.close()
    }
  })

  it('LZ4 streams are re-initialised per block: the same block compresses alike before and after others, with and without a dictionary', () => {
    const a = kvText(3000, 1)
    const b = kvText(9000, 2)
    const dictionary = kvText(4096, 3)
    for (const hc of [false, true]) {
      for (const dict of [undefined, dictionary]) {
        const opts = { hc, level: 9, acceleration: 1, dictionary: dict }
        const first = lz4Compress(a, opts)
        lz4Compress(b, opts)
        lz4Compress(b, { ...opts, dictionary: dict ? undefined : dictionary })
        expect(Buffer.from(lz4Compress(a, opts)).equals(Buffer.from(first))).toBe(true)
      }
    }
  })

  it('the fallbacks where a system library is missing (Node zlib, the snappy package) write valid streams, other bytes', () => {
    const table = openTable(fixturePath('zlib-dict-raw'))
    try {
      const dictionary = table.dictionary()!
      let differ = 0
      for (const block of table.dataBlocks()) {
        const raw = table.readRaw(block.handle, 'block')
        const plain = table.readBlock(block.handle, 'block', true)
        const z = zlibCompressWithNode(plain, { level: -1, dictionary })
        expect(Buffer.from(zlibDecompress(z, plain.length, true, dictionary)).equals(Buffer.from(plain))).toBe(true)
        const s = snappyCompressPackage(plain)
        expect(Buffer.from(snappyDecompress(s, plain.length)).equals(Buffer.from(plain))).toBe(true)
        // The stored payload is the varint size prefix, then the deflate stream.
        if (
          !Buffer.from(raw.payload)
            .subarray(raw.payload.length - z.length)
            .equals(Buffer.from(z))
        )
          differ++
      }
      // Why the system libz is used: Node's zlib (Chromium's fork) does not give RocksDB's bytes.
      expect(differ).toBeGreaterThan(0)
    } finally {
      table.close()
    }
  })
})
