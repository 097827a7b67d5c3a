/**
 * Synthetic SSTs for edge tests: written by sstkit's own table writer (RocksDB's
 * format, bytewise comparator), with entries given in the order to write them,
 * in or out of key order. Not real RocksDB output: name files synthetic-*.
 */
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { CompressionType } from '../src/codec/compression.js'
import { readFixed32, writeFixed32 } from '../src/format/coding.js'
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
