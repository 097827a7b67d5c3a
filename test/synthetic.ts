/**
 * Synthetic SSTs for edge tests: written by sstkit's own table writer (RocksDB's
 * format, bytewise comparator), with entries given in the order to write them,
 * in or out of key order. Not real RocksDB output: name files synthetic-*.
 */
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { deflateRawSync } from 'node:zlib'
import { CompressionType } from '../src/codec/compression.js'
import { type BlockHandle, encodeBlockHandle } from '../src/format/block-handle.js'
import { BlockBuilder } from '../src/format/block.js'
import { ChecksumType } from '../src/format/checksum-type.js'
import { readFixed32, writeFixed32 } from '../src/format/coding.js'
import { LEGACY_BLOCK_BASED_TABLE_MAGIC, LEGACY_FOOTER_BYTES } from '../src/format/footer.js'
import { computeStoredChecksum } from '../src/table/block-reader.js'
import { openTable } from '../src/table/reader.js'
import { FileSink, plainWriterOptions, TableWriter, type TableWriterOptions } from '../src/table/writer.js'
import { prng } from '../src/util/prng.js'

export type Entry = [internalKey: Uint8Array, value: Uint8Array]

export function writeSyntheticTable(
  path: string,
  entries: Iterable<Entry>,
  o: { compression?: number; blockSize?: number; index?: 'binary' | 'partitioned'; metadataBlockSize?: number; props?: [string, Uint8Array][] } = {},
): string {
  const options = plainWriterOptions({
    compressionType: o.compression ?? CompressionType.None,
    blockSize: o.blockSize ?? 4096,
    index: o.index ?? 'binary',
    metadataBlockSize: o.metadataBlockSize ?? 4096,
  })
  for (const [name, value] of o.props ?? []) options.baseProperties.set(name, value)
  return writeSyntheticTableWith(path, entries, options)
}

/** A synthetic table written with these writer options (plainWriterOptions and what a test changes). */
export function writeSyntheticTableWith(path: string, entries: Iterable<Entry>, options: TableWriterOptions): string {
  const fd = openSync(path, 'w')
  try {
    const w = new TableWriter(new FileSink(fd), options)
    for (const [k, v] of entries) w.add(k, v)
    w.finish()
  } finally {
    closeSync(fd)
  }
  return path
}

/**
 * A copy of the table at `path`, written to `out`, with `count` data blocks damaged (chosen
 * by `seed`): a byte changed, as often in the restart array and block footer (in an
 * uncompressed block where its footer says they are, else in its last 24 bytes) as in the
 * entries, and the block's checksum written again unless `fixChecksums` is false, so that
 * only the block's own decoding can find the damage.
 */
export function damagedCopy(path: string, out: string, seed: number, count: number, fixChecksums = true): string {
  const bytes = new Uint8Array(readFileSync(path))
  const t = openTable(path, { verifyChecksums: false })
  const blocks = [...t.dataBlocks()].map((r) => r.handle)
  const random = prng(seed)
  for (let i = 0; i < count; i++) {
    const h = blocks[Math.floor(random() * blocks.length)]
    const what = random()
    // In a ZSTD or LZ4 block, the size RocksDB's framing puts before the codec's stream as often again.
    const type = bytes[h.offset + h.size]
    const uncompressed = type === CompressionType.None
    const framed = type !== CompressionType.None && type !== CompressionType.Snappy
    const tail = uncompressed ? Math.min(h.size, 4 + 4 * (readFixed32(bytes, h.offset + h.size - 4) & 0xffff)) : Math.min(h.size, 24)
    const head = framed && random() < 0.3
    const at = head
      ? h.offset + Math.floor(random() * Math.min(h.size, 10))
      : what < 0.5
        ? h.offset + Math.floor(random() * h.size)
        : h.offset + h.size - 1 - Math.floor(random() * tail)
    bytes[at] = what < 0.25 || what > 0.75 ? bytes[at] ^ (1 << Math.floor(random() * 8)) : Math.floor(random() * 256)
    if (fixChecksums) writeFixed32(bytes, h.offset + h.size + 1, computeStoredChecksum(t.checksum, bytes.subarray(h.offset, h.offset + h.size + 1), h.offset))
  }
  t.close()
  writeFileSync(out, bytes)
  return out
}

/** Blocks with restart arrays that restartDamagedCopy can damage. */
export type RestartBlockKind = 'data' | 'index' | 'index partition' | 'metaindex' | 'properties' | 'range deletions'

/**
 * How restartDamagedCopy breaks RocksDB's restart rule (table/block_based/block.cc, BinarySeek: each restart point is the
 * offset of an entry that shares no key bytes): `into`, restart point 1 moved into the first entry; `middle`, restart
 * point 1 moved one byte on, into the middle of the entry it pointed at; `duplicate`, the last restart point repeats
 * the one before; `shared`, the entry at the last restart point shares one key byte.
 */
export type RestartDamage = 'into' | 'middle' | 'duplicate' | 'shared'

/**
 * A copy of the table at `path`, written to `out`, with the restart array (or the entry at a restart point) of one
 * uncompressed block of `kind` damaged and the block's checksum written again, so that only the restart check can
 * find it. The block: the second data block (else the first), the top index, the first index partition, the
 * metaindex, the properties, the range deletions. Null when the table has no such uncompressed block, or the block
 * too few restart points (or entries) for the damage.
 */
export function restartDamagedCopy(path: string, out: string, kind: RestartBlockKind, damage: RestartDamage): string | null {
  const bytes = new Uint8Array(readFileSync(path))
  const t = openTable(path, { verifyChecksums: false })
  try {
    let h: { offset: number; size: number } | null | undefined
    if (kind === 'data') {
      const blocks = [...t.dataBlocks()]
      h = (blocks[1] ?? blocks[0])?.handle
    } else if (kind === 'index') h = t.indexHandle
    else if (kind === 'index partition') {
      if (!t.isPartitionedIndex) return null
      const top = t.topIndex()
      top.seekToFirst()
      h = top.valid ? top.handle : null
    } else if (kind === 'metaindex') h = t.footer.metaindexHandle
    else h = t.metaBlock(kind === 'properties' ? 'rocksdb.properties' : 'rocksdb.range_del')
    if (!h || bytes[h.offset + h.size] !== CompressionType.None) return null
    const block = bytes.subarray(h.offset, h.offset + h.size)
    const packed = readFixed32(block, block.length - 4)
    if (packed >>> 28 !== 0) return null // hash index or separated values: the restart array is elsewhere
    const n = packed
    const restarts = block.length - 4 - 4 * n
    const point = (i: number) => readFixed32(block, restarts + 4 * i)
    if (damage === 'shared') {
      const at = point(n - 1)
      if (block[at] !== 0 || (n === 1 && at !== 0)) return null
      block[at] = 1
    } else {
      if (n < 2) return null
      if (damage === 'into') writeFixed32(block, restarts + 4, 1)
      else if (damage === 'middle') writeFixed32(block, restarts + 4, point(1) + 1)
      else writeFixed32(block, restarts + 4 * (n - 1), point(n - 2))
    }
    writeFixed32(bytes, h.offset + h.size + 1, computeStoredChecksum(t.checksum, bytes.subarray(h.offset, h.offset + h.size + 1), h.offset))
  } finally {
    t.close()
  }
  writeFileSync(out, bytes)
  return out
}

/**
 * A copy of the table at `path` whose first metaindex entry has control bytes (0x00 0x0a 0x1b) in place of
 * three bytes of its name and a handle one byte off (so that the block it names reads as damaged), the
 * metaindex's checksum written again: a name read from a file that must never reach output raw.
 */
export function metaindexNameDamagedCopy(path: string, out: string): string {
  const bytes = new Uint8Array(readFileSync(path))
  const t = openTable(path, { verifyChecksums: false })
  try {
    const h = t.footer.metaindexHandle
    const block = bytes.subarray(h.offset, h.offset + h.size)
    // The first entry: shared 0, name length, value length (one byte each here), the name, then its handle.
    const nameLength = block[1]
    if (block[0] !== 0 || nameLength < 10 || block[2] >= 0x80) throw new Error(`${path}: unexpected first metaindex entry`)
    block.set([0x00, 0x0a, 0x1b], 3 + 7)
    const offsetByte = 3 + nameLength
    // The offset's lowest 7 bits plus one (a varint's first byte keeps its continuation bit).
    if ((block[offsetByte] & 0x7f) === 0x7f) throw new Error(`${path}: unexpected handle encoding`)
    block[offsetByte]++
    writeFixed32(bytes, h.offset + h.size + 1, computeStoredChecksum(t.checksum, bytes.subarray(h.offset, h.offset + h.size + 1), h.offset))
  } finally {
    t.close()
  }
  writeFileSync(out, bytes)
  return out
}

/**
 * A copy of the table at `path` with `from` replaced by `to` (the same length) in its uncompressed properties
 * block, the block's checksum written again: e.g. control bytes in a property's name or text value.
 */
export function propertiesEditedCopy(path: string, out: string, from: string, to: Uint8Array): string {
  const bytes = new Uint8Array(readFileSync(path))
  const t = openTable(path, { verifyChecksums: false })
  try {
    const h = t.metaBlock('rocksdb.properties')
    if (!h || bytes[h.offset + h.size] !== CompressionType.None) throw new Error(`${path}: no uncompressed properties block`)
    const block = bytes.subarray(h.offset, h.offset + h.size)
    const at = Buffer.from(block).indexOf(from, 0, 'latin1')
    if (at < 0 || to.length !== from.length) throw new Error(`${path}: '${from}' not in the properties block`)
    block.set(to, at)
    writeFixed32(bytes, h.offset + h.size + 1, computeStoredChecksum(t.checksum, bytes.subarray(h.offset, h.offset + h.size + 1), h.offset))
  } finally {
    t.close()
  }
  writeFileSync(out, bytes)
  return out
}

/**
 * A table in LevelDB's format (48-byte footer with LevelDB's magic, no properties block, CRC32c)
 * whose data blocks are raw deflate under compression id 4, as Mojang's LevelDB fork (Minecraft
 * Bedrock worlds, its ZlibCompressorRaw) writes them, but the index kept raw. Synthetic: framed by this
 * function (node's deflateRaw), not by that fork; the fork's own table is test/fixtures/found/mojang-zlib.
 * `blockPayload` may replace a data block's stored bytes (to store ones that are not raw deflate).
 */
export function writeSyntheticMojangTable(
  path: string,
  entries: Entry[],
  o: { perBlock?: number; blockPayload?: (deflated: Uint8Array, index: number) => Uint8Array } = {},
): string {
  const chunks: Uint8Array[] = []
  let offset = 0
  const ctx = { checksumType: ChecksumType.CRC32c, formatVersion: 0, baseContextChecksum: 0 }
  const put = (payload: Uint8Array, type: number): BlockHandle => {
    const withTrailer = new Uint8Array(payload.length + 5)
    withTrailer.set(payload)
    withTrailer[payload.length] = type
    writeFixed32(withTrailer, payload.length + 1, computeStoredChecksum(ctx, withTrailer.subarray(0, payload.length + 1), offset))
    const handle = { offset, size: payload.length }
    chunks.push(withTrailer)
    offset += withTrailer.length
    return handle
  }
  const index = new BlockBuilder(1)
  const perBlock = o.perBlock ?? 50
  for (let i = 0, n = 0; i < entries.length; i += perBlock, n++) {
    const block = new BlockBuilder(16)
    const part = entries.slice(i, i + perBlock)
    for (const [k, v] of part) block.add(k, v)
    const deflated = new Uint8Array(deflateRawSync(block.finish()))
    const handle = put(o.blockPayload ? o.blockPayload(deflated, n) : deflated, 4)
    index.add(part[part.length - 1][0], encodeBlockHandle(handle))
  }
  const metaindex = put(new BlockBuilder(1).finish(), CompressionType.None)
  const indexHandle = put(index.finish(), CompressionType.None)
  const footer = new Uint8Array(LEGACY_FOOTER_BYTES)
  const handles = [...encodeBlockHandle(metaindex), ...encodeBlockHandle(indexHandle)]
  footer.set(handles)
  new DataView(footer.buffer).setBigUint64(LEGACY_FOOTER_BYTES - 8, LEGACY_BLOCK_BASED_TABLE_MAGIC, true)
  chunks.push(footer)
  writeFileSync(path, Buffer.concat(chunks))
  return path
}
