/**
 * The database rewrite's check (src/rewrite/db-verify.ts): a written table read again beside a
 * second read of its source, on real tables (test/fixtures/db/versions: versions, deletes, merges,
 * range deletions, RocksDB 7.8.3; test/fixtures/found/blob: blob indexes into two blob files). It
 * passes on a true rewrite, counting what it compared, and fails, in one line naming the table,
 * on a table that is not the source's, and on a blob index whose blob file is not the one it
 * was written for; copied files are compared byte for byte, a log as a prefix.
 */
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/format/compression-type.js'
import { Property } from '../../src/format/properties.js'
import { recompressBlobFile } from '../../src/rewrite/blob-files.js'
import { compareBytes, compareTables, type TablePair } from '../../src/rewrite/db-verify.js'
import { defaultRewriteOptions, rewriteFile } from '../../src/rewrite/rewrite.js'
import { openTable } from '../../src/table/reader.js'
import { ROOT } from '../helpers.js'

const work = mkdtempSync(join(tmpdir(), 'sstkit-db-verify-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const VERSIONS = join(ROOT, 'test/fixtures/db/versions/000008.sst')
const BLOB = join(ROOT, 'test/fixtures/found/blob')

function pair(source: string, output: string, blobs: Partial<Pick<TablePair, 'sourceBlobs' | 'outputBlobs'>> = {}): TablePair {
  return { label: 'table #8', source, output, salvaged: false, sourceBlobs: {}, outputBlobs: {}, ...blobs }
}

describe('a written table against a second read of its source', () => {
  it('a true rewrite: every entry and range tombstone the same, counted', () => {
    const out = join(work, 'versions.sst')
    rewriteFile(VERSIONS, out, defaultRewriteOptions({ compressionType: CompressionType.LZ4, verify: false }))
    const t = openTable(VERSIONS)
    const entries = Number(t.properties.known.get(Property.NumEntries))
    const ranges = Number(t.properties.known.get(Property.NumRangeDeletions))
    t.close()
    expect(ranges).toBeGreaterThan(0)
    // rocksdb.num.entries counts the range deletions too.
    expect(compareTables(pair(VERSIONS, out))).toEqual({ entries: entries - ranges, tombstones: ranges, blobValues: 0 })
  })

  it("another table than the source's fails, naming it", () => {
    const other = join(ROOT, 'examples/db/000009.sst')
    expect(() => compareTables(pair(VERSIONS, other))).toThrow(/^verification of the written database failed: table #8: entry 0: the key differs/)
  })

  it("blob indexes: the values are read from both databases' blob files, and a blob file that is not the index's fails", () => {
    const table = join(BLOB, '000010.sst')
    const sourceBlobs = { 11: join(BLOB, '000011.blob'), 13: join(BLOB, '000013.blob') }
    expect(compareTables(pair(table, table, { sourceBlobs, outputBlobs: sourceBlobs }))).toEqual({ entries: 300, tombstones: 0, blobValues: 300 })
    // The blob file written again, the table's indexes not moved with it: RocksDB could not read them either.
    const moved = join(work, '000011.blob')
    recompressBlobFile(join(BLOB, '000011.blob'), moved, 11, CompressionType.LZ4)
    expect(() => compareTables(pair(table, table, { sourceBlobs, outputBlobs: { ...sourceBlobs, 11: moved } }))).toThrow(
      /compression type 7 differs from the blob file's 4/,
    )
    expect(() => compareTables(pair(table, table, { sourceBlobs, outputBlobs: {} }))).toThrow(/blob file #11, which is not live/)
  })

  it('copied files byte for byte; a log as a prefix of the source, which may have grown since', () => {
    const a = join(work, 'a.log')
    const b = join(work, 'b.log')
    writeFileSync(a, Buffer.alloc(3 << 20, 7))
    copyFileSync(a, b)
    expect(compareBytes(a, b, 'log a')).toBe(3 << 20)
    appendFileSync(a, 'more')
    expect(() => compareBytes(a, b, 'log a')).toThrow(/log a differs from the source's/)
    expect(compareBytes(a, b, 'log a', true)).toBe(3 << 20)
    appendFileSync(b, 'x')
    expect(() => compareBytes(a, b, 'log a', true)).toThrow(/log a differs from the source's at or after byte 3145728/)
  })
})
