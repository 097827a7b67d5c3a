/**
 * Damaged copies of a real table, for fuzzing sstkit's readers (test/fuzz and
 * bench/fuzz.mjs). Each mutant is a pure function of the original bytes and a
 * seed, so a failing mutant is reproduced from its fixture and seed alone.
 *
 * Two families:
 * - blind damage: bit flips, byte overwrites, truncation, insertion, deletion.
 *   A flip or overwrite that lands inside a checksummed range (a block with its
 *   trailer, or a format_version >= 6 footer) of a checksummed file is marked
 *   `checksumCovered`: verify must report that file.
 * - targeted edits that keep the checksum valid (recomputed after the edit), so
 *   that the parsers behind it are reached: absurd restart counts and restart
 *   points, huge varints in entry lengths and block handles, random bytes in
 *   blocks, filters and dictionaries, huge claimed sizes and garbage in
 *   compressed payloads, unknown checksum and compression type bytes, lying
 *   properties, footer fields.
 */
import { ChecksumType } from '../../src/codec/checksum.js'
import { BLOCK_TRAILER_BYTES } from '../../src/format/block-trailer.js'
import { decodeBlockLayout } from '../../src/format/block.js'
import { encodeVarint, equalBytes, readFixed32, writeFixed32 } from '../../src/format/coding.js'
import { encodeFooter, FOOTER_BYTES } from '../../src/format/footer.js'
import { encodeMetaindex, INDEX_BLOCK, type MetaindexEntry } from '../../src/format/metaindex.js'
import { decodeProperties, GLOBAL_SEQNO_PROPERTY, NUMERIC_PROPERTIES, Property } from '../../src/format/properties.js'
import { BufferByteSource } from '../../src/io/byte-source.js'
import { type ChecksumContext, computeStoredChecksum } from '../../src/table/block-reader.js'
import { tableLayout } from '../../src/table/layout.js'
import { Table } from '../../src/table/reader.js'
import { prng } from '../../src/util/prng.js'

export type MutationKind =
  | 'bit-flip'
  | 'overwrite'
  | 'truncate'
  | 'insert'
  | 'delete'
  | 'restart-count'
  | 'restart-point'
  | 'entry-varint'
  | 'block-bytes'
  | 'compressed-bytes'
  | 'compression-type'
  | 'checksum-type'
  | 'property-lie'
  | 'footer-handle'
  | 'metaindex-handle'

export const MUTATION_KINDS: readonly MutationKind[] = [
  'bit-flip',
  'overwrite',
  'truncate',
  'insert',
  'delete',
  'restart-count',
  'restart-point',
  'entry-varint',
  'block-bytes',
  'compressed-bytes',
  'compression-type',
  'checksum-type',
  'property-lie',
  'footer-handle',
  'metaindex-handle',
]

export interface Mutant {
  readonly seed: number
  readonly kind: MutationKind
  /** What was changed, in words ("bit 3 of byte 1234 (data block at 1200)"). */
  readonly what: string
  readonly bytes: Uint8Array
  /** The change lies inside one checksummed range whose checksum was left as written: verify must report the file. */
  readonly checksumCovered: boolean
}

/** One block of the original table, as the mutator sees it. */
export interface MappedBlock {
  readonly kind: string
  readonly name: string
  readonly offset: number
  /** Payload bytes, without the trailer. */
  readonly size: number
  readonly compressionType: number
}

/** Where the blocks of an intact table are, and how their checksums are computed. */
export interface TableMap {
  readonly size: number
  readonly checksum: ChecksumContext
  readonly footerOffset: number
  readonly footerLength: number
  readonly legacyFooter: boolean
  readonly blocks: readonly MappedBlock[]
  readonly metaindex: readonly MetaindexEntry[]
  readonly metaindexHandle: { readonly offset: number; readonly size: number }
  readonly indexHandle: { readonly offset: number; readonly size: number }
  /**
   * File range of an external file's global seqno value: readers re-check the
   * properties checksum with it zeroed (RocksDB rewrites it in place after
   * ingestion), so a change there is not checksum-covered.
   */
  readonly globalSeqno: readonly [number, number] | null
}

/** Map an intact table (it must open and lay out cleanly). */
export function mapTable(bytes: Uint8Array): TableMap {
  const table = Table.open(new BufferByteSource(bytes))
  const layout = tableLayout(table, { decompress: false })
  const blocks: MappedBlock[] = []
  for (const b of layout.blocks) {
    if (b.kind === 'footer' || b.kind === 'gap' || b.compressionType === null) continue
    blocks.push({ kind: b.kind, name: b.name, offset: b.offset, size: b.size, compressionType: b.compressionType })
  }
  return {
    size: bytes.length,
    checksum: table.checksum,
    footerOffset: table.footer.offset,
    footerLength: table.footer.length,
    legacyFooter: table.footer.legacy,
    blocks,
    metaindex: table.metaindexEntries,
    metaindexHandle: table.footer.metaindexHandle,
    indexHandle: table.indexHandle,
    globalSeqno: globalSeqnoRange(table),
  }
}

function globalSeqnoRange(table: Table): [number, number] | null {
  const h = table.propertiesHandle
  if (!h) return null
  const raw = table.readRaw(h, 'properties block', false)
  if (raw.compressionType !== 0) return null
  const entry = decodeProperties(raw.payload, h.offset).raw.find((p) => p.name === GLOBAL_SEQNO_PROPERTY)
  return entry ? [entry.valueOffset, entry.valueOffset + entry.value.length] : null
}

type Rand = () => number
type Edit = { kind: MutationKind; what: string; bytes: Uint8Array; checksumCovered?: boolean }
type Mutator = (original: Uint8Array, map: TableMap, r: Rand) => Edit | null

/**
 * The mutant for `seed`: a mutation kind chosen by the seed among those that
 * apply to this table (a kind that finds nothing to edit falls back to a bit flip).
 */
export function mutant(original: Uint8Array, map: TableMap, seed: number, kinds: readonly MutationKind[] = MUTATION_KINDS): Mutant {
  const r = prng(seed)
  const kind = kinds[Math.floor(r() * kinds.length)]
  const tried = MUTATORS[kind](original, map, r)
  // An edit that changed nothing (a value equal to the one stored) is no mutant.
  const edit = tried && !equalBytes(tried.bytes, original) ? tried : bitFlip(original, map, r)
  if (!edit) throw new RangeError('cannot mutate an empty file')
  return { seed, kind: edit.kind, what: edit.what, bytes: edit.bytes, checksumCovered: edit.checksumCovered ?? false }
}

const MUTATORS: Record<MutationKind, Mutator> = {
  'bit-flip': bitFlip,
  overwrite,
  truncate,
  insert,
  delete: deleteBytes,
  'restart-count': restartCount,
  'restart-point': restartPoint,
  'entry-varint': entryVarint,
  'block-bytes': blockBytes,
  'compressed-bytes': compressedBytes,
  'compression-type': compressionType,
  'checksum-type': checksumType,
  'property-lie': propertyLie,
  'footer-handle': footerHandle,
  'metaindex-handle': metaindexHandle,
}

// ---- blind damage

function bitFlip(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  if (original.length === 0) return null
  const bytes = original.slice()
  const pos = pick(r, original.length)
  const bit = pick(r, 8)
  bytes[pos] ^= 1 << bit
  return { kind: 'bit-flip', what: `bit ${bit} of byte ${pos}${where(map, pos)}`, bytes, checksumCovered: covered(map, pos) }
}

function overwrite(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const pos = pick(r, original.length)
  const n = Math.min(1 + pick(r, 8), original.length - pos)
  const bytes = original.slice()
  for (let i = 0; i < n; i++) bytes[pos + i] = differentByte(r, original[pos + i])
  // Every byte changed and all in one checksummed range: a checksum must catch it.
  const inOne = covered(map, pos) && sameRange(map, pos, pos + n - 1)
  return { kind: 'overwrite', what: `${n} bytes at ${pos}${where(map, pos)}`, bytes, checksumCovered: inOne }
}

function truncate(original: Uint8Array, _map: TableMap, r: Rand): Edit {
  // Half the cuts land in the footer's neighbourhood, where readers look first.
  const keep = r() < 0.5 ? Math.max(0, original.length - 1 - pick(r, 120)) : pick(r, original.length)
  return { kind: 'truncate', what: `truncated to ${keep} of ${original.length} bytes`, bytes: original.slice(0, keep) }
}

function insert(original: Uint8Array, map: TableMap, r: Rand): Edit {
  const pos = pick(r, original.length + 1)
  const n = 1 + pick(r, 16)
  const bytes = new Uint8Array(original.length + n)
  bytes.set(original.subarray(0, pos))
  for (let i = 0; i < n; i++) bytes[pos + i] = pick(r, 256)
  bytes.set(original.subarray(pos), pos + n)
  return { kind: 'insert', what: `${n} bytes inserted at ${pos}${where(map, pos)}`, bytes }
}

function deleteBytes(original: Uint8Array, map: TableMap, r: Rand): Edit {
  const pos = pick(r, original.length)
  const n = Math.min(1 + pick(r, 16), original.length - pos)
  const bytes = new Uint8Array(original.length - n)
  bytes.set(original.subarray(0, pos))
  bytes.set(original.subarray(pos + n), pos)
  return { kind: 'delete', what: `${n} bytes deleted at ${pos}${where(map, pos)}`, bytes }
}

// ---- targeted edits behind a valid checksum

/** Blocks whose stored payload is the block itself (uncompressed), so their entries can be edited. */
function plainBlocks(map: TableMap): MappedBlock[] {
  return map.blocks.filter((b) => b.compressionType === 0 && b.size >= 4 && !b.kind.startsWith('filter') && b.kind !== 'compression dictionary')
}

function restartCount(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const b = pickOf(r, plainBlocks(map))
  if (!b) return null
  const at = b.offset + b.size - 4
  const n = readFixed32(original, at) & 0x0fffffff
  const value = pickOf(r, [0, n + 1, n * 2 + 7, 0x0fffffff, 0x7fffffff, 0xffffffff, 0x80000000 | n, 0x80000000 | (n + 1), 0x10000000 | n, 0x20000000 | n])!
  const bytes = original.slice()
  writeFixed32(bytes, at, value >>> 0)
  resealBlock(bytes, map, b)
  return { kind: 'restart-count', what: `restart count of the ${label(b)} set to 0x${(value >>> 0).toString(16)}`, bytes }
}

function restartPoint(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const b = pickOf(
    r,
    plainBlocks(map).filter((x) => layoutOf(original, x) !== null),
  )
  if (!b) return null
  const layout = layoutOf(original, b)!
  if (layout.numRestarts === 0) return null
  const i = pick(r, layout.numRestarts)
  const at = b.offset + layout.restartsOffset + 4 * i
  const old = readFixed32(original, at)
  const value = pickOf(r, [old + 1, Math.max(0, old - 1), layout.restartsOffset, layout.restartsOffset + 1, b.size, 0x7fffffff, 0xffffffff, 0])!
  const bytes = original.slice()
  writeFixed32(bytes, at, value >>> 0)
  resealBlock(bytes, map, b)
  return { kind: 'restart-point', what: `restart point ${i} of the ${label(b)} set to ${value >>> 0}`, bytes }
}

/** shared, non_shared or value_length of an entry at a restart point: a long or unterminated varint, or a large value of the same length. */
function entryVarint(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const b = pickOf(
    r,
    plainBlocks(map).filter((x) => (layoutOf(original, x)?.numRestarts ?? 0) > 0),
  )
  if (!b) return null
  const layout = layoutOf(original, b)!
  const restart = readFixed32(original, b.offset + layout.restartsOffset + 4 * pick(r, layout.numRestarts))
  if (restart >= layout.restartsOffset) return null
  let pos = b.offset + restart
  const field = pick(r, 3)
  for (let f = 0; f < field; f++) pos = skipVarint(original, pos, b.offset + b.size)
  const end = b.offset + b.size
  if (pos >= end) return null
  const bytes = original.slice()
  const style = pick(r, 3)
  if (style === 0) {
    // 0xff... : a varint that runs on past its field (as far as 10 bytes).
    for (let i = 0; i < 10 && pos + i < end; i++) bytes[pos + i] = 0xff
  } else if (style === 1) {
    // The largest value a varint32 holds, written over the field and what follows it.
    bytes.set(encodeVarint(0xffffffff).subarray(0, end - pos), pos)
  } else {
    // A large value in the field's own length.
    const n = skipVarint(original, pos, end) - pos
    bytes.set(paddedVarint(2 ** Math.min(7 * n, 32) - 1 - pick(r, 3), n), pos)
  }
  resealBlock(bytes, map, b)
  const names = ['shared', 'non_shared', 'value_length']
  return { kind: 'entry-varint', what: `${names[field]} of the entry at ${pos} in the ${label(b)} (style ${style})`, bytes }
}

/** Random bytes inside an uncompressed block (filters and dictionaries too), checksum recomputed: the parser behind it sees garbage. */
function blockBytes(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const b = pickOf(
    r,
    map.blocks.filter((x) => x.compressionType === 0 && x.size > 0),
  )
  if (!b) return null
  const n = 1 + pick(r, 4)
  const pos = b.offset + pick(r, b.size)
  const bytes = original.slice()
  for (let i = 0; i < n && pos + i < b.offset + b.size; i++) bytes[pos + i] = differentByte(r, original[pos + i])
  resealBlock(bytes, map, b)
  return { kind: 'block-bytes', what: `${n} bytes at ${pos} in the ${label(b)}, checksum recomputed`, bytes }
}

/**
 * A compressed block's payload damaged behind a recomputed checksum, so the
 * decompressor sees it: most often its first bytes (where the format_version >= 2
 * framing and most codecs declare the uncompressed size) set to a huge varint,
 * else random bytes anywhere.
 */
function compressedBytes(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const b = pickOf(
    r,
    map.blocks.filter((x) => x.compressionType !== 0 && x.size > 0),
  )
  if (!b) return null
  const bytes = original.slice()
  const end = b.offset + b.size
  let what: string
  if (r() < 0.6) {
    const claim = pickOf(r, [0xffffffff, 0x7fffffff, 0x40000000, 0x10000000, 0x1000000])!
    const at = b.offset + (r() < 0.7 ? 0 : pick(r, Math.min(b.size, 16)))
    bytes.set(encodeVarint(claim).subarray(0, end - at), at)
    what = `a claimed size of ${claim} at ${at} in the ${label(b)}`
  } else {
    const at = b.offset + pick(r, b.size)
    const n = 1 + pick(r, 8)
    for (let i = 0; i < n && at + i < end; i++) bytes[at + i] = differentByte(r, original[at + i])
    what = `${n} bytes at ${at} in the ${label(b)}`
  }
  resealBlock(bytes, map, b)
  return { kind: 'compressed-bytes', what: `${what}, checksum recomputed`, bytes }
}

/** The trailer's compression type byte: unknown, custom (0x80+) or another codec's, checksum recomputed. */
function compressionType(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const b = pickOf(r, map.blocks)
  if (!b) return null
  const type = pickOf(
    r,
    [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0b, 0x3f, 0x7f, 0x80, 0xc0, 0xff].filter((t) => t !== b.compressionType),
  )!
  const bytes = original.slice()
  bytes[b.offset + b.size] = type
  resealBlock(bytes, map, b)
  return { kind: 'compression-type', what: `compression type of the ${label(b)} set to 0x${type.toString(16)}`, bytes }
}

/** The footer's checksum type byte (format_version >= 1): unknown (5..255) or another known type. */
function checksumType(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  if (map.legacyFooter) return null
  // Mostly unknown types (5..255); else another known one, under which every block mismatches.
  const known = [0, 1, 2, 3, 4].filter((t) => t !== map.checksum.checksumType)
  const type = r() < 0.7 ? pickOf(r, [5, 6, 7, 0x7f, 0x80, 0xfe, 0xff])! : pickOf(r, known)!
  const bytes = original.slice()
  bytes[map.footerOffset] = type
  if (map.checksum.formatVersion >= 6 && type <= ChecksumType.XXH3) resealFooter(bytes, map, { ...map.checksum, checksumType: type })
  return { kind: 'checksum-type', what: `footer checksum type set to ${type}`, bytes }
}

const LYING_PROPERTIES = [
  Property.NumEntries,
  Property.DataSize,
  Property.IndexSize,
  Property.FilterSize,
  Property.NumDataBlocks,
  Property.RawKeySize,
  Property.RawValueSize,
  Property.IndexPartitions,
  Property.TopLevelIndexSize,
  Property.NumRangeDeletions,
  Property.DeletedKeys,
  Property.MergeOperands,
  Property.FormatVersion,
  Property.FixedKeyLength,
  Property.DataBlockRestartInterval,
  Property.IndexKeyIsUserKey,
  Property.IndexValueIsDeltaEncoded,
  Property.UserDefinedTimestampsPersisted,
]

/** A numeric property rewritten in place (same varint length, so nothing moves): off by one, zero, or the largest that fits. */
function propertyLie(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const b = map.blocks.find((x) => x.kind === 'properties' && x.compressionType === 0)
  if (!b) return null
  const props = decodeProperties(original.subarray(b.offset, b.offset + b.size), b.offset)
  const numeric = props.raw.filter((p) => NUMERIC_PROPERTIES.includes(p.name) && p.value.length > 0)
  const lies = numeric.filter((p) => LYING_PROPERTIES.includes(p.name as (typeof LYING_PROPERTIES)[number]))
  const p = pickOf(r, lies.length > 0 && r() < 0.8 ? lies : numeric)
  if (!p) return null
  const n = p.value.length
  const max = 2 ** Math.min(7 * n, 53) - 1
  const old = Number(readVarint(p.value))
  const value =
    pickOf(
      r,
      [0, old + 1, Math.max(0, old - 1), max, Math.floor(max / 2)].filter((v) => v !== old && v <= max),
    ) ?? 0
  const bytes = original.slice()
  bytes.set(paddedVarint(value, n), p.valueOffset)
  resealBlock(bytes, map, b)
  return { kind: 'property-lie', what: `property ${p.name} set from ${old} to ${value}`, bytes }
}

/** Values a corrupt handle field may claim: past the file, huge, at 2^31/2^32 and 2^53 boundaries, or zero. */
function absurdValue(r: Rand, map: TableMap): bigint {
  return pickOf(r, [
    0n,
    1n,
    BigInt(map.size),
    BigInt(map.size) - 1n,
    BigInt(map.footerOffset),
    2n ** 31n,
    2n ** 31n - 1n,
    2n ** 32n - 1n,
    2n ** 32n + 7n,
    2n ** 53n + 1n,
    2n ** 63n - 1n,
    2n ** 64n - 1n,
  ])!
}

/** A handle in the footer (format_version < 6: both handles; 6 and 7: the metaindex size). */
function footerHandle(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const bytes = original.slice()
  const field = pick(r, 4)
  const value = absurdValue(r, map)
  if (map.checksum.formatVersion >= 6) {
    writeFixed32(bytes, map.footerOffset + 13, Number(value & 0xffffffffn))
    resealFooter(bytes, map, map.checksum)
    return { kind: 'footer-handle', what: `footer metaindex size set to ${value & 0xffffffffn}`, bytes }
  }
  const handles = [map.metaindexHandle.offset, map.metaindexHandle.size, map.indexHandle.offset, map.indexHandle.size].map(BigInt)
  handles[field] = value
  const area = concat(handles.map((v) => encodeVarint(v)))
  const start = map.footerOffset + (map.legacyFooter ? 0 : 1)
  bytes.fill(0, start, start + 40)
  bytes.set(area.subarray(0, 40), start)
  const names = ['metaindex offset', 'metaindex size', 'index offset', 'index size']
  return { kind: 'footer-handle', what: `footer ${names[field]} set to ${value}`, bytes }
}

/**
 * A metaindex entry's handle set to an absurd value (or a name dropped or
 * changed): the metaindex, which sits just before the footer, is re-encoded and
 * the footer rewritten after it, with valid checksums.
 */
function metaindexHandle(original: Uint8Array, map: TableMap, r: Rand): Edit | null {
  const meta = map.metaindexHandle
  if (map.legacyFooter || meta.offset + meta.size + BLOCK_TRAILER_BYTES !== map.footerOffset || map.metaindex.length === 0) return null
  const i = pick(r, map.metaindex.length)
  const target = map.metaindex[i]
  const entries = map.metaindex.map((e) => ({ name: e.name, handle: { offset: BigInt(e.handle.offset), size: BigInt(e.handle.size) } }))
  const field = pick(r, 3)
  const value = absurdValue(r, map)
  if (field === 0) entries[i].handle.offset = value
  else if (field === 1) entries[i].handle.size = value
  else entries[i].handle.size += 1n + BigInt(pick(r, 64))
  const block = encodeMetaindexBig(entries)
  const out = new Uint8Array(meta.offset + block.length + BLOCK_TRAILER_BYTES + FOOTER_BYTES)
  out.set(original.subarray(0, meta.offset))
  out.set(block, meta.offset)
  const newMeta = { offset: meta.offset, kind: 'metaindex', name: '', size: block.length, compressionType: 0 }
  resealBlock(out, map, newMeta)
  const indexEntry = entries.find((e) => e.name === INDEX_BLOCK)
  const footer = encodeFooter(
    {
      checksumType: map.checksum.checksumType,
      formatVersion: map.checksum.formatVersion,
      metaindexHandle: { offset: meta.offset, size: block.length },
      indexHandle: indexEntry ? { offset: Number(indexEntry.handle.offset), size: Number(indexEntry.handle.size) } : map.indexHandle,
      baseContextChecksum: map.checksum.baseContextChecksum,
    },
    (f) => computeStoredChecksum(map.checksum, f, out.length - FOOTER_BYTES),
  )
  out.set(footer, out.length - FOOTER_BYTES)
  const names = ['offset', 'size', 'size (a little larger)']
  return {
    kind: 'metaindex-handle',
    what: `metaindex entry "${target.name}" ${names[field]} set to ${field === 0 ? value : entries[i].handle.size}`,
    bytes: out,
  }
}

/** encodeMetaindex for handles whose fields may exceed 2^53 (absurd values are the point here). */
function encodeMetaindexBig(entries: { name: string; handle: { offset: bigint; size: bigint } }[]): Uint8Array {
  const small = entries.every((e) => e.handle.offset <= BigInt(Number.MAX_SAFE_INTEGER) && e.handle.size <= BigInt(Number.MAX_SAFE_INTEGER))
  if (small) return encodeMetaindex(entries.map((e) => ({ name: e.name, handle: { offset: Number(e.handle.offset), size: Number(e.handle.size) } })))
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const values = sorted.map((e) => concat([encodeVarint(e.handle.offset), encodeVarint(e.handle.size)]))
  // As encodeMetaindex writes it (restart interval 1: shared = 0 | non_shared | value_len | key | value), with bigint handles.
  const te = new TextEncoder()
  const parts: Uint8Array[] = []
  const restarts: number[] = []
  let pos = 0
  sorted.forEach((e, k) => {
    const key = te.encode(e.name)
    const entry = concat([Uint8Array.of(0), encodeVarint(key.length), encodeVarint(values[k].length), key, values[k]])
    restarts.push(pos)
    parts.push(entry)
    pos += entry.length
  })
  const tail = new Uint8Array(4 * restarts.length + 4)
  for (const [k, p] of restarts.entries()) writeFixed32(tail, 4 * k, p)
  writeFixed32(tail, 4 * restarts.length, restarts.length)
  return concat([...parts, tail])
}

// ---- helpers

/** Recompute a block's stored checksum after its payload or type byte changed. */
function resealBlock(bytes: Uint8Array, map: TableMap, b: MappedBlock): void {
  if (map.checksum.checksumType === ChecksumType.None) return
  const covered = bytes.subarray(b.offset, b.offset + b.size + 1)
  writeFixed32(bytes, b.offset + b.size + 1, computeStoredChecksum(map.checksum, covered, b.offset))
}

/** Recompute a format_version >= 6 footer's own checksum. */
function resealFooter(bytes: Uint8Array, map: TableMap, ctx: ChecksumContext): void {
  const at = map.footerOffset
  const footer = bytes.slice(at, at + FOOTER_BYTES)
  footer.fill(0, 5, 9)
  writeFixed32(bytes, at + 5, computeStoredChecksum(ctx, footer, at))
}

function layoutOf(bytes: Uint8Array, b: MappedBlock) {
  try {
    return decodeBlockLayout(bytes.subarray(b.offset, b.offset + b.size), b.offset)
  } catch {
    return null
  }
}

/** The checksummed range holding file offset `pos`, if any. */
function rangeOf(map: TableMap, pos: number): [number, number] | null {
  if (map.checksum.checksumType === ChecksumType.None) return null
  if (map.globalSeqno && pos >= map.globalSeqno[0] && pos < map.globalSeqno[1]) return null
  for (const b of map.blocks) {
    if (pos >= b.offset && pos < b.offset + b.size + BLOCK_TRAILER_BYTES) return [b.offset, b.offset + b.size + BLOCK_TRAILER_BYTES]
  }
  if (map.checksum.formatVersion >= 6 && pos >= map.footerOffset) return [map.footerOffset, map.size]
  return null
}

function covered(map: TableMap, pos: number): boolean {
  return rangeOf(map, pos) !== null
}

function sameRange(map: TableMap, a: number, b: number): boolean {
  const ra = rangeOf(map, a)
  return ra !== null && b < ra[1]
}

function where(map: TableMap, pos: number): string {
  const b = map.blocks.find((x) => pos >= x.offset && pos < x.offset + x.size + BLOCK_TRAILER_BYTES)
  if (b) return ` (${label(b)})`
  return pos >= map.footerOffset ? ' (footer)' : ''
}

function label(b: MappedBlock): string {
  return `${b.kind} block${b.name ? ` ${b.name}` : ''} at ${b.offset}`
}

function pick(r: Rand, n: number): number {
  return Math.floor(r() * n)
}

function pickOf<T>(r: Rand, xs: readonly T[]): T | undefined {
  return xs.length === 0 ? undefined : xs[pick(r, xs.length)]
}

function differentByte(r: Rand, old: number): number {
  return (old + 1 + pick(r, 255)) & 0xff
}

function skipVarint(bytes: Uint8Array, pos: number, end: number): number {
  let p = pos
  while (p < end && p - pos < 10 && bytes[p] & 0x80) p++
  return Math.min(p + 1, end)
}

function readVarint(bytes: Uint8Array): bigint {
  let v = 0n
  for (let i = 0; i < bytes.length && i < 10; i++) {
    v |= BigInt(bytes[i] & 0x7f) << BigInt(7 * i)
    if ((bytes[i] & 0x80) === 0) break
  }
  return v
}

/** `value` as a varint of exactly `n` bytes (padded with continuation bytes, which decoders accept). */
function paddedVarint(value: number, n: number): Uint8Array {
  const out = new Uint8Array(n)
  let v = BigInt(value)
  for (let i = 0; i < n; i++) {
    out[i] = Number(v & 0x7fn) | (i < n - 1 ? 0x80 : 0)
    v >>= 7n
  }
  return out
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0))
  let pos = 0
  for (const p of parts) {
    out.set(p, pos)
    pos += p.length
  }
  return out
}
