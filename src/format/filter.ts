/**
 * Filter blocks (RocksDB `table/block_based/filter_policy.cc`
 * `GetBuiltinFilterBitsReader`, `GetBloomBitsReader`, `GetRibbonBitsReader`;
 * `util/ribbon_impl.h` `SerializableInterleavedSolution`).
 *
 * A full filter (`fullfilter.<policy>` or a partition of `partitionedfilter.`)
 * is raw bytes, not a generic block: filter data then 5 metadata bytes. The
 * byte at len−5, read as int8, says which implementation built it:
 *
 *   1..127  legacy Bloom (format_version < 5): it is num_probes; then fixed32 num_lines
 *   −1      new Bloom: [len−4] sub-implementation (0 = FastLocalBloom),
 *           [len−3] top 3 bits log2(block bytes) − 6, low 5 bits num_probes (1..30),
 *           [len−2..len−1] reserved, zero
 *   −2      Standard128 Ribbon: [len−4] seed, [len−3..len−1] num_blocks (24-bit LE, ≥ 2)
 *   0       "always true" (zero probes)
 *   other   reserved; RocksDB reads it as always true
 *
 * A filter of 5 bytes or fewer is empty: "always false" (no keys added).
 *
 * RocksDB itself never fails on bad metadata: it silently treats the filter
 * as always-true. Here malformed metadata of a known kind throws a
 * CorruptionError instead, since no RocksDB writer produces it.
 *
 * The obsolete block-based filter (`filter.<policy>`, written until 6.x, unread
 * since 7.4) is a different layout; see {@link identifyBlockBasedFilter}.
 */
import { readFixed32 } from './coding.js'
import { CorruptionError } from './errors.js'

export const FILTER_METADATA_BYTES = 5

/** Sizes common to every description. */
export interface FilterSizes {
  /** Whole filter, metadata included. */
  totalBytes: number
  /** Trailing metadata (5, or all of an empty filter's ≤ 5 bytes). */
  metadataBytes: number
  /** Filter bits (totalBytes − metadataBytes). */
  dataBytes: number
  /** dataBytes × 8 / numKeys, when `numKeys` was given and is > 0. */
  bitsPerKey?: number
}

export type FilterDescription =
  | (FilterSizes & {
      kind: 'legacyBloom'
      numProbes: number
      numLines: number
      /** Cache-line size the writer used (64 normally; other powers of two on other CPUs). */
      lineBytes: number
    })
  | (FilterSizes & {
      kind: 'fastLocalBloom'
      numProbes: number
      /** Bytes per probed block (cache line); only 64 is defined. */
      blockBytes: number
      /** Blocks the reader probes: floor(dataBytes / blockBytes). */
      numBlocks: number
      /** Trailing data bytes no key can reach (0 for filters RocksDB writes). */
      unusedBytes: number
    })
  | (FilterSizes & {
      kind: 'ribbon'
      /** Ordinal seed (0..255) the builder settled on. */
      seed: number
      /** Blocks of 128 slots; num_starts = numBlocks × 128 − 127. */
      numBlocks: number
      numSlots: number
      /** 16-byte segments of solution data: floor(dataBytes / 16). */
      numSegments: number
      /** Result columns (bits per slot) of the blocks from `upperStartBlock` on; earlier blocks have one fewer. */
      upperNumColumns: number
      upperStartBlock: number
      /** Data bytes the solution does not use. */
      unusedBytes: number
    })
  | (FilterSizes & { kind: 'alwaysTrue'; marker: 0 })
  | (FilterSizes & { kind: 'alwaysFalse' })
  | (FilterSizes & { kind: 'reserved'; marker: number })

export interface IdentifyFilterOptions {
  /** Number of keys added (e.g. property `rocksdb.num.filter_entries`), to compute bitsPerKey. */
  numKeys?: number
}

/**
 * Identify a full filter block from its metadata. `base` is the file offset of
 * `bytes[0]` (errors point at the offending metadata byte).
 */
export function identifyFilter(bytes: Uint8Array, base = 0, opts: IdentifyFilterOptions = {}): FilterDescription {
  const totalBytes = bytes.length
  const sizes = (metadataBytes: number): FilterSizes => {
    const dataBytes = totalBytes - metadataBytes
    const s: FilterSizes = { totalBytes, metadataBytes, dataBytes }
    if (opts.numKeys !== undefined && opts.numKeys > 0) s.bitsPerKey = (dataBytes * 8) / opts.numKeys
    return s
  }
  if (totalBytes <= FILTER_METADATA_BYTES) return { kind: 'alwaysFalse', ...sizes(totalBytes) }

  const len = totalBytes - FILTER_METADATA_BYTES
  const meta = base + len
  const marker = (bytes[len] << 24) >> 24 // int8
  if (marker > 0) return legacyBloom(bytes, len, marker, meta, sizes(FILTER_METADATA_BYTES))
  switch (marker) {
    case 0:
      return { kind: 'alwaysTrue', marker: 0, ...sizes(FILTER_METADATA_BYTES) }
    case -1:
      return newBloom(bytes, len, meta, sizes(FILTER_METADATA_BYTES))
    case -2:
      return ribbon(bytes, len, meta, sizes(FILTER_METADATA_BYTES))
    default:
      return { kind: 'reserved', marker, ...sizes(FILTER_METADATA_BYTES) }
  }
}

function legacyBloom(bytes: Uint8Array, len: number, numProbes: number, meta: number, s: FilterSizes): FilterDescription {
  const numLines = readFixed32(bytes, len + 1)
  let log2 = 6
  if (numLines * 64 !== len) {
    if (numLines === 0 || len % numLines !== 0) {
      throw new CorruptionError(
        `legacy Bloom filter: ${len} data bytes are not a whole number of its ${numLines} cache lines` + ' (RocksDB would treat the filter as always-true)',
        meta + 1,
      )
    }
    log2 = 0
    while (numLines * 2 ** log2 < len) log2++
    if (numLines * 2 ** log2 !== len) {
      throw new CorruptionError(
        `legacy Bloom filter: ${len} data bytes / ${numLines} cache lines = ${len / numLines}-byte lines, not a power of two` +
          ' (RocksDB would treat the filter as always-true)',
        meta + 1,
      )
    }
  }
  return { kind: 'legacyBloom', numProbes, numLines, lineBytes: 2 ** log2, ...s }
}

function newBloom(bytes: Uint8Array, len: number, meta: number, s: FilterSizes): FilterDescription {
  const subImpl = bytes[len + 1]
  const blockAndProbes = bytes[len + 2]
  const log2BlockBytes = ((blockAndProbes >> 5) & 7) + 6
  const numProbes = blockAndProbes & 31
  const rest = bytes[len + 3] | (bytes[len + 4] << 8)
  const alwaysTrue = ' (RocksDB would treat the filter as always-true)'
  if (subImpl !== 0) {
    throw new CorruptionError(`new Bloom filter: unknown sub-implementation ${subImpl} (only 0, FastLocalBloom, is defined)${alwaysTrue}`, meta + 1)
  }
  if (numProbes < 1 || numProbes > 30) {
    throw new CorruptionError(`FastLocalBloom filter: num_probes ${numProbes} outside 1..30${alwaysTrue}`, meta + 2)
  }
  if (log2BlockBytes !== 6) {
    throw new CorruptionError(`FastLocalBloom filter: ${2 ** log2BlockBytes}-byte blocks are reserved (only 64 is defined)${alwaysTrue}`, meta + 2)
  }
  if (rest !== 0) {
    throw new CorruptionError(`FastLocalBloom filter: reserved metadata bytes are 0x${rest.toString(16).padStart(4, '0')}, not zero${alwaysTrue}`, meta + 3)
  }
  const blockBytes = 64
  const numBlocks = Math.floor(len / blockBytes)
  return { kind: 'fastLocalBloom', numProbes, blockBytes, numBlocks, unusedBytes: len - numBlocks * blockBytes, ...s }
}

const RIBBON_SEGMENT_BYTES = 16 // sizeof(Unsigned128) CoeffRow
const RIBBON_COEFF_BITS = 128
const RIBBON_MAX_COLUMNS = 32 // 8 × sizeof(uint32_t) ResultRow

function ribbon(bytes: Uint8Array, len: number, meta: number, s: FilterSizes): FilterDescription {
  const seed = bytes[len + 1]
  const numBlocks = bytes[len + 2] | (bytes[len + 3] << 8) | (bytes[len + 4] << 16)
  if (numBlocks < 2) {
    throw new CorruptionError(`Ribbon filter: num_blocks ${numBlocks} is below the minimum of 2 (RocksDB would treat the filter as always-true)`, meta + 2)
  }
  let numSegments = Math.floor(len / RIBBON_SEGMENT_BYTES)
  let upperNumColumns = Math.ceil(numSegments / numBlocks)
  let upperStartBlock = upperNumColumns * numBlocks - numSegments
  if (upperNumColumns > RIBBON_MAX_COLUMNS) {
    upperNumColumns = RIBBON_MAX_COLUMNS
    upperStartBlock = 0
    numSegments = numBlocks * upperNumColumns
  }
  return {
    kind: 'ribbon',
    seed,
    numBlocks,
    numSlots: numBlocks * RIBBON_COEFF_BITS,
    numSegments,
    upperNumColumns,
    upperStartBlock,
    unusedBytes: len - numSegments * RIBBON_SEGMENT_BYTES,
    ...s,
  }
}

// ---------------------------------------------------------------------------
// Obsolete block-based filter (`filter.<policy>` meta block)

/** One per-range filter of a block-based filter block. */
export interface BlockBasedFilterEntry {
  /** Filter i covers data blocks whose offset >> baseLg == i. */
  index: number
  /** Byte range [start, end) within the block. */
  start: number
  end: number
  /** Last byte of a non-empty filter (k); null when the filter has under 2 bytes (no keys). */
  numProbes: number | null
}

export interface BlockBasedFilterDescription {
  kind: 'blockBased'
  /** log2 of the data-offset range per filter (11 = 2 KiB in every RocksDB writer). */
  baseLg: number
  numFilters: number
  /** Start of the fixed32 offset array (= end of the filter data). */
  arrayOffset: number
  filters: BlockBasedFilterEntry[]
  totalBytes: number
}

/**
 * Decode the layout of an obsolete block-based filter block:
 *
 *   filter 0 | filter 1 | ... | fixed32 offset[0..n−1] | fixed32 array_offset | u8 base_lg
 *
 * Filter i spans [offset[i], offset[i+1]) with offset[n] = array_offset; each
 * non-empty filter is Bloom bits followed by one byte, its number of probes.
 * (v6.29.5 `table/block_based/block_based_filter_block.cc`.)
 */
export function identifyBlockBasedFilter(bytes: Uint8Array, base = 0): BlockBasedFilterDescription {
  const n = bytes.length
  const what = 'block-based filter'
  if (n < 5) {
    throw new CorruptionError(`${what}: ${n} bytes is shorter than the 5-byte trailer (array offset + base_lg)`, base)
  }
  const arrayOffset = readFixed32(bytes, n - 5)
  if (arrayOffset > n - 5) {
    throw new CorruptionError(`${what}: offset array start ${arrayOffset} is past the end of the filter data (${n - 5})`, base + n - 5)
  }
  const arrayBytes = n - 5 - arrayOffset
  if (arrayBytes % 4 !== 0) {
    throw new CorruptionError(`${what}: offset array of ${arrayBytes} bytes is not a whole number of fixed32 offsets`, base + arrayOffset)
  }
  const baseLg = bytes[n - 1]
  if (baseLg > 63) {
    throw new CorruptionError(`${what}: base_lg ${baseLg} is not a valid shift (RocksDB writes 11)`, base + n - 1)
  }
  const numFilters = arrayBytes / 4
  const filters: BlockBasedFilterEntry[] = []
  for (let i = 0; i < numFilters; i++) {
    const start = readFixed32(bytes, arrayOffset + 4 * i)
    const end = readFixed32(bytes, arrayOffset + 4 * i + 4) // for the last filter: array_offset itself
    if (start > end || end > arrayOffset) {
      throw new CorruptionError(
        `${what}: filter ${i} spans [${start}, ${end}) which is not inside the ${arrayOffset} bytes of filter data`,
        base + arrayOffset + 4 * i,
      )
    }
    filters.push({ index: i, start, end, numProbes: end - start >= 2 ? bytes[end - 1] : null })
  }
  return { kind: 'blockBased', baseLg, numFilters, arrayOffset, filters, totalBytes: n }
}
