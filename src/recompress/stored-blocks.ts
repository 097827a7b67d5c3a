/**
 * A pass's stored data blocks, in file order, decoded a run at a time: the native decoder
 * (verify/native.ts NativeBlockDecoder, scan's and the drop-in's) checks and decompresses a run's
 * blocks into one buffer in one call, where reading them one by one (Table.readDataBlock) took a
 * read, a checksum call and a decompression call from JavaScript per block. A block the decoder
 * leaves (one it does not pass, a codec or checksum it does not do, one too large for its buffer)
 * is read on its own by readDataBlock, which words any problem, so what a pass meets is the same.
 * Each block is tallied and observed as readDataBlock would (`reuse.tally`, `reuse.observe`).
 */
import { markDecompressed } from '../format/block.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import type { BlockHandle } from '../format/block-handle.js'
import type { ReadWindow } from '../io/byte-source.js'
import type { DataBlockReuse, Table } from '../table/reader.js'
import { tallyBlock } from '../table/reader.js'
import { chunkExtent } from '../util/chunk-queue.js'
import { BlockCheck } from '../verify/block-checker.js'
import { NativeBlockDecoder } from '../verify/native.js'

/** A stored block: its handle and contents (valid until the next), or the error its read (or the index's) met. */
export type StoredBlock = { handle: BlockHandle; data: Uint8Array; error?: undefined } | { handle: BlockHandle | null; data?: undefined; error: unknown }

/** A run: at most this many blocks and stored bytes, read in one go. */
const RUN_BLOCKS = 128
const RUN_BYTES = 256 << 10
/** The decoded contents of a run go into a buffer of this size (a block larger is read on its own). */
const OUTPUT_BYTES = 1 << 20

/** The native decoder of `table`'s data blocks, or null (no kernel, or a dictionary that does not read: readDataBlock words it). */
export function storedBlockDecoder(table: Table): NativeBlockDecoder | null {
  try {
    const facts = {
      checksum: table.checksum,
      footerOffset: table.footer.offset,
      maxBlockBytes: table.maxBlockBytes,
      dictionary: table.dictionary() ?? undefined,
    }
    return NativeBlockDecoder.create(facts, table.verifyChecksums ? BlockCheck.Checksums : 0)
  } catch {
    return null
  }
}

/**
 * The data blocks of `table`, read through `reuse.window` and decoded by `decoder` a run at a time
 * (each block by readDataBlock where it is null). `onRead(ms, bytes)`: each block's share of the reading.
 */
export function* storedBlocks(
  table: Table,
  decoder: NativeBlockDecoder | null,
  reuse: DataBlockReuse & { window: ReadWindow },
  onRead?: (ms: number, bytes: number) => void,
): Generator<StoredBlock> {
  const one = (handle: BlockHandle): StoredBlock => {
    const t0 = onRead ? performance.now() : 0
    try {
      const data = table.readDataBlock(handle, reuse)
      onRead?.(performance.now() - t0, data.length)
      return { handle, data }
    } catch (error) {
      return { handle, error }
    }
  }
  const handles = table.dataHandles()[Symbol.iterator]()
  const pairs = new Float64Array(2 * RUN_BLOCKS)
  const run: BlockHandle[] = []
  const output = decoder ? new Uint8Array(OUTPUT_BYTES) : null
  for (;;) {
    run.length = 0
    let bytes = 0
    let indexError: { error: unknown } | null = null
    while (run.length < RUN_BLOCKS && bytes < RUN_BYTES) {
      let next: IteratorResult<BlockHandle>
      try {
        next = handles.next()
      } catch (error) {
        indexError = { error }
        break
      }
      if (next.done) break
      pairs[2 * run.length] = next.value.offset
      pairs[2 * run.length + 1] = next.value.size
      run.push(next.value)
      bytes += next.value.size
    }
    if (run.length > 0) {
      if (!decoder || !output) for (const h of run) yield one(h)
      else yield* decodedRun(table, decoder, output, reuse, run, pairs.subarray(0, 2 * run.length), one, onRead)
    }
    if (indexError) {
      yield { handle: null, error: indexError.error }
      return
    }
    if (run.length < RUN_BLOCKS && bytes < RUN_BYTES) return
  }
}

function* decodedRun(
  table: Table,
  decoder: NativeBlockDecoder,
  output: Uint8Array,
  reuse: DataBlockReuse & { window: ReadWindow },
  run: readonly BlockHandle[],
  pairs: Float64Array,
  one: (handle: BlockHandle) => StoredBlock,
  onRead?: (ms: number, bytes: number) => void,
): Generator<StoredBlock> {
  // The reading's time for onRead, the run's read from the file included.
  let t0 = onRead ? performance.now() : 0
  const extent = chunkExtent(pairs, BLOCK_TRAILER_BYTES, table.footer.offset, 2 * RUN_BYTES)
  let src: Uint8Array | null = null
  if (extent) {
    try {
      src = reuse.window.read(extent.offset, extent.length)
    } catch {
      src = null // each block's own read meets the problem and words it
    }
  }
  if (!src || !extent) {
    for (const h of run) yield one(h)
    return
  }
  let from = 0
  let first = true
  while (from < run.length) {
    // The first call's time counts from before the run's read; a later one's from itself (the blocks between were the caller's).
    if (!first && onRead) t0 = performance.now()
    first = false
    const done = decoder.decode(src, src.length, extent.offset, pairs.subarray(2 * from), output, output.length)
    const results = decoder.results
    let decoded = 0
    let b = 0
    for (; b < done && results[2 * b + 1] >= 0; b++) decoded += results[2 * b + 1]
    onRead?.(performance.now() - t0, decoded)
    for (let k = 0; k < b; k++) {
      const handle = run[from + k]
      const at = handle.offset - extent.offset
      const type = src[at + handle.size]
      const data = output.subarray(results[2 * k], results[2 * k] + results[2 * k + 1])
      // Decompressed contents: an error in them names the block, as readDataBlock's do (format/block.ts errorOffset).
      if (type !== 0) markDecompressed(data)
      if (reuse.tally) tallyBlock(reuse.tally, handle, type)
      reuse.observe?.({ handle, payload: src.subarray(at, at + handle.size), compressionType: type }, data)
      yield { handle, data }
    }
    from += b
    // A block the decoder left, or one too large for the output: read on its own (inside the window: src stays valid).
    if (from < run.length && (b < done || done === 0)) yield one(run[from++])
  }
}
