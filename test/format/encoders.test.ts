/** Each format encoder against its decoder: what encodeX writes, decodeX reads back. */
import { describe, expect, it } from 'vitest'
import { encodeBlockHandle, decodeBlockHandle } from '../../src/format/block-handle.js'
import { Cursor } from '../../src/format/coding.js'
import { decodeFooter, encodeFooter, FOOTER_BYTES, FOOTER_CHECKSUM_OFFSET } from '../../src/format/footer.js'
import { decodeMetaindex, encodeMetaindex } from '../../src/format/metaindex.js'
import { decodeProperties, encodeProperties, encodePropertyNumber, encodePropertyString, Property } from '../../src/format/properties.js'

describe('format encoders', () => {
  it('block handles', () => {
    const bytes = encodeBlockHandle({ offset: 300, size: 2 ** 33 })
    expect(decodeBlockHandle(new Cursor(bytes, 0, bytes.length, 0, 'handle'))).toEqual({ offset: 300, size: 2 ** 33 })
  })

  it('properties, sorted by name whatever the insertion order', () => {
    const block = encodeProperties(
      new Map([
        [Property.NumEntries, encodePropertyNumber(12345)],
        [Property.Comparator, encodePropertyString('leveldb.BytewiseComparator')],
        [Property.DataSize, encodePropertyNumber(2n ** 40n)],
      ]),
    )
    const p = decodeProperties(block, 0)
    expect(p.raw.map((r) => r.name)).toEqual([Property.Comparator, Property.DataSize, Property.NumEntries])
    expect(p.known.get(Property.NumEntries)).toBe(12345)
    expect(p.known.get(Property.Comparator)).toBe('leveldb.BytewiseComparator')
  })

  it('metaindex, sorted by name', () => {
    const entries = [
      { name: 'rocksdb.properties', handle: { offset: 900, size: 40 } },
      { name: 'fullfilter.rocksdb.BuiltinBloomFilter', handle: { offset: 100, size: 64 } },
    ]
    expect(decodeMetaindex(encodeMetaindex(entries), 0)).toEqual([entries[1], entries[0]])
  })

  it('footers before and from format_version 6, their checksum over the zeroed field', () => {
    const fields = { checksumType: 1, metaindexHandle: { offset: 5000, size: 77 }, indexHandle: { offset: 4000, size: 995 } }
    const fileSize = 5000 + 77 + 5 + FOOTER_BYTES
    const v5 = decodeFooter(encodeFooter({ ...fields, formatVersion: 5 }), fileSize)
    expect(v5).toMatchObject({ formatVersion: 5, checksumType: 1, metaindexHandle: fields.metaindexHandle, indexHandle: fields.indexHandle })
    let seen: Uint8Array | null = null
    const v7bytes = encodeFooter({ ...fields, formatVersion: 7, baseContextChecksum: 0x12345678 }, (f) => {
      seen = f.slice()
      return 0xdeadbeef
    })
    expect([...seen!.subarray(FOOTER_CHECKSUM_OFFSET, FOOTER_CHECKSUM_OFFSET + 4)]).toEqual([0, 0, 0, 0])
    const v7 = decodeFooter(v7bytes, fileSize)
    expect(v7).toMatchObject({
      formatVersion: 7,
      footerChecksum: 0xdeadbeef,
      baseContextChecksum: 0x12345678,
      metaindexHandle: fields.metaindexHandle,
      indexHandle: null,
    })
  })
})
