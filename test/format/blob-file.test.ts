import { describe, expect, it } from 'vitest'
import { blockChecksum, ChecksumType } from '../../src/codec/checksum.js'
import {
  BLOB_FILE_MAGIC,
  BLOB_FOOTER_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_RECORD_HEADER_SIZE,
  checkBlobCrc,
  decodeBlobFileFooter,
  decodeBlobFileHeader,
  decodeBlobRecordHeader,
  encodeBlobFileFooter,
  encodeBlobFileHeader,
  encodeBlobRecord,
  rangeText,
  startsWithBlobMagic,
} from '../../src/format/blob-file.js'
import { CorruptionError, NotSupportedError } from '../../src/format/errors.js'

const crc = (b: Uint8Array) => blockChecksum(ChecksumType.CRC32c, b)
const bytes = (s: string) => new TextEncoder().encode(s)

describe('blob file format: encoder and decoder side by side', () => {
  it('header: 30 bytes, magic first, round trip', () => {
    const h = encodeBlobFileHeader({ columnFamilyId: 7, hasTtl: false, compression: 7, expirationRange: [0n, 0n] })
    expect(h.length).toBe(BLOB_HEADER_SIZE)
    expect(Buffer.from(h.subarray(0, 4)).toString('hex')).toBe('378f2400')
    expect(startsWithBlobMagic(h)).toBe(true)
    expect(decodeBlobFileHeader(h)).toEqual({ version: 1, columnFamilyId: 7, hasTtl: false, compression: 7, expirationRange: [0n, 0n] })
  })

  // [case, byte offset, byte value (null: cut the header to 29 bytes), error class, message]
  it.each([
    ['short', 0, null, CorruptionError, /fewer than the header's 30/],
    ['magic', 0, 0x38, CorruptionError, /magic number 0x00248f38, expected 0x00248f37/],
    ['version', 4, 2, CorruptionError, /unknown version 2/],
    ['has_ttl', 12, 1, NotSupportedError, /has_ttl is set: a TTL file of the legacy stacked BlobDB/],
    ['expiration', 22, 5, NotSupportedError, /expiration range \(0, 5\) is set/],
  ] as const)('header refused: %s', (_name, at, value, kind, message) => {
    const full = encodeBlobFileHeader({ columnFamilyId: 0, hasTtl: false, compression: 0, expirationRange: [0n, 0n] })
    if (value !== null) full[at] = value
    const h = value === null ? full.subarray(0, 29) : full
    let err: unknown
    try {
      decodeBlobFileHeader(h)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(kind)
    expect((err as Error).message).toMatch(message)
    expect((err as Error).message).not.toContain('\n')
  })

  it('footer: 32 bytes, CRC over the first 28, round trip; no magic reads as no footer', () => {
    const f = encodeBlobFileFooter(12, crc)
    expect(f.length).toBe(BLOB_FOOTER_SIZE)
    expect(decodeBlobFileFooter(f, 100, crc)).toMatchObject({ blobCount: 12n, expirationRange: [0n, 0n] })
    const damaged = Uint8Array.from(f)
    damaged[5] ^= 1
    expect(() => decodeBlobFileFooter(damaged, 100, crc)).toThrow(/blob file footer: CRC mismatch .*\(at offset 100\)/)
    const noMagic = Uint8Array.from(f)
    noMagic[0] ^= 1
    expect(decodeBlobFileFooter(noMagic, 100, crc)).toBeNull()
  })

  it('record: header CRC over the 24 length bytes, blob CRC over key and value', () => {
    const r = encodeBlobRecord(bytes('key1'), bytes('value one'), crc)
    expect(r.length).toBe(BLOB_RECORD_HEADER_SIZE + 4 + 9)
    const h = decodeBlobRecordHeader(r.subarray(0, 32), 30, crc)
    expect(h).toMatchObject({ keySize: 4n, valueSize: 9n, expiration: 0n })
    expect(() => checkBlobCrc(h, r.subarray(32), 30, crc)).not.toThrow()
    const bad = Uint8Array.from(r)
    bad[40] ^= 0x20
    expect(() => checkBlobCrc(h, bad.subarray(32), 30, crc)).toThrow(/blob CRC mismatch over key and value .*\(at offset 30\)/)
    bad[3] ^= 1
    expect(() => decodeBlobRecordHeader(bad.subarray(0, 32), 30, crc)).toThrow(/blob record header: CRC mismatch/)
  })

  it('record: a huge length under a matching header CRC decodes as a bigint (the reader refuses it before reading)', () => {
    const r = encodeBlobRecord(bytes('k'), bytes('v'), crc)
    const view = new DataView(r.buffer)
    view.setBigUint64(8, 1n << 62n, true)
    view.setUint32(24, crc(r.subarray(0, 24)), true)
    expect(decodeBlobRecordHeader(r.subarray(0, 32), 30, crc).valueSize).toBe(1n << 62n)
  })

  it('record: an expiration is a legacy TTL record, refused', () => {
    const r = encodeBlobRecord(bytes('k'), bytes('v'), crc, 99n)
    expect(() => decodeBlobRecordHeader(r.subarray(0, 32), 30, crc)).toThrow(NotSupportedError)
  })

  it('magic constant and range text', () => {
    expect(BLOB_FILE_MAGIC).toBe(2395959)
    expect(rangeText([0n, 0n])).toBe('nil')
    expect(rangeText([1n, 2n])).toBe('(1, 2)')
  })
})
