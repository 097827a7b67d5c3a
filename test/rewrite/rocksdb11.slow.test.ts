/**
 * Proof by real RocksDB 11.8.1 (npm `@harperfast/rocksdb-js-linux-x64-glibc@2.10.0`) that
 * rewritten format_version 6 and 7 files are readable: sst_dump 7.8.3 cannot open them.
 *
 * The binding has no ingestion API (its `Database` exposes open/put/remove/flush/compact/...,
 * not `IngestExternalFile`, although the symbol is linked in), so the rewritten files go into a
 * database the binding itself wrote:
 *
 *   1. RocksDB 11 writes a DB with two L0 files (puts, some values large enough for blob files;
 *      then overwrites and deletions, including deletions of keys that never existed), and
 *      every live entry is read back through its iterator: the expected contents.
 *   2. Each SST is replaced by `rewriteFile(sst)` under the same file number.
 *   3. The MANIFEST entry of each file is updated where a rewrite changes what RocksDB checks
 *      on open: the file size ("Sst file size mismatch"), the tail size, and the unique ID,
 *      which RocksDB recomputes from the file's properties (db_id, the fresh session ID that
 *      rewrite writes, the original file number) and compares with the MANIFEST's
 *      (verify_sst_unique_id_in_manifest, on by default). The ID written is computed as
 *      RocksDB computes it, so the check stays active.
 *   4. RocksDB 11 opens the DB (paranoid checks on, block cache off), iterates every entry
 *      (block checksums verified) and must return exactly the expected contents; its
 *      `rocksdb.aggregated-table-properties` and `rocksdb.sstables` must show the data block
 *      count, entries, data size and file sizes we wrote; then it compacts both files into a
 *      new one (reading every entry of ours through compaction) and the contents are read
 *      again.
 *
 * Controls show the checks are real: an unpatched MANIFEST is refused (size mismatch), a
 * MANIFEST with the old unique ID is refused (unique ID mismatch), and a flipped byte in a
 * rewritten data block is reported as corruption.
 */
import { xxh3 } from '@node-rs/xxhash'
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTable, rewriteFile, type RewriteOptions, type RewriteResult, defaultRewriteOptions } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { decodeBlockLayout } from '../../src/format/block.js'
import { internalUniqueId, newFiles, patchManifest } from './manifest.js'
import { toolPresent } from '../helpers.js'
import { Rocks, rocksdbJs, type Entry } from './rocksdb-js.js'

const C = CompressionType

function options(o: Partial<RewriteOptions>): RewriteOptions {
  return defaultRewriteOptions({ maxDictBufferBytes: 0, force: true, ...o })
}

const CASES: [string, Partial<RewriteOptions>][] = []
for (const fv of [6, 7]) {
  CASES.push(
    [`fv${fv} none`, { formatVersion: fv, compressionType: C.None }],
    [`fv${fv} lz4`, { formatVersion: fv, compressionType: C.LZ4 }],
    [`fv${fv} snappy`, { formatVersion: fv, compressionType: C.Snappy }],
    [`fv${fv} zstd`, { formatVersion: fv }],
    [`fv${fv} zstd level 19, frame checksum`, { formatVersion: fv, level: 19, zstdChecksum: true }],
    [`fv${fv} zstd, trained dictionary`, { formatVersion: fv, dict: 'train' }],
    [`fv${fv} zstd, finalized dictionary`, { formatVersion: fv, dict: 'finalize' }],
    [`fv${fv} zstd, raw dictionary, frame checksum`, { formatVersion: fv, dict: 'raw', zstdChecksum: true }],
    [`fv${fv} zstd, partitioned index, 1 KiB blocks`, { formatVersion: fv, index: 'partitioned', blockSize: 1024, metadataBlockSize: 512 }],
  )
}
CASES.push(
  ['fv6 lz4, xxHash64 checksums', { formatVersion: 6, compressionType: C.LZ4, checksumType: 3 }],
  ['fv7 zstd, CRC32c checksums', { formatVersion: 7, checksumType: 1 }],
  ['fv5 zstd (older format, same reader)', { formatVersion: 5 }],
  ['fv7 lz4, keeping the block boundaries (--keep-blocks)', { formatVersion: 7, compressionType: C.LZ4, keepBlocks: true }],
  ['fv7 zstd, values after the keys (separate_key_value_in_data_block)', { formatVersion: 7, separateKeyValue: true }],
  ['fv7 none, values after the keys, restart interval 3', { formatVersion: 7, compressionType: C.None, separateKeyValue: true, restartInterval: 3 }],
  ['fv5 lz4, values after the keys, 1 KiB blocks', { formatVersion: 5, compressionType: C.LZ4, separateKeyValue: true, blockSize: 1024 }],
)

describe.runIf(toolPresent('@harperfast/rocksdb-js-linux-x64-glibc', rocksdbJs !== null, 'npm run rocksdb11, on linux x64'))(
  'RocksDB 11.8.1 opens a DB holding rewritten fv6/fv7 files',
  () => {
    let work: string
    let template: string
    let expected: Entry[]

    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'sstkit-rocks11-'))
      template = join(work, 'template')
      const db = new Rocks(template)
      const key = (i: number) => Buffer.from(`user${String(i).padStart(5, '0')}`)
      const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel']
      for (let i = 0; i < 4000; i++) {
        // Every 400th value is 3000 bytes: RocksDB 11 puts it into a blob file and the SST holds
        // a blob index (type 17), which the rewrite must carry over verbatim.
        const v = i % 400 === 7 ? Buffer.alloc(3000, i & 0xff) : Buffer.from(`${words[i % 8]} ${i} ${words[(i * 7) % 8]}`.repeat(1 + (i % 5)))
        db.put(key(i), v)
      }
      db.flush()
      for (let i = 0; i < 4000; i += 3) db.put(key(i), Buffer.from(`second version of ${i}`))
      for (let i = 1; i < 4000; i += 5) db.remove(key(i))
      for (let i = 0; i < 50; i++) db.remove(Buffer.from(`zz-never-written-${i}`))
      db.put(Buffer.alloc(0), Buffer.from('empty key'))
      db.put(Buffer.from([0xff, 0x00, 0x80]), Buffer.alloc(0))
      db.flush()
      expected = db.entries()
      db.close()
      expect(ssts(template)).toHaveLength(2)
      expect(expected.length).toBeGreaterThan(3000)
    })

    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true })
    })

    function ssts(dir: string): string[] {
      return readdirSync(dir)
        .filter((n) => n.endsWith('.sst'))
        .sort()
    }

    function manifestPath(dir: string): string {
      return join(dir, readFileSync(join(dir, 'CURRENT'), 'utf8').trim())
    }

    /** Copy the template, rewrite every SST in place (same number), return the DB dir and the rewrite results. */
    function rewriteDb(
      name: string,
      o: Partial<RewriteOptions>,
      patch: 'all' | 'keep-unique-id' | 'none' = 'all',
    ): { dir: string; results: Map<number, RewriteResult> } {
      const dir = join(work, name.replace(/[^a-z0-9]+/gi, '-'))
      cpSync(template, dir, { recursive: true })
      let manifest: Uint8Array = readFileSync(manifestPath(dir))
      const results = new Map<number, RewriteResult>()
      for (const sst of ssts(dir)) {
        const path = join(dir, sst)
        const out = `${path}.rewritten`
        results.set(Number.parseInt(sst, 10), rewriteFile(path, out, options(o)))
        renameSync(out, path)
        const t = openTable(path)
        const k = t.properties.known
        const size = statSync(path).size
        const tailStart = k.get('rocksdb.tail.start.offset') as number
        const number = Number.parseInt(sst, 10)
        const uniqueId = internalUniqueId(
          k.get('rocksdb.creating.db.identity') as string,
          k.get('rocksdb.creating.session.identity') as string,
          BigInt(k.get('rocksdb.original.file.number') as number),
          xxh3.xxh128,
        )
        t.close()
        expect(typeof tailStart).toBe('number')
        if (patch === 'none') continue
        const r = patchManifest(manifest, number, { size, tailSize: size - tailStart, uniqueId: patch === 'all' ? uniqueId : undefined })
        expect(r.changed, `MANIFEST entries for file ${number}`).toBe(1)
        manifest = r.bytes
      }
      writeFileSync(manifestPath(dir), manifest)
      return { dir, results }
    }

    /** "name=value; ..." of rocksdb.aggregated-table-properties. */
    function aggregated(text: string): Map<string, string> {
      return new Map(text.split('; ').map((kv) => [kv.slice(0, kv.lastIndexOf('=')), kv.slice(kv.lastIndexOf('=') + 1)]))
    }

    it('the template DB records its files as the helpers expect', () => {
      const files = newFiles(readFileSync(manifestPath(template)))
      expect(files.map((f) => Number(f.number)).sort((a, b) => a - b)).toEqual(ssts(template).map((n) => Number.parseInt(n, 10)))
      for (const sst of ssts(template)) {
        const t = openTable(join(template, sst))
        const k = t.properties.known
        expect(t.formatVersion).toBe(7)
        const f = files.find((x) => x.number === BigInt(Number.parseInt(sst, 10)))!
        expect(f.size).toBe(BigInt(statSync(join(template, sst)).size))
        // Our unique ID computation reproduces the one RocksDB recorded.
        const recorded = f.fields.find(([tag]) => tag === 12)![1]
        const ours = internalUniqueId(
          k.get('rocksdb.creating.db.identity') as string,
          k.get('rocksdb.creating.session.identity') as string,
          BigInt(k.get('rocksdb.original.file.number') as number),
          xxh3.xxh128,
        )
        expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(recorded).toString('hex'))
        t.close()
      }
    })

    for (const [name, o] of CASES) {
      it(`${name}: every entry reads back, before and after a compaction`, () => {
        const { dir, results } = rewriteDb(name, o)
        for (const sst of ssts(dir)) {
          const t = openTable(join(dir, sst))
          expect(t.formatVersion).toBe(o.formatVersion)
          // The layout asked for is the one written: every data block's footer, and the property RocksDB reads it by.
          const separated = [...t.dataBlocks()].map((b) => decodeBlockLayout(t.readBlock(b.handle, 'data block', true), b.handle.offset).separatedKV)
          expect(new Set(separated)).toEqual(new Set([o.separateKeyValue === true]))
          expect(t.properties.known.get('rocksdb.separate.key.value.in.data.block') ?? 0).toBe(o.separateKeyValue ? 1 : 0)
          t.close()
        }
        const ours = ssts(dir)
        const db = new Rocks(dir, { noBlockCache: true })
        try {
          expect(db.entries()).toEqual(expected)
          // RocksDB's own reading of our properties blocks and file sizes.
          const sum = (f: (r: RewriteResult) => number) => [...results.values()].reduce((a, r) => a + f(r), 0)
          const p = aggregated(db.property('rocksdb.aggregated-table-properties'))
          expect(p.get('# data blocks')).toBe(String(sum((r) => r.dataBlocks)))
          expect(p.get('# entries')).toBe(String(sum((r) => r.entries + r.rangeDeletions)))
          expect(p.get('data block size')).toBe(String(sum((r) => r.dataBytes)))
          if (o.formatVersion === 7) expect(p.get('# data blocks compression rejected')).toBe(String(sum((r) => r.blocksRejected)))
          const sstables = db.property('rocksdb.sstables')
          for (const [number, r] of results) expect(sstables).toContain(` ${number}:${r.fileSize}[`)
          db.compact()
          expect(db.entries()).toEqual(expected)
        } finally {
          db.close()
        }
        // The compaction replaced our files with RocksDB's own output.
        expect(ssts(dir).filter((n) => ours.includes(n))).toEqual([])
      })
    }

    it('control: without the MANIFEST update RocksDB refuses the rewritten file (size mismatch)', () => {
      const { dir } = rewriteDb('control-size', { formatVersion: 7, compressionType: C.None }, 'none')
      expect(() => new Rocks(dir, { noBlockCache: true })).toThrow(/Sst file size mismatch/)
    })

    it('control: with the old unique ID RocksDB refuses the rewritten file (unique ID check is on)', () => {
      const { dir } = rewriteDb('control-unique-id', { formatVersion: 7 }, 'keep-unique-id')
      expect(() => new Rocks(dir, { noBlockCache: true })).toThrow(/Mismatch in unique ID/)
    })

    it('control: a flipped byte in a rewritten data block is reported by RocksDB', () => {
      const { dir } = rewriteDb('control-flip', { formatVersion: 6, compressionType: C.None })
      const path = join(dir, ssts(dir)[1])
      const bytes = readFileSync(path)
      bytes[100] ^= 0x01
      writeFileSync(path, bytes)
      const db = new Rocks(dir, { noBlockCache: true })
      try {
        expect(() => db.entries()).toThrow(/block checksum mismatch/)
      } finally {
        db.close()
      }
    })
  },
)
