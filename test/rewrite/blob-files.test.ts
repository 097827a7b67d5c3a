/**
 * A blob file written again under another compression (src/rewrite/blob-files.ts), on a real
 * BlobDB's files (test/fixtures/found/blob, RocksDB 7.8.3): every blob index of the real table
 * that points into it is moved to a record holding the same key and value, and the records no
 * index points at are counted as garbage.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openBlobFile, readBlob } from '../../src/blob/reader.js'
import { decodeBlobIndex, encodeBlobIndex } from '../../src/format/blob-index.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { parseInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { FileByteSource } from '../../src/io/byte-source.js'
import { recompressBlobFile, remapBlobIndex, unreferenced } from '../../src/rewrite/blob-files.js'
import { openTable } from '../../src/table/reader.js'
import { ROOT } from '../helpers.js'

const DB = join(ROOT, 'test/fixtures/found/blob')
const work = mkdtempSync(join(tmpdir(), 'sstkit-blob-files-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('blob files written again', () => {
  it('encodeBlobIndex writes what decodeBlobIndex reads, for each kind', () => {
    for (const index of [
      { kind: 'blob', fileNumber: 11, offset: 1 << 40, size: 300, compression: 7 },
      { kind: 'blobTtl', expiration: 123456789, fileNumber: 0, offset: 30, size: 1, compression: 0 },
      { kind: 'inlinedTtl', expiration: 5, value: new Uint8Array([1, 2, 3]) },
    ] as const)
      expect(decodeBlobIndex(encodeBlobIndex(index))).toEqual(index)
  })

  it("each blob index of the real table, moved, reads its key's same value from the new file", () => {
    const out = join(work, '000011.blob')
    const w = recompressBlobFile(join(DB, '000011.blob'), out, 11, CompressionType.LZ4)
    expect(w.records).toBe(300)
    expect(w.sourceCompression).toBe(CompressionType.ZSTD)
    const remaps = new Map([[11, w.remap]])
    const before = openBlobFile(new FileByteSource(join(DB, '000011.blob')))
    const after = openBlobFile(new FileByteSource(out))
    const table = openTable(join(DB, '000010.sst'))
    let moved = 0
    try {
      const it = table.iterator()
      for (it.seekToFirst(); it.valid; it.next()) {
        const k = parseInternalKey(it.key)
        if (k.type !== ValueType.BlobIndex) continue
        const old = decodeBlobIndex(it.value)
        if (old.kind !== 'blob' || old.fileNumber !== 11) continue
        // Only every other one: the rest are garbage for the count below.
        if (moved++ % 2 === 1) continue
        const next = decodeBlobIndex(remapBlobIndex(it.value, remaps)!)
        if (next.kind !== 'blob') throw new Error('not a blob index')
        expect(next.compression).toBe(CompressionType.LZ4)
        expect(next.fileNumber).toBe(11)
        const want = readBlob(before, k.userKey, Number(old.offset), Number(old.size), old.compression)
        expect(readBlob(after, k.userKey, Number(next.offset), Number(next.size), next.compression)).toEqual(want)
      }
    } finally {
      table.close()
      before.close()
      after.close()
    }
    expect(moved).toBe(300)
    const garbage = unreferenced(w.remap)
    expect(garbage.count).toBe(150)
    expect(garbage.bytes).toBeGreaterThan(0)
    expect(garbage.bytes).toBeLessThan(w.blobBytes)
  })

  it('a blob index at an offset where no record of the file starts is corruption, naming the file', () => {
    const w = recompressBlobFile(join(DB, '000013.blob'), join(work, '000013.blob'), 13, CompressionType.None)
    const bad = encodeBlobIndex({ kind: 'blob', fileNumber: 13, offset: 31, size: 10, compression: CompressionType.ZSTD })
    expect(() => remapBlobIndex(bad, new Map([[13, w.remap]]))).toThrow(/offset 31 in blob file #13 is the value of none of its records/)
    // An index into another file is left as it is.
    const other = encodeBlobIndex({ kind: 'blob', fileNumber: 11, offset: 31, size: 10, compression: CompressionType.ZSTD })
    expect(remapBlobIndex(other, new Map([[13, w.remap]]))).toBeNull()
  })
})
