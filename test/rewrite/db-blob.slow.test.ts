/**
 * `rewrite DB --advice FILE` writes each blob file again under the advised blob_compression_type
 * and moves every blob index of the column family's tables to its record's new offset and size.
 * BlobDB databases written by real RocksDB (db_bench 7.8.3: test/fixtures/blob; RocksDB 7.8.3's
 * db-writer.cc: test/fixtures/found/blob and the legacy v7-fv01 with its WAL; RocksDB 11.8.1:
 * test/fixtures/blob/v11), advised by the real `sstkit advise`, with the advice's blob type set to
 * another codec than the files' (advise keeps today's on some of these small files, which would
 * test nothing). Then ldb 7.8.3 scans every column family of the output, every value resolved from
 * the new blob files, equal to the source's scan; its manifest_dump shows the new blob totals;
 * RocksDB 11.8.1 reads the same entries.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/db/database.js'
import { blobRecords, openBlobFile } from '../../src/blob/reader.js'
import { decodeBlobFileHeader } from '../../src/format/blob-file.js'
import { decodeBlobIndex } from '../../src/format/blob-index.js'
import { ValueType } from '../../src/format/value-type.js'
import { FileByteSource } from '../../src/io/byte-source.js'
import { openTable } from '../../src/table/reader.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { assertFreshBuild, ROOT, sstkit, toolPresent } from '../helpers.js'
import { LDB, parseManifestDump } from '../db/ldb.js'
import { Rocks, rocksdbJs } from './rocksdb-js.js'
import { copyDir } from './scratch.js'

assertFreshBuild()
const work = mkdtempSync(join(tmpdir(), 'sstkit-rewrite-db-blob-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
let n = 0

const copy = (dir: string) => copyDir(work, dir)

function ldbScan(dir: string, cf: string): string {
  // The v11 fixture's OPTIONS file names options 7.8.3 does not know.
  const r = spawnSync(LDB!, [`--db=${copy(dir)}`, '--ignore_unknown_options', `--column_family=${cf}`, 'scan', '--hex'], {
    encoding: 'latin1',
    maxBuffer: 256 * 1024 * 1024,
  })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

/** Σ (32 + key + value) of the records of a blob file no blob index of the database's tables points at. */
function unreferencedBytes(db: ReturnType<typeof openDatabase>, path: string, fileNumber: number): number {
  const pointedAt = new Set<number>()
  for (const f of db.columnFamilies.flatMap((c) => c.levels.flat())) {
    const t = openTable(f.path)
    const it = t.iterator()
    for (it.seekToFirst(); it.valid; it.next()) {
      if (it.key[it.key.length - 8] !== ValueType.BlobIndex) continue
      const index = decodeBlobIndex(it.value)
      if (index.kind === 'blob' && Number(index.fileNumber) === fileNumber) pointedAt.add(Number(index.offset))
    }
    t.close()
  }
  const file = openBlobFile(new FileByteSource(path))
  let bytes = 0
  for (const r of blobRecords(file)) if (!pointedAt.has(r.valueOffset)) bytes += 32 + r.key.length + r.value.length
  file.close()
  return bytes
}

const OPTION_NAMES: Record<number, string> = {
  [CompressionType.None]: 'kNoCompression',
  [CompressionType.Snappy]: 'kSnappyCompression',
  [CompressionType.Zlib]: 'kZlibCompression',
  [CompressionType.LZ4]: 'kLZ4Compression',
  [CompressionType.ZSTD]: 'kZSTD',
}

/** ldb 7.8.3's scan of a source column family; for v11 (format_version 7 tables, which 7.8.3 refuses), RocksDB 11.8.1's own, committed by generate-blob.sh. */
function sourceScan(fixture: string, cf: string): string {
  if (fixture.endsWith('/v11')) return readFileSync(join(ROOT, `${fixture}.scan-${cf}.txt`), 'latin1')
  return ldbScan(join(ROOT, fixture), cf)
}

const FIXTURES: [string, number, string[]][] = [
  ['test/fixtures/found/blob', CompressionType.LZ4, []],
  ['test/fixtures/blob/dbbench-none', CompressionType.ZSTD, []],
  ['test/fixtures/blob/dbbench-lz4', CompressionType.None, []],
  ['test/fixtures/blob/dbbench-zstd', CompressionType.Snappy, []],
  // format_version 5 tables, so that ldb 7.8.3 reads the output
  ['test/fixtures/blob/v11', CompressionType.Zlib, ['--format-version', '5']],
  ['test/fixtures/legacy/v7-fv01', CompressionType.ZSTD, []],
  // half of the oldest blob file's records garbage (the MANIFEST counts them)
  ['test/fixtures/blob/garbage', CompressionType.LZ4, []],
]

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))(
  'rewrite DB --advice: blob files under the advised blob_compression_type',
  () => {
    it.each(FIXTURES)('%s, blobs to type %i: ldb 7.8.3 reads every value from the new blob files, equal to the source', (fixture, type, flags) => {
      const dir = join(ROOT, fixture)
      const advise = sstkit(['advise', dir, '--json'])
      // v7-fv01's format_version 0 and 1 tables are findings for advise (exit 1), its JSON written all the same.
      expect([0, 1], advise.stderr).toContain(advise.status)
      const advice = JSON.parse(advise.stdout)
      const source = openDatabase(dir)
      const blobFamilies = source.columnFamilies.filter((c) => c.blobFiles.length > 0)
      expect(blobFamilies.length).toBeGreaterThan(0)
      // advise's own blob advice, its type set to one the files are not in.
      advice.blobs = blobFamilies.map((cf) => ({
        ...(advice.blobs ?? []).find((b: { columnFamily: string }) => b.columnFamily === cf.name),
        columnFamily: cf.name,
        recommended: OPTION_NAMES[type],
      }))
      const adviceFile = join(work, `advice${n++}.json`)
      writeFileSync(adviceFile, JSON.stringify(advice))
      const out = join(work, `out${n++}`)
      const r = sstkit(['rewrite', dir, '-o', out, '--advice', adviceFile, ...flags])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/blob file\(s\) written again under the advised blob_compression_type/)
      expect(r.stderr).toMatch(/every blob index of its tables moved to the new offsets and sizes/)

      const written = openDatabase(out)
      const manifest = readdirSync(out).find((f) => f.startsWith('MANIFEST-'))!
      const dump = spawnSync(LDB!, ['manifest_dump', '--verbose', '--hex', `--path=${join(out, manifest)}`], {
        encoding: 'latin1',
        maxBuffer: 64 * 1024 * 1024,
      })
      expect(dump.status, dump.stderr).toBe(0)
      for (const cf of blobFamilies) {
        const theirs = written.columnFamilies.find((c) => c.name === cf.name)!
        for (const b of cf.blobFiles) {
          const w = theirs.blobFiles.find((x) => x.blobFileNumber === b.blobFileNumber)!
          const bytes = readFileSync(w.path)
          expect(decodeBlobFileHeader(bytes.subarray(0, 30)).compression).toBe(type)
          expect(decodeBlobFileHeader(readFileSync(b.path).subarray(0, 30)).compression).not.toBe(type)
          expect(w.totalBlobCount).toBe(b.totalBlobCount)
          // The garbage: as many records, in their new bytes (the records no table of the output points at).
          expect(w.garbageBlobCount).toBe(b.garbageBlobCount)
          expect(w.garbageBlobBytes).toBe(unreferencedBytes(written, w.path, w.blobFileNumber))
          if (b.garbageBlobCount > 0) expect(w.garbageBlobBytes).toBeGreaterThan(0)
          expect(w.totalBlobBytes).toBe(statSync(w.path).size - 62)
          // ldb reads the same totals from the MANIFEST.
          expect(dump.stdout).toContain(`blob_file_number: ${b.blobFileNumber} total_blob_count: ${b.totalBlobCount} total_blob_bytes: ${w.totalBlobBytes} `)
        }
      }
      for (const cf of source.columnFamilies) {
        const want = sourceScan(fixture, cf.name)
        expect(want.length).toBeGreaterThan(0)
        expect(ldbScan(out, cf.name)).toBe(want)
      }
      expect(
        parseManifestDump(dump.stdout)
          .columnFamilies.map((c) => c.name)
          .sort(),
      ).toEqual(source.columnFamilies.map((c) => c.name).sort())
      if (rocksdbJs) {
        // RocksDB 11.8.1 reads the same entries (values resolved from the blob files).
        for (const cf of blobFamilies) {
          const want = sourceScan(fixture, cf.name)
            .split('\n')
            .filter(Boolean)
            .map((line) => {
              const [k, v] = line.split(' : ')
              return { key: k.slice(2).toLowerCase(), value: v.slice(2).toLowerCase() }
            })
          const db = new Rocks(copy(out), { name: cf.name })
          try {
            expect(db.entries()).toEqual(want)
          } finally {
            db.close()
          }
        }
      }
    })

    it('blob files already in the advised type are copied as they are, byte for byte', () => {
      const dir = join(ROOT, 'test/fixtures/found/blob')
      const advise = sstkit(['advise', dir, '--json'])
      const advice = JSON.parse(advise.stdout)
      advice.blobs = [{ columnFamily: 'default', recommended: 'kZSTD' }]
      const adviceFile = join(work, `advice${n++}.json`)
      writeFileSync(adviceFile, JSON.stringify(advice))
      const out = join(work, `out${n++}`)
      const r = sstkit(['rewrite', dir, '-o', out, '--advice', adviceFile])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stderr).toContain('column family "default": 2 blob file(s) already in kZSTD, copied as they are')
      for (const f of ['000011.blob', '000013.blob']) expect(readFileSync(join(out, f)).equals(readFileSync(join(dir, f)))).toBe(true)
    })
  },
)
