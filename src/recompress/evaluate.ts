/**
 * Evaluating configurations over one pass of a file's data blocks. Each block
 * is compressed as RocksDB's builder would (v2 framing, acceptance rule),
 * decompressed again and compared with the original (the decompression time
 * doubles as a round-trip check), and the index is rebuilt for the new handles.
 *
 * Runs in a worker thread or inline; pure function of its inputs except timings.
 */
import { compressBlock, CompressionType, decompressBlock } from '../codec/compression.js'
import { encodeVarint } from '../format/coding.js'
import { ZstdCodec } from '../codec/zstd.js'
import { openTable, Table } from '../table/reader.js'
import { BlockBuilder } from '../table/block-builder.js'
import { ShortenedIndexBuilder } from '../table/index-builder.js'
import { effectiveLevel, RecompressConfig } from './config.js'
import { SkippedBlock, SourceOptions, sourceBlocks } from './source.js'

/** RocksDB's default `max_compressed_bytes_per_kb` (7/8). */
export const DEFAULT_MAX_COMPRESSED_BYTES_PER_KB = 896
const BLOCK_TRAILER_BYTES = 5
/** format_version the estimate assumes for framing and index encoding. */
const FORMAT_VERSION = 5

export interface EvaluateTask {
  file: string
  configs: RecompressConfig[]
  /** Dictionary per config id (empty = none). */
  dictionaries: Record<number, Uint8Array>
  source: SourceOptions
  maxCompressedBytesPerKb: number
  repeat: number
}

export interface ConfigMeasurement {
  id: number
  blocks: number
  blocksCompressed: number
  blocksRejected: number
  blocksBypassed: number
  uncompressedBytes: number
  /** Data blocks as stored: payloads + trailers. */
  dataBytes: number
  /** Rebuilt index block, on disk (compressed when it passes the rule). */
  indexBytes: number
  /** Compression / decompression time per repeat, ms. */
  compressMs: number[]
  decompressMs: number[]
}

export class RoundTripError extends Error {
  override name = 'RoundTripError'
}

interface BlockCodec {
  compress(raw: Uint8Array): Uint8Array
  decompress(framed: Uint8Array, size: number): Uint8Array
}

/** A codec with fixed settings; zstd keeps its own contexts and dictionary. */
export function blockCodec(c: RecompressConfig, dictionary: Uint8Array | undefined): BlockCodec {
  const level = effectiveLevel(c)
  if (c.type === CompressionType.ZSTD) {
    const z = new ZstdCodec(level ?? 3, c.checksum, dictionary)
    return {
      compress(raw) {
        // varint32 size prefix, then the frame: written in place, no copy.
        const prefix = encodeVarint(raw.length)
        const { buffer, length } = z.compress(raw, prefix.length)
        buffer.set(prefix, 0)
        return buffer.subarray(0, length)
      },
      decompress(framed, size) {
        let p = 0
        while (framed[p] & 0x80) p++
        return z.decompress(framed.subarray(p + 1), size)
      },
    }
  }
  return {
    compress: (raw) => compressBlock(c.type, raw, { formatVersion: FORMAT_VERSION, level: level ?? undefined, dictionary }),
    decompress: (framed) => decompressBlock(c.type, framed, { formatVersion: FORMAT_VERSION, dictionary }),
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
}

interface ConfigState {
  config: RecompressConfig
  codec: BlockCodec | null
  m: ConfigMeasurement
  /** Own-boundaries index: stored separators with the new handles. */
  separators: BlockBuilder | null
  recut: ShortenedIndexBuilder | null
  offset: number
  pendingLastKey: Uint8Array | null
  pendingHandle: { offset: number; size: number } | null
}

/**
 * Evaluate every config of the task in one pass over the blocks.
 * Returns measurements in config order, plus blocks that could not be read.
 */
export function evaluate(task: EvaluateTask, onBlock?: () => void): { results: ConfigMeasurement[]; skipped: SkippedBlock[] } {
  const table = openTable(task.file)
  try {
    return evaluateTable(table, task, onBlock)
  } finally {
    table.close()
  }
}

export function evaluateTable(table: Table, task: EvaluateTask, onBlock?: () => void): { results: ConfigMeasurement[]; skipped: SkippedBlock[] } {
  const repeat = Math.max(1, task.repeat)
  const perKb = Math.min(1023, task.maxCompressedBytesPerKb)
  const recut = task.source.blockSize !== null
  const deltaValues = table.indexEncoding.valueIsDeltaEncoded || recut
  const states: ConfigState[] = task.configs.map((config) => {
    const dict = task.dictionaries[config.id]
    return {
      config,
      codec: config.type === CompressionType.None ? null : blockCodec(config, dict && dict.length > 0 ? dict : undefined),
      m: {
        id: config.id,
        blocks: 0,
        blocksCompressed: 0,
        blocksRejected: 0,
        blocksBypassed: 0,
        uncompressedBytes: 0,
        dataBytes: 0,
        indexBytes: 0,
        compressMs: new Array(repeat).fill(0),
        decompressMs: new Array(repeat).fill(0),
      },
      separators: recut ? null : new BlockBuilder(1, true, deltaValues),
      recut: recut ? new ShortenedIndexBuilder({ userKeys: true, deltaValues: true, valueTypeForSeek: 0x11 }) : null,
      offset: 0,
      pendingLastKey: null,
      pendingHandle: null,
    }
  })
  const skipped: SkippedBlock[] = []
  for (const block of sourceBlocks(table, task.source, skipped)) {
    const raw = block.data
    const n = raw.length
    for (const s of states) {
      const m = s.m
      m.blocks++
      m.uncompressedBytes += n
      let stored = n
      const budget = Math.floor((perKb * n) / 1024)
      if (!s.codec || budget <= 5 || perKb <= 0) {
        m.blocksBypassed++
      } else {
        let framed: Uint8Array | null = null
        if (m.blocks === 1) {
          // Untimed warm-up: the first frame allocates the contexts' tables and digests the dictionary.
          s.codec.decompress(s.codec.compress(raw), n)
        }
        for (let r = 0; r < repeat; r++) {
          const t0 = performance.now()
          framed = s.codec.compress(raw)
          m.compressMs[r] += performance.now() - t0
        }
        if (framed!.length > budget) {
          m.blocksRejected++
        } else {
          let out: Uint8Array | null = null
          for (let r = 0; r < repeat; r++) {
            const t0 = performance.now()
            out = s.codec.decompress(framed!, n)
            m.decompressMs[r] += performance.now() - t0
          }
          if (!equalBytes(out!, raw)) {
            throw new RoundTripError(`round trip mismatch for block ${block.index} under ${JSON.stringify(s.config)}`)
          }
          m.blocksCompressed++
          stored = framed!.length
        }
      }
      m.dataBytes += stored + BLOCK_TRAILER_BYTES
      const handle = { offset: s.offset, size: stored }
      s.offset += stored + BLOCK_TRAILER_BYTES
      if (s.separators && block.indexKey) {
        s.separators.add(block.indexKey, new Uint8Array([...encodeVarint(handle.offset), ...encodeVarint(handle.size)]))
      } else if (s.recut && block.firstKey && block.lastKey) {
        if (s.pendingLastKey && s.pendingHandle) s.recut.add(s.pendingLastKey, block.firstKey, s.pendingHandle)
        s.pendingLastKey = block.lastKey
        s.pendingHandle = handle
      }
    }
    onBlock?.()
  }
  for (const s of states) {
    let index: Uint8Array | null = null
    if (s.separators && !s.separators.empty) index = s.separators.finish()
    if (s.recut) {
      if (s.pendingLastKey && s.pendingHandle) s.recut.add(s.pendingLastKey, null, s.pendingHandle)
      if (s.recut.entries > 0) index = s.recut.finish()
    }
    if (index) {
      // Index blocks are compressed like data blocks, without the dictionary.
      let stored = index.length
      if (s.config.type !== CompressionType.None) {
        const codec = blockCodec(s.config, undefined)
        const framed = codec.compress(index)
        if (framed.length <= Math.floor((perKb * index.length) / 1024)) stored = framed.length
      }
      s.m.indexBytes = stored + BLOCK_TRAILER_BYTES
    }
  }
  return { results: states.map((s) => s.m), skipped }
}
