import { describe, it, expect } from 'vitest'
import { ValueType, valueTypeName, isValidSstValueType, isExtendedValueType, MAX_VALID_VALUE_TYPE } from '../../src/format/value-type.js'
import { parseInternalKey, encodeInternalKey } from '../../src/format/internal-key.js'
import { formatParsedInternalKey, formatScanType, rocksDbAtLeast, sliceToString, DEBIAN_ROCKSDB } from '../../src/report/sst-dump-text.js'

const enc = new TextEncoder()

describe('ValueType codes (db/dbformat.h)', () => {
  it('has every code 0x00..0x19 exactly once', () => {
    const codes = Object.values(ValueType).sort((a, b) => a - b)
    expect(codes).toEqual(Array.from({ length: 0x1a }, (_, i) => i))
  })

  it('uses the RocksDB values for the SST types', () => {
    expect(ValueType.Deletion).toBe(0x0)
    expect(ValueType.Value).toBe(0x1)
    expect(ValueType.Merge).toBe(0x2)
    expect(ValueType.SingleDeletion).toBe(0x7)
    expect(ValueType.RangeDeletion).toBe(0xf)
    expect(ValueType.BlobIndex).toBe(0x11)
    expect(ValueType.DeletionWithTimestamp).toBe(0x14)
    expect(ValueType.WideColumnEntity).toBe(0x16)
    expect(ValueType.ValuePreferredSeqno).toBe(0x18)
    expect(MAX_VALID_VALUE_TYPE).toBe(0x1a)
  })
})

describe('valueTypeName', () => {
  it('gives RocksDB enum names', () => {
    expect(valueTypeName(0)).toBe('kTypeDeletion')
    expect(valueTypeName(1)).toBe('kTypeValue')
    expect(valueTypeName(2)).toBe('kTypeMerge')
    expect(valueTypeName(7)).toBe('kTypeSingleDeletion')
    expect(valueTypeName(0xf)).toBe('kTypeRangeDeletion')
    expect(valueTypeName(0x11)).toBe('kTypeBlobIndex')
    expect(valueTypeName(0x14)).toBe('kTypeDeletionWithTimestamp')
    expect(valueTypeName(0x16)).toBe('kTypeWideColumnEntity')
    expect(valueTypeName(0x18)).toBe('kTypeValuePreferredSeqno')
    expect(valueTypeName(0x09)).toBe('kTypeBeginPrepareXID')
    expect(valueTypeName(0x19)).toBe('kTypeColumnFamilyValuePreferredSeqno')
    expect(valueTypeName(0x1a)).toBe('kTypeMaxValid')
  })

  it('marks unknown codes with their hex value', () => {
    expect(valueTypeName(0x1b)).toBe('kTypeUnknown(0x1B)')
    expect(valueTypeName(0x7f)).toBe('kTypeUnknown(0x7F)')
    expect(valueTypeName(0xff)).toBe('kTypeUnknown(0xFF)')
    expect(valueTypeName(-1)).toBe('kTypeUnknown(-1)')
  })
})

describe('isValidSstValueType / isExtendedValueType', () => {
  it('accepts exactly the data-block types', () => {
    const valid = Array.from({ length: 256 }, (_, i) => i).filter(isValidSstValueType)
    expect(valid).toEqual([0x0, 0x1, 0x2, 0x7, 0x11, 0x14, 0x16, 0x18])
  })

  it('extended types add range deletion and the kTypeMaxValid sentinel', () => {
    const ext = Array.from({ length: 256 }, (_, i) => i).filter(isExtendedValueType)
    expect(ext).toEqual([0x0, 0x1, 0x2, 0x7, 0xf, 0x11, 0x14, 0x16, 0x18, 0x1a])
  })
})

describe('formatParsedInternalKey (ParsedInternalKey::DebugString)', () => {
  it('prints the quoted key, seq and the numeric type', () => {
    const ik = parseInternalKey(encodeInternalKey(enc.encode('key1'), 42, ValueType.Value))
    expect(formatParsedInternalKey(ik)).toBe("'key1' seq:42, type:1")
    const wide = parseInternalKey(encodeInternalKey(enc.encode('k'), 7, ValueType.WideColumnEntity))
    expect(formatParsedInternalKey(wide)).toBe("'k' seq:7, type:22")
    expect(formatScanType(ValueType.ValuePreferredSeqno)).toBe('24')
  })

  it('prints upper-case hex without 0x in hex mode', () => {
    const ik = parseInternalKey(encodeInternalKey(Uint8Array.of(0xab, 0x01, 0xff), 0, ValueType.Deletion))
    expect(formatParsedInternalKey(ik, { hex: true })).toBe("'AB01FF' seq:0, type:0")
  })

  it('prints seq above 2^53 exactly', () => {
    const max = (1n << 56n) - 1n
    const ik = parseInternalKey(encodeInternalKey(enc.encode('a'), max, ValueType.Merge))
    expect(formatParsedInternalKey(ik)).toBe(`'a' seq:${max}, type:2`)
  })

  it('splits a u64 timestamp since 9.3 and not in 7.8', () => {
    const ts = new Uint8Array(8)
    new DataView(ts.buffer).setBigUint64(0, 1234567890123n, true)
    const uk = new Uint8Array([...enc.encode('kk'), ...ts])
    const ik = parseInternalKey(encodeInternalKey(uk, 5, ValueType.Value))
    expect(formatParsedInternalKey(ik, { timestampSize: 8, hex: true })).toBe("'6B6B|timestamp:1234567890123' seq:5, type:1")
    expect(formatParsedInternalKey(ik, { timestampSize: 8, hex: true, rocksdb: DEBIAN_ROCKSDB })).toBe(`'6B6B${sliceToString(ts, true)}' seq:5, type:1`)
  })
})

describe('rocksDbAtLeast', () => {
  it('compares major then minor', () => {
    expect(rocksDbAtLeast([7, 8], 7, 8)).toBe(true)
    expect(rocksDbAtLeast([7, 8], 8, 0)).toBe(false)
    expect(rocksDbAtLeast([11, 0], 10, 11)).toBe(true)
    expect(rocksDbAtLeast([10, 3], 10, 4)).toBe(false)
  })
})
