import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { blobFileStats, verifyBlobFile } from '../../src/blob/inspect.js'
import { blobCrc, blobRecords, decompressBlobValue, openBlobFile, readBlob } from '../../src/blob/reader.js'
import { encodeBlobFileFooter } from '../../src/format/blob-file.js'
import { compressionOptionName } from '../../src/format/compression-type.js'
import { toHex } from '../../src/format/coding.js'
import { BufferByteSource, FileByteSource } from '../../src/io/byte-source.js'
import { ROOT } from '../helpers.js'
import { blobFixtureFiles, ldbBlobDump } from './ldb-dump.js'

const files = blobFixtureFiles()
const open = (file: string) => openBlobFile(new FileByteSource(join(ROOT, file)))

describe('blob files read as ldb dump reads them (real db_bench 7.8.3 and RocksDB 11.8.1 files)', () => {
  it('has fixtures of every codec', () => {
    const codecs = new Set(files.map((f) => ldbBlobDump(f).header.compression))
    expect([...codecs].sort()).toEqual(['kLZ4Compression', 'kNoCompression', 'kSnappyCompression', 'kZSTD'])
    expect(files.length).toBeGreaterThanOrEqual(7)
  })

  it.each(files)('%s: header, footer, every record and the summary', (file) => {
    const ldb = ldbBlobDump(file)
    const blob = open(file)
    try {
      expect(blob.header.version).toBe(ldb.header.version)
      expect(blob.header.columnFamilyId).toBe(ldb.header.columnFamilyId)
      expect(compressionOptionName(blob.header.compression)).toBe(ldb.header.compression)
      expect(ldb.header.expirationRange).toBe('nil')
      expect(blob.footer && Number(blob.footer.blobCount)).toBe(ldb.footer?.blobCount)
      const stored = blob.header.compression === 0 ? ldbBlobDump(file, 'stored').records : null
      const records = [...blobRecords(blob)].map((r) => ({
        offset: r.offset,
        keySize: r.key.length,
        valueSize: r.value.length,
        expiration: Number(r.header.expiration),
        keyHex: toHex(r.key).toUpperCase(),
        // ldb prints an empty raw blob for an uncompressed file: its stored dump holds the value.
        blobHex: toHex(decompressBlobValue(blob.header.compression, r.value, r.valueOffset)).toUpperCase(),
        crc: r.blobCrcError,
      }))
      expect(records.every((r) => r.crc === undefined)).toBe(true)
      expect(records.map(({ crc, ...r }) => r)).toEqual(stored ?? ldb.records)
      const stats = blobFileStats(blob)
      expect(stats.records).toBe(ldb.summary.records)
      expect(stats.keyBytes).toBe(ldb.summary.keyBytes)
      expect(stats.storedValueBytes).toBe(ldb.summary.blobBytes)
      expect(stats.rawValueBytes).toBe(ldb.summary.rawBlobBytes ?? ldb.summary.blobBytes)
      expect(stats.stopped).toBeUndefined()
      const v = verifyBlobFile(blob)
      expect(v).toMatchObject({ ok: true, records: ldb.summary.records, footerBlobCount: ldb.footer?.blobCount, problems: [] })
      expect(v.valuesDecompressed).toBe(blob.header.compression === 0 ? 0 : ldb.summary.records)
    } finally {
      blob.close()
    }
  })

  it.each(files)('%s: each value read back through its blob index position', (file) => {
    const blob = open(file)
    try {
      const ldb = ldbBlobDump(file)
      for (const r of [...blobRecords(blob)].map((r) => ({ key: Uint8Array.from(r.key), valueOffset: r.valueOffset, size: r.value.length }))) {
        const value = readBlob(blob, r.key, r.valueOffset, r.size, blob.header.compression)
        const expected = ldb.records.find((x) => x.keyHex === toHex(r.key).toUpperCase())!
        if (blob.header.compression !== 0) expect(toHex(value).toUpperCase()).toBe(expected.blobHex)
        else expect(value.length).toBe(expected.valueSize)
      }
      const first = [...blobRecords(blob)][0]
      const wrongKey = Uint8Array.from(first.key)
      wrongKey[0] ^= 1
      expect(() => readBlob(blob, wrongKey, first.valueOffset, first.value.length, blob.header.compression)).toThrow(/key differs/)
      expect(() => readBlob(blob, first.key, first.valueOffset, first.value.length + 1, blob.header.compression)).toThrow(/value length/)
      expect(() => readBlob(blob, first.key, blob.fileSize, 10, blob.header.compression)).toThrow(/do not fit/)
    } finally {
      blob.close()
    }
  })
})

describe('blob file reader on damaged copies of a real file (synthetic damage)', () => {
  const file = 'test/fixtures/blob/dbbench-zstd/000009.blob'
  const real = () => Uint8Array.from(readFileSync(join(ROOT, file)))
  /** A source that records the largest read it was asked for. */
  const watched = (bytes: Uint8Array) => {
    const source = new BufferByteSource(bytes, 'synthetic-damaged.blob')
    const reads: number[] = []
    const read = source.read.bind(source)
    source.read = (offset: number, length: number) => {
      reads.push(length)
      return read(offset, length)
    }
    return { source, reads }
  }

  it('a length past the records under a matching header CRC is refused before anything that large is read', () => {
    const bytes = real()
    const view = new DataView(bytes.buffer)
    view.setBigUint64(30 + 8, 1n << 40n, true)
    view.setUint32(30 + 24, blobCrc(bytes.subarray(30, 54)), true)
    const { source, reads } = watched(bytes)
    const v = verifyBlobFile(openBlobFile(source))
    expect(v.ok).toBe(false)
    expect(v.problems[0]).toMatchObject({ part: 'record', offset: 30 })
    expect(v.problems[0].message).toMatch(/value length 1099511627776 run past the end of the records/)
    expect(Math.max(...reads)).toBeLessThanOrEqual(bytes.length)
  })

  it('a file cut short has no footer and its last record runs past the end', () => {
    const bytes = real().subarray(0, 5000)
    const v = verifyBlobFile(openBlobFile(new BufferByteSource(bytes, 'synthetic-truncated.blob')))
    expect(v.ok).toBe(false)
    expect(v.problems.map((p) => p.part)).toEqual(['record', 'footer'])
    expect(v.problems[1].message).toMatch(/no footer/)
  })

  it('a footer count that differs from the records is named', () => {
    const bytes = real()
    const at = bytes.length - 32
    bytes.set(encodeBlobFileFooter(3, blobCrc), at)
    const v = verifyBlobFile(openBlobFile(new BufferByteSource(bytes, 'synthetic-count.blob')))
    expect(v.problems).toEqual([{ part: 'footer', offset: at, message: expect.stringMatching(/blob count 3, but the file holds \d+ records/) }])
  })
})
