import { describe, expect, it } from 'vitest'
import { CorruptionError, NotSupportedError } from '../../src/format/errors.js'
import {
  BLOCK_BASED_TABLE_MAGIC,
  CUCKOO_TABLE_MAGIC,
  decodeFooter,
  FOOTER_BYTES,
  LEGACY_PLAIN_TABLE_MAGIC,
  PEBBLE_TABLE_MAGIC,
  PLAIN_TABLE_MAGIC,
} from '../../src/format/footer.js'

/** A synthetic footer (unit test of the decoder, not a real file). */
function footer(magic: bigint, formatVersion: number, checksumType = 1): Uint8Array {
  const f = new Uint8Array(FOOTER_BYTES)
  f[0] = checksumType
  f.set([0x10, 0x20, 0x30, 0x40], 1) // metaindex handle (16, 32), index handle (48, 64)
  const v = new DataView(f.buffer)
  v.setUint32(41, formatVersion, true)
  v.setBigUint64(45, magic, true)
  return f
}

describe('decodeFooter', () => {
  it('decodes a format_version 1-5 footer', () => {
    const f = decodeFooter(footer(BLOCK_BASED_TABLE_MAGIC, 5, 4), 1000)
    expect(f).toMatchObject({ formatVersion: 5, checksumType: 4, offset: 947, legacy: false })
    expect(f.metaindexHandle).toEqual({ offset: 16, size: 32 })
    expect(f.indexHandle).toEqual({ offset: 48, size: 64 })
  })

  it.each([
    [PLAIN_TABLE_MAGIC, /PlainTable format is not supported/],
    [LEGACY_PLAIN_TABLE_MAGIC, /PlainTable format is not supported/],
    [CUCKOO_TABLE_MAGIC, /CuckooTable format is not supported/],
    [PEBBLE_TABLE_MAGIC, /Pebble table format is not supported/],
  ])('refuses other table kinds by name (magic %s)', (magic, message) => {
    expect(() => decodeFooter(footer(magic, 1), 500)).toThrow(NotSupportedError)
    expect(() => decodeFooter(footer(magic, 1), 500)).toThrow(message)
  })

  it('calls an unknown magic "not an SST" and gives the offset of the magic', () => {
    expect(() => decodeFooter(footer(0x1234n, 5), 200)).toThrow(/not an SST file: bad magic number 0x0000000000001234.*at offset 192/)
  })

  it('refuses a future format_version', () => {
    expect(() => decodeFooter(footer(BLOCK_BASED_TABLE_MAGIC, 99), 200)).toThrow(/unknown format_version 99/)
  })

  it('refuses files shorter than any footer', () => {
    expect(() => decodeFooter(new Uint8Array(10), 10)).toThrow(CorruptionError)
    expect(() => decodeFooter(new Uint8Array(10), 10)).toThrow(/too short to be an SST \(10 bytes/)
  })

  it('requires the extended magic and a non-zero base context checksum for format_version 6+', () => {
    const f = footer(BLOCK_BASED_TABLE_MAGIC, 6)
    expect(() => decodeFooter(f, 1000)).toThrow(/lacks the extended magic/)
    f.set([0x3e, 0x00, 0x7a, 0x00], 1)
    f.fill(0, 5, 41)
    expect(() => decodeFooter(f, 1000)).toThrow(/zero base context checksum/)
    new DataView(f.buffer).setUint32(9, 0xdeadbeef, true)
    new DataView(f.buffer).setUint32(13, 100, true)
    const d = decodeFooter(f, 1000)
    expect(d.metaindexHandle).toEqual({ offset: 1000 - 53 - 5 - 100, size: 100 })
    expect(d.indexHandle).toBeNull()
  })
})
