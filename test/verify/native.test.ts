/**
 * verify's native kernel (native/verify-kernel.c) must give exactly the
 * findings of the WebAssembly path and of the JavaScript path: on every real
 * fixture, every corrupt file, synthetic tables of each checksum type and
 * format version, and tables whose blocks were damaged with their checksums
 * fixed up (so that the kernel's own block and entry checks decide). Its
 * per-chunk summaries must equal the WebAssembly path's block by block.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ChecksumType } from '../../src/codec/checksum.js'
import { CompressionType, compressBlock, decompressBlock } from '../../src/codec/compression.js'
import { encodeVarint, writeFixed32 } from '../../src/format/coding.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { computeStoredChecksum } from '../../src/table/block-reader.js'
import { openTable } from '../../src/table/reader.js'
import { fastDataHandles, IndexWalkStop, NativeBlockChecker, NativeIndexWalk, nativeVerifyAbilities } from '../../src/verify/native.js'
import { BlockResults, VERIFY_CHECKS } from '../../src/verify/block-checker.js'
import { IndexBlockIter, type IndexEncoding, ShortenedIndexBuilder } from '../../src/format/index-block.js'
import { prng } from '../../src/util/prng.js'
import { WasmOrderChecker } from '../../src/verify/wasm.js'
import { BlockBuilder, decodeBlockLayout } from '../../src/format/block.js'
import { BlockSummarizer, type PackedSummaries } from '../../src/verify/parallel.js'
import { plainWriterOptions, type WriterDictMode } from '../../src/table/writer.js'
import { BAD, fixturePath, fixtures } from '../helpers.js'
import { damagedCopy, writeSyntheticTableWith } from '../synthetic.js'
import { verifyThreeWays } from './paths.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-verify-native-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const enc = (s: string) => new TextEncoder().encode(s)

const threeWays = verifyThreeWays

/** Each block's summary (entries, or -1: check it again) with its keys, from PackedSummaries. */
function unpacked(s: PackedSummaries): { entries: number; first: string; last: string }[] {
  const out = []
  for (let at = 0; at < s.meta.length; at += 5) {
    const key = (o: number, n: number) => Buffer.from(s.keys.subarray(o, o + n)).toString('hex')
    const entries = s.meta[at]
    out.push(
      entries > 0 ? { entries, first: key(s.meta[at + 1], s.meta[at + 2]), last: key(s.meta[at + 3], s.meta[at + 4]) } : { entries, first: '', last: '' },
    )
  }
  return out
}

/** The chunk path (what workers run): the kernel's summaries equal the WebAssembly path's, block by block. */
function sameChunkSummaries(path: string): void {
  const t = openTable(path, { verifyChecksums: false })
  try {
    const handles: number[] = []
    for (const r of t.dataBlocks()) handles.push(r.handle.offset, r.handle.size)
    const withNative = BlockSummarizer.create(t, true)!
    const wasmOnly = BlockSummarizer.create(t, false)!
    // Chunks of up to 37 blocks, as the parallel path hands them out (odd, so chunks end mid-file).
    for (let from = 0; from < handles.length; from += 74) {
      const chunk = Float64Array.from(handles.slice(from, from + 74))
      expect(unpacked(withNative.summarize(chunk))).toEqual(unpacked(wasmOnly.summarize(chunk)))
    }
  } finally {
    t.close()
  }
}

const ordered = (n: number, seed = 0) =>
  Array.from({ length: n }, (_, i) => {
    const user = enc(`key${String(i).padStart(6, '0')}${'x'.repeat((i * 7 + seed) % 23)}`)
    const type = i % 11 === 0 ? ValueType.Deletion : i % 7 === 0 ? ValueType.Merge : ValueType.Value
    return [encodeInternalKey(user, 1_000_000 - i, type), enc(`value ${i} `.repeat(1 + (i % 9)))] as [Uint8Array, Uint8Array]
  })

interface Kind {
  compression: number
  checksum: number
  formatVersion: number
  /** A dictionary for the data blocks (ZSTD, LZ4): built this way, of up to maxDictBytes. */
  dict?: WriterDictMode
  maxDictBytes?: number
}

function writeTable(name: string, entries: [Uint8Array, Uint8Array][], o: Kind): string {
  const dict = o.dict ? { dict: o.dict, maxDictBytes: o.maxDictBytes ?? 4096, trainBytes: 64 * 1024 } : {}
  const options = plainWriterOptions({
    compressionType: o.compression,
    checksumType: o.checksum,
    formatVersion: o.formatVersion,
    blockSize: 1024,
    restartInterval: 4,
    ...dict,
  })
  return writeSyntheticTableWith(join(dir, `synthetic-${name}.sst`), entries, options)
}

/** A copy of `path` with `count` blocks damaged, their checksums fixed up (test/synthetic.ts damagedCopy). */
function damaged(path: string, name: string, seed: number, count: number): string {
  return damagedCopy(path, join(dir, `synthetic-${name}.sst`), seed, count)
}

describe('native verify kernel, one block at a time, against the WebAssembly check', () => {
  const ik = (user: string | Uint8Array, seq: number, type: number = ValueType.Value) =>
    encodeInternalKey(typeof user === 'string' ? enc(user) : user, seq, type)
  const long = 'L'.repeat(300)
  const checksum = { checksumType: ChecksumType.XXH3, formatVersion: 5, baseContextChecksum: 0 }

  /** One block holding `keys` (restart interval 4) through the kernel and through WasmOrderChecker: both results. */
  const both = (keys: Uint8Array[]) => {
    const b = new BlockBuilder(4)
    for (const k of keys) b.add(k, enc('v'))
    const block = b.finish()
    const c = WasmOrderChecker.create()!
    const layout = decodeBlockLayout(block, 0)
    const n = c.check(block, layout.entriesEnd, layout.numRestarts, null)
    const wasm = { n, first: n > 0 ? Buffer.from(c.firstKey()) : null, last: n > 0 ? Buffer.from(c.lastKey()) : null }
    const src = new Uint8Array(block.length + 5)
    src.set(block)
    src[block.length] = CompressionType.None
    writeFixed32(src, block.length + 1, computeStoredChecksum(checksum, src.subarray(0, block.length + 1), 0))
    const r = new BlockResults(16)
    const meta = r.reset(1)
    const k = NativeBlockChecker.create(VERIFY_CHECKS, { checksum, footerOffset: src.length, maxBlockBytes: 1 << 20 })!
    k.check(src, src.length, 0, Float64Array.of(0, block.length), r)
    const key = (o: number, len: number) => Buffer.from(r.keys.subarray(o, o + len))
    const native = { n: meta[0], first: meta[0] > 0 ? key(meta[1], meta[2]) : null, last: meta[0] > 0 ? key(meta[3], meta[4]) : null }
    return { wasm, native }
  }

  it.each([
    ['prefixes first', ['a', 'ab', 'abc', 'abcd', 'abd', 'b'].map((u, i) => ik(u, 50 - i)), 6],
    ['versions newest first, sharing trailer bytes', [0x0102030405, 0x0102030404, 0x0102030304, 0x0102020304].map((s) => ik('key', s)), 4],
    ['long keys (the keys buffer grows)', [`${long}a`, `${long}ab`, `${long}b`, `${long}b${long}`, `${long}c`].map((u) => ik(u, 7)), 5],
    ['an empty user key first', [ik('', 9), ik('a', 9)], 2],
    ['every type', [1, 2, 3, 4, 5, 7].map((t, i) => ik(`k${i}`, 9, t)), 6],
    ['a longer key before its prefix', ['a', 'abc', 'ab'].map((u, i) => ik(u, 50 - i)), -1],
    ['an older version first, sharing 7 trailer bytes', [ik('key', 0x0102030404), ik('key', 0x0102030405)], -1],
    ['equal keys', [ik('key', 5), ik('key', 5)], -1],
    ['long keys out of order', [`${long}b`, `${long}a${long}`].map((u) => ik(u, 7)), -1],
    ['a key shorter than its 8-byte trailer', [ik('a', 1), enc('short'), ik('b', 1)], -1],
    ['a 7-byte first key', [enc('1234567'), ik('b', 1)], -1],
  ])('%s', (_name, keys, expected) => {
    const { wasm, native } = both(keys)
    expect(native).toEqual(wasm)
    expect(native.n).toBe(expected)
  })
})

/** The kernel's own answer for each data block of a clean table (an entry count, REDO or NOT_HANDLED), straight from NativeBlockChecker. */
function kernelCodes(path: string): number[] {
  const t = openTable(path, { verifyChecksums: false })
  try {
    const bytes = new Uint8Array(readFileSync(path))
    const handles = Float64Array.from([...t.dataBlocks()].flatMap((r) => [r.handle.offset, r.handle.size]))
    const r = new BlockResults(1024)
    r.reset(handles.length / 2)
    const facts = { checksum: t.checksum, footerOffset: t.footer.offset, maxBlockBytes: t.maxBlockBytes, dictionary: t.dictionary() ?? undefined }
    const k = NativeBlockChecker.create(VERIFY_CHECKS, facts)!
    k.check(bytes, bytes.length, 0, handles, r)
    return Array.from({ length: handles.length / 2 }, (_, b) => r.code(b))
  } finally {
    t.close()
  }
}

describe('native verify kernel, a ZSTD or LZ4 block yielding fewer bytes than it declares', () => {
  const checksum = { checksumType: ChecksumType.CRC32c, formatVersion: 5, baseContextChecksum: 0 }
  const b = new BlockBuilder(4)
  for (let i = 0; i < 100; i++) b.add(encodeInternalKey(enc(`key${1000 + i}`), 9, ValueType.Value), enc(`value ${i}`))
  const contents = b.finish()
  const prefix = contents.subarray(0, contents.length - 100)
  /**
   * A zstd frame of one raw block, without a content size in its header (RocksDB's have one;
   * zstd does not need it). Raw, so that decoding writes nothing past what it yields.
   */
  const zstdFrame = (raw: Uint8Array) => {
    const header = (raw.length << 3) | 1 // last block, raw
    // magic, frame header descriptor (no content size, not single-segment), window descriptor (128 KiB)
    return Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38, header & 0xff, (header >> 8) & 0xff, header >> 16, ...raw])
  }
  const framings: [string, number, (raw: Uint8Array) => Uint8Array][] = [
    ['ZSTD', CompressionType.ZSTD, zstdFrame],
    ['LZ4', CompressionType.LZ4, (raw) => compressBlock(CompressionType.LZ4, raw, { formatVersion: 5 }).subarray(encodeVarint(raw.length).length)],
  ]

  it.each(framings)('%s: checked again, though the space it declares still holds a valid block decoded before', (_name, type, compress) => {
    // Block 1: the whole contents, declared right. Block 2: a prefix of them, declaring the whole size.
    const payloads = [
      [...encodeVarint(contents.length), ...compress(contents)],
      [...encodeVarint(contents.length), ...compress(prefix)],
    ].map((p) => Uint8Array.from(p))
    const src = new Uint8Array(payloads.reduce((n, p) => n + p.length + 5, 0))
    const handles: number[] = []
    let at = 0
    for (const p of payloads) {
      src.set(p, at)
      src[at + p.length] = type
      writeFixed32(src, at + p.length + 1, computeStoredChecksum(checksum, src.subarray(at, at + p.length + 1), at))
      handles.push(at, p.length)
      at += p.length + 5
    }
    // the JavaScript path: the first is fine, the second a size mismatch
    expect(decompressBlock(type, payloads[0], { formatVersion: 5 })).toEqual(contents)
    expect(() => decompressBlock(type, payloads[1], { formatVersion: 5 })).toThrow(/declared|larger than/)
    const r = new BlockResults(1024)
    r.reset(2)
    const k = NativeBlockChecker.create(VERIFY_CHECKS, { checksum, footerOffset: src.length, maxBlockBytes: 1 << 20 })!
    k.check(src, src.length, 0, Float64Array.from(handles), r)
    expect([r.code(0), r.code(1)]).toEqual([100, -1])
  })
})

describe('native verify kernel', () => {
  it('is built and loads here, with libxxhash, libsnappy, libzstd, liblz4 and CRC32C instructions, so the tests below exercise it', () => {
    expect(nativeVerifyAbilities()).toEqual({ xxh3: true, snappy: true, crc32c: true, zstd: true, lz4: true })
  })

  it.each(fixtures().map((f) => f.name))('real fixture %s: the same findings, and the same summaries per chunk', (name) => {
    const r = threeWays(fixturePath(name))
    expect('ok' in r && r.ok).toBe(true)
    if ('ok' in r && r.orderChecked && r.comparator === 'leveldb.BytewiseComparator' && r.keyFormat === 'internal') sameChunkSummaries(fixturePath(name))
  })

  it.each(readdirSync(BAD).filter((f) => f.endsWith('.sst')))('bad/%s: the same findings', (name) => {
    threeWays(join(BAD, name))
  })

  // RocksDB's own ZSTD and LZ4 tables: legacy LZ4 framing (format_version 0 and 1), raw, finalized and trained dictionaries.
  const realFramed = fixtures()
    .filter((f) => /^(zstd|lz4|lz4hc)$/.test(f.compression))
    .map((f) => f.name)

  it.each(realFramed)('real fixture %s: the kernel checks every data block itself', (name) => {
    expect(kernelCodes(fixturePath(name)).filter((n) => n <= 0)).toEqual([])
  })

  it.each(realFramed)('real fixture %s, damaged blocks with valid checksums: the same findings', (name) => {
    let findings = 0
    for (let seed = 1; seed <= 20; seed++) {
      const path = damaged(fixturePath(name), `real-${name}-${seed}`, seed, 1 + (seed % 2))
      const r = threeWays(path)
      if ('ok' in r && !r.ok) findings++
    }
    expect(findings).toBeGreaterThan(5)
  })

  const kinds: Kind[] = [
    { compression: CompressionType.None, checksum: ChecksumType.CRC32c, formatVersion: 5 },
    { compression: CompressionType.Snappy, checksum: ChecksumType.CRC32c, formatVersion: 2 },
    { compression: CompressionType.Snappy, checksum: ChecksumType.XXH3, formatVersion: 6 },
    { compression: CompressionType.None, checksum: ChecksumType.xxHash, formatVersion: 6 },
    { compression: CompressionType.Snappy, checksum: ChecksumType.xxHash64, formatVersion: 5 },
    { compression: CompressionType.ZSTD, checksum: ChecksumType.XXH3, formatVersion: 6 },
    { compression: CompressionType.ZSTD, checksum: ChecksumType.CRC32c, formatVersion: 2, dict: 'raw', maxDictBytes: 8192 },
    { compression: CompressionType.ZSTD, checksum: ChecksumType.XXH3, formatVersion: 5, dict: 'finalize', maxDictBytes: 4096 },
    { compression: CompressionType.ZSTDNotFinal, checksum: ChecksumType.xxHash64, formatVersion: 3 },
    { compression: CompressionType.LZ4, checksum: ChecksumType.xxHash64, formatVersion: 3 },
    { compression: CompressionType.LZ4, checksum: ChecksumType.XXH3, formatVersion: 6, dict: 'raw', maxDictBytes: 8192 },
    { compression: CompressionType.LZ4HC, checksum: ChecksumType.xxHash, formatVersion: 4 },
    { compression: CompressionType.LZ4HC, checksum: ChecksumType.CRC32c, formatVersion: 2, dict: 'raw', maxDictBytes: 2048 },
  ]
  const name = (k: Kind) => `${k.compression}-${k.checksum}-${k.formatVersion}${k.dict ? `-${k.dict}` : ''}`

  it.each(kinds)('clean synthetic table (compression $compression, checksum $checksum, format_version $formatVersion, dictionary $dict)', (kind) => {
    const path = writeTable(`clean-${name(kind)}`, ordered(3000), kind)
    if (kind.dict) {
      const t = openTable(path)
      expect(t.dictionary()?.length).toBeGreaterThan(0)
      t.close()
    }
    const r = threeWays(path)
    expect('ok' in r && r.ok && r.entries).toBe(3000)
    sameChunkSummaries(path)
    // every block checked by the kernel itself, none left to the WebAssembly path
    expect(kernelCodes(path).filter((n) => n <= 0)).toEqual([])
  })

  it.each(kinds)(
    'damaged blocks with valid checksums (compression $compression, checksum $checksum, format_version $formatVersion, dictionary $dict)',
    (kind) => {
      const clean = writeTable(`fuzz-${name(kind)}`, ordered(1500, kind.checksum), kind)
      let findings = 0
      for (let seed = 1; seed <= 60; seed++) {
        const path = damaged(clean, `fuzz-${name(kind)}-${seed}`, seed, 1 + (seed % 3))
        const r = threeWays(path)
        if ('ok' in r && !r.ok) findings++
        sameChunkSummaries(path)
      }
      // the damage is found (a changed value byte may leave a table valid, so not always)
      expect(findings).toBeGreaterThan(30)
    },
  )

  it.each([
    ['equal internal keys', (e: [Uint8Array, Uint8Array][]) => e.splice(300, 0, e[300])],
    [
      'an older version first',
      (e: [Uint8Array, Uint8Array][]) => e.splice(300, 0, [encodeInternalKey(e[300][0].subarray(0, -8), 5, ValueType.Value), enc('old')]),
    ],
    ['keys swapped', (e: [Uint8Array, Uint8Array][]) => e.splice(300, 2, e[301], e[300])],
  ])('%s: the same findings', (_name, change) => {
    for (const kind of kinds.slice(0, 3)) {
      const entries = ordered(1000)
      change(entries)
      const r = threeWays(writeTable(`changed-${kind.compression}-${kind.checksum}`, entries, kind))
      expect('ok' in r && r.ok).toBe(false)
    }
  })

  it('a checksum that does not match: the block is checked again, and reported as the JavaScript path reports it', () => {
    const clean = writeTable('mismatch', ordered(1000), kinds[2])
    const bytes = new Uint8Array(readFileSync(clean))
    const t = openTable(clean, { verifyChecksums: false })
    const h = [...t.dataBlocks()][5].handle
    t.close()
    bytes[h.offset + 3] ^= 0x40
    const path = join(dir, 'synthetic-mismatch-damaged.sst')
    const fd = openSync(path, 'w')
    writeSync(fd, bytes)
    closeSync(fd)
    const r = threeWays(path)
    // first the mismatch, then what decoding the damaged Snappy block finds
    expect('ok' in r && r.problems.map((p) => [p.offset, p.message.split(':')[0]])[0]).toEqual([h.offset, 'data block checksum mismatch'])
  })
})

describe('native index walk = IndexBlockIter', () => {
  type Entry = { offset: number; size: number; key: string }
  /** What IndexBlockIter yields, and whether it threw (after the entries it yielded). */
  const javascript = (block: Uint8Array, encoding: IndexEncoding) => {
    const entries: Entry[] = []
    try {
      const it = new IndexBlockIter(block, 0, encoding)
      for (it.seekToFirst(); it.valid; it.next()) entries.push({ offset: it.handle.offset, size: it.handle.size, key: Buffer.from(it.key).toString('hex') })
      return { entries, threw: false }
    } catch {
      return { entries, threw: true }
    }
  }
  /** The first entry by IndexBlockIter, the rest by the kernel (in chunks of `max` entries): the entries and why it stopped. */
  const native = (block: Uint8Array, encoding: IndexEncoding, max: number) => {
    const it = new IndexBlockIter(block, 0, encoding)
    it.seekToFirst()
    if (!it.valid) return { entries: [] as Entry[], stop: IndexWalkStop.End }
    const first = { next: it.iter.valueEnd, offset: it.handle.offset, size: it.handle.size, key: it.key.slice() }
    const walk = NativeIndexWalk.create(block, it.iter.layout, encoding.valueIsDeltaEncoded, first)
    if (!walk) throw new Error('no kernel')
    const entries: Entry[] = [{ offset: first.offset, size: first.size, key: Buffer.from(first.key).toString('hex') }]
    const handles = new Float64Array(2 * max)
    const keyEnds = new Int32Array(max)
    let keys = new Uint8Array(8)
    for (;;) {
      const n = walk.next(max, Number.MAX_SAFE_INTEGER, handles, keys, 0, keyEnds)
      for (let b = 0; b < n; b++) {
        const key = Buffer.from(keys.subarray(b === 0 ? 0 : keyEnds[b - 1], keyEnds[b])).toString('hex')
        entries.push({ offset: handles[2 * b], size: handles[2 * b + 1], key })
      }
      if (walk.stop !== IndexWalkStop.Limit) return { entries, stop: walk.stop, walked: walk.entries }
      if (n === 0) keys = new Uint8Array(2 * keys.length) // the keys did not fit
    }
  }

  const ik = (i: number) => encodeInternalKey(enc(`key${String(i * 7).padStart(8, '0')}x`), 1000 + i, ValueType.Value)
  const indexBlock = (deltaValues: boolean, restartInterval: number, userKeys: boolean, blocks: number) => {
    const b = new ShortenedIndexBuilder({ userKeys, deltaValues, restartInterval })
    let offset = 0
    for (let i = 0; i < blocks; i++) {
      const size = 3000 + ((i * 7919) % 2000)
      b.add(ik(2 * i), i + 1 < blocks ? ik(2 * i + 1) : null, { offset, size })
      offset += size + 5
    }
    return { block: b.finish(), encoding: { keyIsUserKey: b.keysAreUserKeys, valueIsDeltaEncoded: deltaValues, hasFirstKey: false } as IndexEncoding }
  }
  const shapes = [
    [false, 1, false],
    [true, 1, false],
    [true, 16, true],
    [false, 4, true],
    [true, 3, false],
  ] as const

  it.each(shapes)('clean index blocks: delta values %s, restart interval %i, user keys %s', (delta, interval, userKeys) => {
    const { block, encoding } = indexBlock(delta, interval, userKeys, 500)
    const js = javascript(block, encoding)
    expect(js.threw).toBe(false)
    for (const max of [1, 7, 2048]) {
      const r = native(block, encoding, max)
      expect(r.stop).toBe(IndexWalkStop.End)
      expect(r.entries).toEqual(js.entries)
    }
  })

  it.each(shapes)(
    'damaged index blocks: what the kernel yields, IndexBlockIter yields, and it stops no later (delta %s, interval %i, user keys %s)',
    (delta, interval, userKeys) => {
      const { block: clean, encoding } = indexBlock(delta, interval, userKeys, 300)
      const random = prng(interval * 31 + (delta ? 1 : 0))
      let unusual = 0
      let compared = 0
      for (let round = 0; round < 300; round++) {
        const block = clean.slice()
        const entriesEnd = block.length - 4 - 4 * (block[block.length - 4] | (block[block.length - 3] << 8))
        for (let k = 0; k < 1 + (round % 3); k++) {
          const at = Math.floor(random() * entriesEnd)
          block[at] = random() < 0.5 ? block[at] ^ (1 << Math.floor(random() * 8)) : Math.floor(random() * 256)
        }
        const js = javascript(block, encoding)
        let r: ReturnType<typeof native>
        try {
          r = native(block, encoding, 1 + (round % 50))
        } catch {
          continue // the first entry (decoded in JavaScript) throws: the kernel is not asked
        }
        compared++
        // never an entry JavaScript would not yield; at its end only where JavaScript ends cleanly
        expect(r.entries).toEqual(js.entries.slice(0, r.entries.length))
        if (r.stop === IndexWalkStop.End) expect(js).toEqual({ entries: r.entries, threw: false })
        else {
          unusual++
          expect(r.walked).toBe(r.entries.length)
        }
      }
      expect(compared).toBeGreaterThan(200)
      expect(unusual).toBeGreaterThan(20)
    },
  )
})

describe('fastDataHandles = Table.dataHandles', () => {
  /** The handles a walk yields, and the message it threw with (null: none). */
  const walkOf = (path: string, fast: boolean) => {
    const t = openTable(path, { verifyChecksums: false })
    const handles: [number, number][] = []
    try {
      for (const h of fast ? fastDataHandles(t) : t.dataHandles()) handles.push([h.offset, h.size])
      return { handles, error: null as string | null }
    } catch (e) {
      return { handles, error: (e as Error).message }
    } finally {
      t.close()
    }
  }

  it.each(fixtures().map((f) => f.name))('real fixture %s', (name) => {
    expect(walkOf(fixturePath(name), true)).toEqual(walkOf(fixturePath(name), false))
  })

  it('index blocks damaged (checksum fixed up): the same handles, and the same error where the walk fails', () => {
    const entries = ordered(1500)
    const clean = writeTable('index-walk', entries, { compression: CompressionType.None, checksum: ChecksumType.XXH3, formatVersion: 5 })
    const t = openTable(clean, { verifyChecksums: false })
    const index = t.indexHandle
    const ctx = t.checksum
    t.close()
    const random = prng(7)
    let failed = 0
    for (let round = 0; round < 60; round++) {
      const bytes = new Uint8Array(readFileSync(clean))
      const at = index.offset + Math.floor(random() * (index.size - 8))
      bytes[at] = random() < 0.5 ? bytes[at] ^ (1 << Math.floor(random() * 8)) : Math.floor(random() * 256)
      writeFixed32(bytes, index.offset + index.size + 1, computeStoredChecksum(ctx, bytes.subarray(index.offset, index.offset + index.size + 1), index.offset))
      const path = join(dir, `synthetic-index-walk-${round}.sst`)
      writeSync(openSync(path, 'w'), bytes)
      let js: ReturnType<typeof walkOf>
      try {
        js = walkOf(path, false)
      } catch {
        continue // the table does not open
      }
      const fast = walkOf(path, true)
      expect(fast).toEqual(js)
      if (js.error) failed++
    }
    expect(failed).toBeGreaterThan(5)
  })
})
