import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { blockChecksum, ChecksumType } from '../../src/codec/checksum.js'
import { NotSupportedError } from '../../src/format/errors.js'
import { encodePhysicalRecord, LOG_BLOCK_SIZE, LogReader, LogRecordType, LogWriter, type LogBytes, type LogRecord } from '../../src/format/log-record.js'
import { BufferByteSource } from '../../src/io/byte-source.js'
import { dbFixture } from '../db/ldb.js'
import { catchErr } from './catch-corruption.js'

const crc = (b: Uint8Array) => blockChecksum(ChecksumType.CRC32c, b)
const T = LogRecordType

function payload(n: number, seed = 1): Uint8Array {
  const b = new Uint8Array(n)
  let x = seed
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    b[i] = x >>> 24
  }
  return b
}

function read(bytes: Uint8Array, opts: { maxRecordBytes?: number; logNumber?: number } = {}): { reader: LogReader; records: LogRecord[] } {
  const reader = new LogReader(new BufferByteSource(bytes, 'LOG'), { name: 'LOG', crc, ...opts })
  return { reader, records: [...reader.records()] }
}

function write(payloads: Uint8Array[], recycleLogNumber?: number): Uint8Array {
  const w = new LogWriter({ crc, recycleLogNumber })
  for (const p of payloads) w.addRecord(p)
  return w.finish()
}

/** Physical record headers of a log: [offset, type, length]. */
function headers(bytes: Uint8Array): [number, number, number][] {
  const out: [number, number, number][] = []
  let pos = 0
  while (pos + 7 <= bytes.length) {
    const left = LOG_BLOCK_SIZE - (pos % LOG_BLOCK_SIZE)
    if (left < 7) {
      pos += left
      continue
    }
    const len = bytes[pos + 4] | (bytes[pos + 5] << 8)
    out.push([pos, bytes[pos + 6], len])
    pos += 7 + len
  }
  return out
}

describe('log records: round trips', () => {
  it.each([
    ['empty', [0]],
    ['small', [1, 100, 7]],
    ['exactly one block', [LOG_BLOCK_SIZE - 7]],
    ['one byte more than a block', [LOG_BLOCK_SIZE - 6]],
    ['several blocks', [100_000, 3, 70_000]],
    ['tails of 1..6 bytes padded', [LOG_BLOCK_SIZE - 7 - 7 - 1, 10, LOG_BLOCK_SIZE - 7 - 3, 5]],
  ])('%s', (_, sizes) => {
    const ps = (sizes as number[]).map((n, i) => payload(n, i + 1))
    const bytes = write(ps)
    const { records, reader } = read(bytes)
    expect(records.map((r) => Buffer.from(r.payload).toString('hex'))).toEqual(ps.map((p) => Buffer.from(p).toString('hex')))
    expect(reader.droppedTail).toBeNull()
    expect(records[0].offset).toBe(0)
    for (let i = 1; i < records.length; i++) expect(records[i].offset).toBeGreaterThanOrEqual(records[i - 1].end)
    expect(records[records.length - 1].end).toBe(bytes.length)
  })

  it('fragments as log::Writer does: FIRST/MIDDLE/LAST filling blocks, zero padding of short tails', () => {
    const bytes = write([payload(LOG_BLOCK_SIZE * 2), payload(10)])
    expect(headers(bytes).map(([, t, n]) => [t, n])).toEqual([
      [T.First, LOG_BLOCK_SIZE - 7],
      [T.Middle, LOG_BLOCK_SIZE - 7],
      [T.Last, 14],
      [T.Full, 10],
    ])
    const { records } = read(bytes)
    expect(records.map((r) => r.fragments)).toEqual([3, 1])
    // A tail of 3 bytes is zero-filled; the next record starts the next block.
    const padded = write([payload(LOG_BLOCK_SIZE - 7 - 3), payload(5)])
    expect([...padded.subarray(LOG_BLOCK_SIZE - 3, LOG_BLOCK_SIZE)]).toEqual([0, 0, 0])
    expect(headers(padded)[1][0]).toBe(LOG_BLOCK_SIZE)
  })

  it('an exact 7-byte tail gets an empty FIRST fragment (the old writer quirk RocksDB tolerates)', () => {
    const bytes = write([payload(LOG_BLOCK_SIZE - 14), payload(20)])
    expect(headers(bytes).map(([, t, n]) => [t, n])).toEqual([
      [T.Full, LOG_BLOCK_SIZE - 14],
      [T.First, 0],
      [T.Last, 20],
    ])
    expect(read(bytes).records[1].payload.length).toBe(20)
  })

  it('recyclable records carry the log number (11-byte headers) and round-trip', () => {
    const ps = [payload(50), payload(LOG_BLOCK_SIZE), payload(0)]
    const bytes = write(ps, 42)
    expect(headers(bytes)[0][1]).toBe(T.RecyclableFull)
    expect(new DataView(bytes.buffer).getUint32(7, true)).toBe(42)
    const { records } = read(bytes, { logNumber: 42 })
    expect(records.map((r) => r.payload.length)).toEqual([50, LOG_BLOCK_SIZE, 0])
    expect(records[0].headerSize).toBe(11)
    // A block tail of 7..10 bytes is too short for a recyclable header: zero padding, skipped.
    const tail8 = write([payload(LOG_BLOCK_SIZE - 11 - 8), payload(30)], 42)
    expect([...tail8.subarray(LOG_BLOCK_SIZE - 8, LOG_BLOCK_SIZE)]).toEqual(new Array(8).fill(0))
    expect(tail8[LOG_BLOCK_SIZE + 6]).toBe(T.RecyclableFull)
    expect(read(tail8).records.map((r) => r.payload.length)).toEqual([LOG_BLOCK_SIZE - 19, 30])
    // Even when the tail's type byte says "recyclable", as RocksDB's reader treats it.
    const w = new LogWriter({ crc, recycleLogNumber: 42 })
    w.addRecord(payload(LOG_BLOCK_SIZE - 11 - 9))
    w.push(Uint8Array.of(1, 2, 3, 4, 5, 0, T.RecyclableFull, 0, 0))
    w.addRecord(payload(30))
    expect(read(w.finish()).records.map((r) => r.payload.length)).toEqual([LOG_BLOCK_SIZE - 20, 30])
  })

  it('the real MANIFESTs of the fixture DBs read to as many records as ldb printed VersionEdits', () => {
    for (const [db, edits] of [
      ['layered', 28],
      ['churn', 24],
      ['v11', 20],
    ] as const) {
      const bytes = readFileSync(join(dbFixture(db), 'MANIFEST-000005'))
      const { records, reader } = read(bytes)
      expect(records.length).toBe(edits)
      expect(reader.droppedTail).toBeNull()
    }
  })

  it('reads one 32 KiB block at a time', () => {
    const bytes = write(Array.from({ length: 20 }, (_, i) => payload(20_000, i)))
    const sizes: number[] = []
    const src: LogBytes = {
      size: bytes.length,
      read(offset, length) {
        sizes.push(length)
        return bytes.subarray(offset, offset + length)
      },
    }
    const reader = new LogReader(src, { name: 'LOG', crc })
    expect([...reader.records()].length).toBe(20)
    expect(Math.max(...sizes)).toBe(LOG_BLOCK_SIZE)
  })
})

describe('log records: corruption is an error naming the physical record offset', () => {
  const two = () => write([payload(100), payload(200)])

  it('checksum mismatch', () => {
    const bytes = two()
    bytes[107 + 7 + 50] ^= 1
    const e = catchErr(() => read(bytes))
    expect(e.message).toBe('LOG: checksum mismatch in Full record of 200 bytes (at offset 107)')
    expect(e.offset).toBe(107)
  })

  it('a flipped type byte is a checksum mismatch too; a valid unknown type is reported as unknown', () => {
    const bytes = two()
    bytes[6] = 77
    expect(catchErr(() => read(bytes)).message).toContain('checksum mismatch')
    const w = new LogWriter({ crc })
    w.addRecord(payload(10))
    w.addPhysical(77, payload(3))
    expect(catchErr(() => read(w.finish())).message).toBe('LOG: unknown record type 77 (at offset 17)')
  })

  it('types with the safe-ignore bit are skipped', () => {
    const w = new LogWriter({ crc })
    w.addPhysical(0x80 | 0x33, payload(9))
    w.addRecord(payload(10))
    expect(read(w.finish()).records.map((r) => r.payload.length)).toEqual([10])
  })

  it('length past the end of a full block', () => {
    const bytes = write([payload(LOG_BLOCK_SIZE - 7), payload(5)])
    new DataView(bytes.buffer).setUint16(4, LOG_BLOCK_SIZE, true)
    const e = catchErr(() => read(bytes))
    expect(e.message).toMatch(/record length 32768 runs past the end of its 32 KiB block/)
    expect(e.offset).toBe(0)
  })

  it('MIDDLE or LAST without FIRST; FULL or FIRST inside an open fragmented record', () => {
    const cases: [number[], string][] = [
      [[T.Middle], 'LOG: MIDDLE record without a FIRST record before it (at offset 0)'],
      [[T.Last], 'LOG: LAST record without a FIRST record before it (at offset 0)'],
      [[T.First, T.Full], 'LOG: FULL record while the fragmented record at offset 0 has no LAST fragment (at offset 11)'],
      [[T.First, T.First], 'LOG: FIRST record while the fragmented record at offset 0 has no LAST fragment (at offset 11)'],
    ]
    for (const [types, message] of cases) {
      const w = new LogWriter({ crc })
      for (const t of types) w.addPhysical(t, payload(4))
      expect(catchErr(() => read(w.finish())).message).toBe(message)
    }
  })

  it('caps the logical record size before assembling it', () => {
    const bytes = write([payload(200_000)])
    const e = catchErr(() => read(bytes, { maxRecordBytes: 100_000 }))
    expect(e.message).toContain('logical record is longer than 100000 bytes')
    expect(e.offset).toBe(0)
  })

  it('SetCompressionType (compressed WAL) is reported as not supported', () => {
    const w = new LogWriter({ crc })
    w.addPhysical(T.SetCompressionType, Uint8Array.of(7, 0, 0, 0))
    try {
      read(w.finish())
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(NotSupportedError)
      expect((e as Error).message).toBe('LOG: compressed log (SetCompressionType record, compression type 7) is not supported (at offset 0)')
    }
  })

  it('decodes user-defined timestamp size and predecessor WAL records', () => {
    const w = new LogWriter({ crc })
    w.addPhysical(T.UserDefinedTimestampSize, Uint8Array.of(3, 0, 0, 0, 8, 0, 9, 0, 0, 0, 16, 0))
    const pred = new Uint8Array(24)
    new DataView(pred.buffer).setBigUint64(0, 11n, true)
    new DataView(pred.buffer).setBigUint64(8, 4096n, true)
    new DataView(pred.buffer).setBigUint64(16, 77n, true)
    w.addPhysical(T.PredecessorWalInfo, pred)
    w.addRecord(payload(3))
    const { reader, records } = read(w.finish())
    expect(records.length).toBe(1)
    expect([...reader.timestampSizes]).toEqual([
      [3, 8],
      [9, 16],
    ])
    expect(reader.predecessorWals).toEqual([{ offset: 19, logNumber: 11n, sizeBytes: 4096n, lastSequence: 77n }])
    const bad = new LogWriter({ crc })
    bad.addPhysical(T.UserDefinedTimestampSize, payload(5))
    expect(catchErr(() => read(bad.finish())).message).toContain('not a multiple of 6')
  })
})

describe('log records: an incomplete tail at the end of the file is dropped, as RocksDB recovers a MANIFEST', () => {
  const full = write([payload(100), payload(300)])
  const second = 107

  it.each([
    ['inside the header', second + 4, 'truncated record header'],
    ['inside the payload', second + 7 + 120, 'truncated record payload'],
  ])('cut %s', (_, cut, reason) => {
    const { records, reader } = read(full.subarray(0, cut))
    expect(records.map((r) => r.payload.length)).toEqual([100])
    expect(reader.droppedTail).toEqual({ offset: second, bytes: cut - second, reason })
  })

  it('a fragmented record without its LAST fragment', () => {
    const bytes = write([payload(10), payload(LOG_BLOCK_SIZE * 2)])
    const cut = bytes.subarray(0, LOG_BLOCK_SIZE * 2)
    const { records, reader } = read(cut)
    expect(records.length).toBe(1)
    expect(reader.droppedTail).toEqual({ offset: 17, bytes: cut.length - 17, reason: 'fragmented record without its LAST fragment at the end of the log' })
  })

  it('a fragmented record whose last fragment is cut', () => {
    const bytes = write([payload(LOG_BLOCK_SIZE + 100)])
    const { records, reader } = read(bytes.subarray(0, bytes.length - 10))
    expect(records.length).toBe(0)
    expect(reader.droppedTail?.offset).toBe(0)
    expect(reader.droppedTail?.reason).toMatch(/^fragmented record cut short \(truncated record payload at offset 32768\)$/)
  })

  it('zero-type zero-length headers (preallocated space) skip the rest of the block', () => {
    const w = new LogWriter({ crc })
    w.addRecord(payload(10))
    w.push(new Uint8Array(LOG_BLOCK_SIZE - 17))
    w.addRecord(payload(20))
    const { records, reader } = read(w.finish())
    expect(records.map((r) => [r.offset, r.payload.length])).toEqual([
      [0, 10],
      [LOG_BLOCK_SIZE, 20],
    ])
    expect(reader.droppedTail).toBeNull()
  })

  it('a recyclable record of another log ends the log', () => {
    const w = new LogWriter({ crc, recycleLogNumber: 5 })
    w.addRecord(payload(10))
    w.push(encodePhysicalRecord(T.RecyclableFull, payload(4), crc, 4))
    const { records, reader } = read(w.finish(), { logNumber: 5 })
    expect(records.length).toBe(1)
    expect(reader.droppedTail?.reason).toBe('record of an older log (log number 4, not 5)')
  })
})
