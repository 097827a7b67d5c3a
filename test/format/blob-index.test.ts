import { describe, it, expect } from 'vitest'
import { decodeBlobIndex, type BlobIndex } from '../../src/format/blob-index.js'
import { encodeVarint } from '../../src/format/coding.js'
import { catchErr } from './catch-corruption.js'
import { formatBlobIndex, compressionTypeToString, DEBIAN_ROCKSDB } from '../../src/report/sst-dump-text.js'

// Synthetic byte vectors built from the layout in db/blob/blob_index.h.
function cat(...parts: (number[] | Uint8Array)[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => Array.from(p)))
}
const v = (n: number | bigint) => encodeVarint(n)

describe('decodeBlobIndex (synthetic bytes)', () => {
  it('decodes kBlob', () => {
    const b = cat([1], v(7), v(300), v(4096), [0x07])
    expect(decodeBlobIndex(b)).toEqual({ kind: 'blob', fileNumber: 7, offset: 300, size: 4096, compression: 7 })
  })

  it('decodes kBlobTTL', () => {
    const b = cat([2], v(1700000000), v(12), v(0), v(1), [0x00])
    expect(decodeBlobIndex(b)).toEqual({
      kind: 'blobTtl',
      expiration: 1700000000,
      fileNumber: 12,
      offset: 0,
      size: 1,
      compression: 0,
    })
  })

  it('decodes kInlinedTTL with the rest as the value', () => {
    const r = decodeBlobIndex(cat([0], v(99), [0x68, 0x69]))
    expect(r.kind).toBe('inlinedTtl')
    if (r.kind !== 'inlinedTtl') return
    expect(r.expiration).toBe(99)
    expect(Array.from(r.value)).toEqual([0x68, 0x69])
    // empty inline value is fine
    const e = decodeBlobIndex(cat([0], v(1)))
    expect(e.kind === 'inlinedTtl' && e.value.length).toBe(0)
  })

  it('keeps 64-bit fields exact', () => {
    const max = (1n << 64n) - 1n
    const r = decodeBlobIndex(cat([2], v(max), v(1n << 60n), v(5), v(6), [1]))
    expect(r).toMatchObject({ expiration: max, fileNumber: 1n << 60n, offset: 5, size: 6 })
  })

  it('rejects an empty value', () => {
    const e = catchErr(() => decodeBlobIndex(new Uint8Array(0), 100))
    expect(e.offset).toBe(100)
    expect(e.message).toMatch(/empty value/)
  })

  it('rejects an unknown type', () => {
    const e = catchErr(() => decodeBlobIndex(Uint8Array.of(3, 0, 0, 0, 0), 100))
    expect(e.offset).toBe(100)
    expect(e.message).toMatch(/unknown type 3/)
  })

  it('rejects a truncated expiration', () => {
    const e = catchErr(() => decodeBlobIndex(Uint8Array.of(2, 0x80), 100))
    expect(e.message).toMatch(/blob index expiration: truncated varint64/)
    expect(e.offset).toBe(102)
  })

  it('rejects truncated blob fields, naming the field', () => {
    expect(catchErr(() => decodeBlobIndex(Uint8Array.of(1), 10)).message).toMatch(/blob index file number: truncated varint64/)
    expect(catchErr(() => decodeBlobIndex(Uint8Array.of(1, 5), 10)).message).toMatch(/blob index offset: truncated/)
    const e = catchErr(() => decodeBlobIndex(Uint8Array.of(1, 5, 6), 10))
    expect(e.message).toMatch(/blob index size: truncated/)
    expect(e.offset).toBe(13)
  })

  it('rejects a missing compression byte', () => {
    const e = catchErr(() => decodeBlobIndex(Uint8Array.of(1, 5, 6, 7), 10))
    expect(e.message).toMatch(/missing the compression type byte/)
    expect(e.offset).toBe(14)
  })

  it('rejects trailing bytes after the compression byte', () => {
    const e = catchErr(() => decodeBlobIndex(Uint8Array.of(1, 5, 6, 7, 1, 0xaa, 0xbb), 10))
    expect(e.message).toMatch(/2 unexpected trailing byte/)
    expect(e.offset).toBe(15)
  })

  it('rejects an over-long varint', () => {
    const e = catchErr(() => decodeBlobIndex(cat([1], new Array(10).fill(0xff), [0x7f], v(1), v(1), [0])))
    expect(e.message).toMatch(/blob index file number: varint64/)
  })
})

describe('formatBlobIndex (BlobIndex::DebugString)', () => {
  const blob: BlobIndex = { kind: 'blob', fileNumber: 7, offset: 300, size: 4096, compression: 7 }
  it('prints blob refs', () => {
    expect(formatBlobIndex(blob)).toBe('[blob ref] file:7 offset:300 size:4096 compression: ZSTD')
    expect(formatBlobIndex({ ...blob, kind: 'blobTtl', expiration: 55 } as BlobIndex)).toBe('[blob ref] file:7 offset:300 size:4096 compression: ZSTD exp:55')
  })

  it('prints inlined values raw or hex', () => {
    const inl: BlobIndex = { kind: 'inlinedTtl', expiration: 3, value: Uint8Array.of(0x68, 0x69) }
    expect(formatBlobIndex(inl)).toBe('[inlined blob] value:hi exp:3')
    expect(formatBlobIndex(inl, { hex: true })).toBe('[inlined blob] value:6869 exp:3')
  })

  it('prints file:same for file number 0 since 11.8 only', () => {
    const same: BlobIndex = { ...blob, fileNumber: 0, compression: 0 }
    expect(formatBlobIndex(same)).toBe('[blob ref] file:same offset:300 size:4096 compression: NoCompression')
    expect(formatBlobIndex(same, { rocksdb: DEBIAN_ROCKSDB })).toBe('[blob ref] file:0 offset:300 size:4096 compression: NoCompression')
  })
})

describe('compressionTypeToString', () => {
  it('names built-in types', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 0xff].map((c) => compressionTypeToString(c))).toEqual([
      'NoCompression',
      'Snappy',
      'Zlib',
      'BZip2',
      'LZ4',
      'LZ4HC',
      'Xpress',
      'ZSTD',
      'DisableOption',
    ])
  })
  it('names unknown types by release', () => {
    expect(compressionTypeToString(0x40)).toBe('Reserved40')
    expect(compressionTypeToString(0x8a)).toBe('Custom8A')
    expect(compressionTypeToString(0x40, { rocksdb: [7, 8] })).toBe('ZSTDNotFinal')
    expect(compressionTypeToString(0x41, { rocksdb: [7, 8] })).toBe('')
    expect(compressionTypeToString(0x40, { rocksdb: [10, 2] })).toBe('')
  })
})
