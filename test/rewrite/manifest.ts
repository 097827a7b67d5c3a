/**
 * Just enough of RocksDB's MANIFEST (a log of VersionEdit records, `db/log_format.h`,
 * `db/version_edit.cc`) to point an existing table-file entry at a rewritten file:
 * the file size, the tail size and the unique ID are recorded there and checked
 * when the DB opens ("Sst file size mismatch", "Mismatch in unique ID"). Test-only.
 */
import { crc32c } from '@node-rs/crc32'

const BLOCK = 32768
const HEADER = 7
const FULL = 1
const FIRST = 2
const MIDDLE = 3
const LAST = 4
const MASK_DELTA = 0xa282ead8

function mask(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + MASK_DELTA) >>> 0
}

/** The logical records of a log file (reassembled from fragments, checksums checked). */
export function readLogRecords(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  let pending: Uint8Array[] | null = null
  let pos = 0
  while (pos + HEADER <= bytes.length) {
    const left = BLOCK - (pos % BLOCK)
    if (left < HEADER) {
      pos += left
      continue
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset + pos)
    const crc = view.getUint32(0, true)
    const len = view.getUint16(4, true)
    const type = bytes[pos + 6]
    if (type === 0 && len === 0) {
      pos += left // zero padding to the end of the block (preallocated space)
      continue
    }
    const payload = bytes.subarray(pos + HEADER, pos + HEADER + len)
    if (mask(crc32c(bytes.subarray(pos + 6, pos + HEADER + len))) !== crc) throw new Error(`MANIFEST record at ${pos}: checksum mismatch`)
    pos += HEADER + len
    if (type === FULL) out.push(payload.slice())
    else if (type === FIRST) pending = [payload.slice()]
    else if (type === MIDDLE) pending!.push(payload.slice())
    else if (type === LAST) {
      pending!.push(payload.slice())
      out.push(Buffer.concat(pending!))
      pending = null
    } else throw new Error(`MANIFEST record at ${pos}: unexpected record type ${type}`)
  }
  return out
}

/** Frame logical records as a log file. */
export function writeLogRecords(records: Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = []
  let pos = 0
  for (const rec of records) {
    let off = 0
    let begin = true
    do {
      const left = BLOCK - (pos % BLOCK)
      if (left < HEADER) {
        parts.push(new Uint8Array(left))
        pos += left
        continue
      }
      const n = Math.min(rec.length - off, left - HEADER)
      const end = off + n === rec.length
      const type = begin && end ? FULL : begin ? FIRST : end ? LAST : MIDDLE
      const h = new Uint8Array(HEADER)
      const dv = new DataView(h.buffer)
      dv.setUint16(4, n, true)
      h[6] = type
      const frag = rec.subarray(off, off + n)
      dv.setUint32(0, mask(crc32c(Buffer.concat([h.subarray(6), frag]))), true)
      parts.push(h, frag)
      pos += HEADER + n
      off += n
      begin = false
    } while (off < rec.length)
  }
  return Buffer.concat(parts)
}

class Cursor {
  pos = 0
  constructor(readonly b: Uint8Array) {}
  get done(): boolean {
    return this.pos >= this.b.length
  }
  varint(): bigint {
    let r = 0n
    for (let shift = 0n; ; shift += 7n) {
      const x = this.b[this.pos++]
      if (x === undefined) throw new Error('MANIFEST: truncated varint')
      r |= BigInt(x & 0x7f) << shift
      if (x < 0x80) return r
    }
  }
  int(): number {
    return Number(this.varint())
  }
  slice(): Uint8Array {
    const n = this.int()
    const s = this.b.subarray(this.pos, this.pos + n)
    this.pos += n
    return s
  }
}

function varint(v: number | bigint): number[] {
  let x = BigInt(v)
  const out: number[] = []
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80)
    x >>= 7n
  }
  out.push(Number(x))
  return out
}

function lengthPrefixed(s: Uint8Array): number[] {
  return [...varint(s.length), ...s]
}

export const NEW_FILE4 = 103
/** NewFile4 custom field tags. */
export const FileField = { Terminate: 1, FileChecksum: 7, UniqueId: 12, TailSize: 15 } as const

export interface NewFileEntry {
  level: number
  number: bigint
  size: bigint
  smallest: Uint8Array
  largest: Uint8Array
  smallestSeqno: bigint
  largestSeqno: bigint
  fields: [number, Uint8Array][]
}

type Field = { tag: number; raw: Uint8Array } | { tag: typeof NEW_FILE4; file: NewFileEntry }

/** Split one VersionEdit into its fields (NewFile4 decoded, everything else kept as bytes). */
export function decodeEdit(rec: Uint8Array): Field[] {
  const c = new Cursor(rec)
  const fields: Field[] = []
  while (!c.done) {
    const start = c.pos
    const tag = c.int()
    switch (tag) {
      case 1: // comparator
      case 201: // column family add
        c.slice()
        break
      case 2: // log number
      case 3: // next file number
      case 4: // last sequence
      case 9: // prev log number
      case 10: // min log number to keep
      case 200: // column family
      case 203: // max column family
      case 300: // in atomic group
        c.varint()
        break
      case 5: // compact cursor
        c.int()
        c.slice()
        break
      case 6: // deleted file
        c.int()
        c.varint()
        break
      case 202: // column family drop
        break
      case 400: // blob file addition (db/blob/blob_file_addition.cc): number, count, bytes, checksum method, checksum value, fields
        c.varint()
        c.varint()
        c.varint()
        c.slice()
        c.slice()
        while (c.int() !== 0) c.slice() // custom fields up to kEndMarker = 0
        break
      case 401: // blob file garbage: number, count, bytes, fields
        c.varint()
        c.varint()
        c.varint()
        while (c.int() !== 0) c.slice() // custom fields up to kEndMarker = 0
        break
      case NEW_FILE4: {
        const file: NewFileEntry = {
          level: c.int(),
          number: c.varint(),
          size: c.varint(),
          smallest: c.slice(),
          largest: c.slice(),
          smallestSeqno: c.varint(),
          largestSeqno: c.varint(),
          fields: [],
        }
        for (;;) {
          const t = c.int()
          if (t === FileField.Terminate) break
          file.fields.push([t, c.slice()])
        }
        fields.push({ tag, file })
        continue
      }
      default:
        // Forward-compatible tags (kTagSafeIgnoreMask = 1 << 13 set) are length-prefixed.
        if (tag & (1 << 13)) {
          c.slice()
          break
        }
        throw new Error(`MANIFEST: VersionEdit tag ${tag} not understood by this test helper`)
    }
    fields.push({ tag, raw: rec.subarray(start, c.pos) })
  }
  return fields
}

export function encodeEdit(fields: Field[]): Uint8Array {
  const out: number[] = []
  for (const f of fields) {
    if ('raw' in f) {
      out.push(...f.raw)
      continue
    }
    const e = f.file
    out.push(...varint(NEW_FILE4), ...varint(e.level), ...varint(e.number), ...varint(e.size))
    out.push(...lengthPrefixed(e.smallest), ...lengthPrefixed(e.largest), ...varint(e.smallestSeqno), ...varint(e.largestSeqno))
    for (const [t, v] of e.fields) out.push(...varint(t), ...lengthPrefixed(v))
    out.push(...varint(FileField.Terminate))
  }
  return Uint8Array.from(out)
}

/** Every NewFile4 entry in a MANIFEST. */
export function newFiles(manifest: Uint8Array): NewFileEntry[] {
  return readLogRecords(manifest).flatMap((r) => decodeEdit(r).flatMap((f) => ('file' in f ? [f.file] : [])))
}

/**
 * Rewrite a MANIFEST so that table file `number` is recorded with a new size and tail size,
 * and without a unique ID (RocksDB verifies a recorded unique ID against the one derived from
 * the file's properties; with none recorded, it has nothing to compare).
 * Returns how many entries were changed.
 */
export function patchManifest(
  manifest: Uint8Array,
  number: number,
  update: { size: number; tailSize: number; dropUniqueId?: boolean; uniqueId?: Uint8Array },
): { bytes: Uint8Array; changed: number } {
  let changed = 0
  const records = readLogRecords(manifest).map((rec) => {
    const fields = decodeEdit(rec)
    let touched = false
    for (const f of fields) {
      if (!('file' in f) || f.file.number !== BigInt(number)) continue
      f.file.size = BigInt(update.size)
      f.file.fields = f.file.fields
        .filter(([t]) => !(t === FileField.UniqueId && (update.dropUniqueId || update.uniqueId)))
        .map(([t, v]) => [t, t === FileField.TailSize ? Uint8Array.from(varint(update.tailSize)) : v])
      if (update.uniqueId) f.file.fields.push([FileField.UniqueId, update.uniqueId])
      touched = true
      changed++
    }
    return touched ? encodeEdit(fields) : rec
  })
  return { bytes: writeLogRecords(records), changed }
}

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const U64 = (1n << 64n) - 1n

function base36(s: string): bigint {
  let r = 0n
  for (const ch of s) {
    const d = DIGITS.indexOf(ch)
    if (d < 0) throw new Error(`bad digit ${ch} in session ID ${s}`)
    r = r * 36n + BigInt(d)
  }
  return r
}

/**
 * The internal unique ID RocksDB derives from a table's properties (db_id, db_session_id,
 * orig_file_number) and records in the MANIFEST (`table/unique_id.cc` GetSstInternalUniqueId,
 * EncodeUniqueIdBytes): session lower 64 bits, then XXH3-128(db_id, seed = session upper).high
 * xor the file number, both fixed64 little-endian.
 */
export function internalUniqueId(dbId: string, sessionId: string, fileNumber: bigint, xxh128: (data: Buffer, seed: bigint) => bigint): Uint8Array {
  if (sessionId.length < 13 || sessionId.length > 24) throw new Error(`session ID ${sessionId}: bad length`)
  const a = base36(sessionId.slice(0, sessionId.length - 12))
  const b = base36(sessionId.slice(sessionId.length - 12))
  const upper = a >> 2n
  const lower = ((b & (U64 >> 2n)) | (a << 62n)) & U64
  const high = xxh128(Buffer.from(dbId), upper) >> 64n
  const out = Buffer.alloc(16)
  out.writeBigUInt64LE(lower, 0)
  out.writeBigUInt64LE((high ^ fileNumber) & U64, 8)
  return out
}
