import { describe, expect, it } from 'vitest'
import { type ByteSource, FileByteSource, openTable, parseInternalKey } from '../../src/index.js'
import { fixturePath } from '../helpers.js'

/** Counts positional reads, to prove seeks go through the index. */
class CountingSource implements ByteSource {
  reads: { offset: number; length: number }[] = []
  constructor(private readonly inner: FileByteSource) {}
  get name() {
    return this.inner.name
  }
  get size() {
    return this.inner.size
  }
  read(offset: number, length: number): Uint8Array {
    this.reads.push({ offset, length })
    return this.inner.read(offset, length)
  }
  close() {
    this.inner.close()
  }
}

const text = (b: Uint8Array) => Buffer.from(b).toString('latin1')

describe('openTable', () => {
  it('tallies the data blocks it reads as stored: count, bytes on disk, compressed, types in order of first use', () => {
    const t = openTable(fixturePath('fv1-lz4'))
    const tally = { blocks: 0, storedBytes: 0, compressed: 0, types: [] as number[] }
    const handles = [...t.dataHandles()]
    for (const h of handles) t.readDataBlock(h, { tally })
    t.close()
    // 9 blocks, one stored raw (LZ4 is type 4), each with its 5-byte trailer.
    expect(tally).toEqual({ blocks: 9, storedBytes: handles.reduce((a, h) => a + h.size + 5, 0), compressed: 8, types: [4, 0] })
  })

  it('gives typed footer and properties', () => {
    const t = openTable(fixturePath('fv5-zstd'))
    expect(t.footer.formatVersion).toBe(5)
    expect(t.properties.known.get('rocksdb.compression')).toBe('ZSTD')
    expect(t.properties.known.get('rocksdb.num.entries')).toBe(180)
    t.close()
  })

  it('finds the index through the metaindex for format_version 7', () => {
    const t = openTable(fixturePath('v11-fv7-zstd'))
    expect(t.footer.indexHandle).toBeNull()
    expect(t.metaBlock('rocksdb.index')).toEqual(t.indexHandle)
    t.close()
  })
})

describe.each(['fv5-none', 'index-partitioned', 'index-first-key', 'index-hash', 'index-restart4', 'fv2-crc32c-snappy', 'entry-types'])(
  'seek on %s',
  (name) => {
    const all: { key: string; seq: number | bigint }[] = []
    const t0 = openTable(fixturePath(name))
    const it0 = t0.iterator()
    for (it0.seekToFirst(); it0.valid; it0.next()) {
      const p = parseInternalKey(it0.key)
      all.push({ key: text(p.userKey), seq: p.seq })
    }
    t0.close()

    it('lands on the first entry >= target for every key and between keys', () => {
      const t = openTable(fixturePath(name))
      const it = t.iterator()
      const distinct = [...new Set(all.map((e) => e.key))]
      for (const k of distinct.filter((_, i) => i % 7 === 0)) {
        it.seek(Buffer.from(k, 'latin1'))
        expect(it.valid).toBe(true)
        expect(text(parseInternalKey(it.key).userKey)).toBe(k)
        // just after k: the next distinct key
        it.seek(Buffer.from(k + '\u0000', 'latin1'))
        const next = distinct[distinct.indexOf(k) + 1]
        if (next === undefined) expect(it.valid).toBe(false)
        else expect(text(parseInternalKey(it.key).userKey)).toBe(next)
      }
      t.close()
    })

    it('reads only the data blocks it needs (uses the index)', () => {
      const src = new CountingSource(new FileByteSource(fixturePath(name), { readahead: 0 }))
      const t = openTable(src)
      const blocks = [...t.dataBlocks()].length
      src.reads = []
      const it = t.iterator()
      it.seek(Buffer.from(all[all.length - 1].key, 'latin1'))
      expect(it.valid).toBe(true)
      const dataReads = src.reads.filter((r) => r.offset < t.indexHandle.offset).length
      expect(blocks).toBeGreaterThan(3)
      expect(dataReads).toBeLessThanOrEqual(2)
      t.close()
    })
  },
)

describe('global sequence number of an ingested file', () => {
  it('is applied to every key, as RocksDB does', () => {
    const t = openTable(fixturePath('ingested-global-seqno'))
    expect(t.globalSeqno).toBeGreaterThan(0)
    const it = t.iterator()
    const seqs = new Set<number | bigint>()
    for (it.seekToFirst(); it.valid; it.next()) seqs.add(parseInternalKey(it.key).seq)
    expect([...seqs]).toEqual([t.globalSeqno])
    expect(t.rangeTombstones().every((r) => r.seq === t.globalSeqno)).toBe(true)
    t.close()
  })
})

describe('range deletions', () => {
  it('are decoded with their end keys', () => {
    const t = openTable(fixturePath('sstfilewriter-mixed'))
    const r = t.rangeTombstones()
    expect(r.length).toBe(2)
    for (const x of r) expect(Buffer.compare(Buffer.from(x.start), Buffer.from(x.end))).toBeLessThan(0)
    t.close()
  })
})
