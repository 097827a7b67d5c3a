/**
 * Prints the entries of a run of data blocks, with the range tombstones that
 * sort among them, as `scan` shows them. The same code runs on the main thread
 * and in scan workers (each over its own chunks of blocks).
 */
import { type Scratch, newScratch } from '../codec/output.js'
import type { BlockHandle } from '../format/block-handle.js'
import { BlockIter, decodeBlockLayout } from '../format/block.js'
import { ReadWindow } from '../io/byte-source.js'
import { readFixed32, toHex } from '../format/coding.js'
import { ValueType } from '../format/value-type.js'
import { escapeBytes } from '../report/text.js'
import { CorruptionError } from '../format/errors.js'
import { GlobalSeqnoPatch, sequenceFrom, type SequenceNumber } from '../format/internal-key.js'
import type { RangeTombstone } from '../format/range-del.js'
import type { Table } from '../table/reader.js'
import { entryJson, entryLine, writeEntryLine, type EntryView } from '../report/entries.js'
import type { LineWriter } from '../report/line-writer.js'
import type { BlobValues } from './blob-values.js'
import { WasmBlockPrinter } from './wasm-printer.js'
import { NativeBlockDecoder } from '../verify/native.js'
import { BlockCheck } from '../verify/block-checker.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { chunkExtent } from '../util/chunk-queue.js'

export interface ScanSpec {
  /** First user key to print (inclusive). */
  from?: Uint8Array
  /** Stop before this user key. */
  to?: Uint8Array
  /** Only user keys starting with these bytes. */
  prefix?: Uint8Array
  format: 'text' | 'jsonl'
  /** Keys and values as hex. */
  hex: boolean
  /** jsonl: a `file` field on every line (several files in one run). */
  file?: string
  /** Resolve blob indexes to their values from these blob files (serial, JavaScript printing). */
  blobs?: BlobValues
}

export interface ChunkResult {
  /** Lines printed (entries and tombstones). */
  count: number
  /** A key past `to` or past the prefix was met: later blocks hold nothing to print. */
  stop: boolean
  /** First tombstone this chunk considered (-1: the chunk had no entries). */
  tombstonesFrom: number
  /** Tombstones before this index are printed or belong before this chunk. */
  tombstonesTo: number
}

/** Seqs compared as RocksDB orders them (numbers below 2^53, bigints above). */
function seqAtLeast(a: number | bigint, b: number | bigint): boolean {
  return typeof a === 'number' && typeof b === 'number' ? a >= b : BigInt(a) >= BigInt(b)
}

export class EntryPrinter {
  private readonly cmp: (a: Uint8Array, b: Uint8Array) => number
  private readonly tsSize: number
  private readonly scratch: Scratch = newScratch()
  private readonly window: ReadWindow
  private readonly globalSeqno: GlobalSeqnoPatch | null
  private readonly filtered: boolean
  /** Raw-key table: keys are whole user keys, printed without sequence number or type. */
  private readonly raw: boolean
  /** Prints whole blocks in WebAssembly when nothing needs per-entry JavaScript (see canUseWasm). */
  private readonly wasm: WasmBlockPrinter | null
  /** With the WebAssembly printer: reads a batch of blocks into its memory in one native call (native/verify-kernel.c). */
  private readonly decoder: NativeBlockDecoder | null
  private batch = new Float64Array(2 * BATCH_BLOCKS)

  constructor(
    readonly table: Table,
    readonly spec: ScanSpec,
    /** In print order (see sortTombstones); may be empty. */
    readonly tombstones: readonly RangeTombstone[],
    /**
     * wasm: false prints every block in JavaScript (the reference the fast path is tested against);
     * native: false reads every block on its own (not through the native decoder).
     */
    options: { wasm?: boolean; native?: boolean } = {},
  ) {
    this.filtered = !!(spec.from || spec.to || spec.prefix)
    // A range needs the file's own comparator (this throws a usage error without it): under
    // another, --from/--to/--prefix would print wrong entries without a sign of it.
    const user = this.filtered ? table.seekComparator() : table.userComparator
    // An unknown comparator can still be scanned in file order; tombstones then merge by seqno only.
    this.cmp = user ?? (() => 0)
    this.tsSize = table.comparatorName.endsWith('.u64ts') ? 8 : 0
    this.raw = table.keyFormat === 'raw'
    this.window = new ReadWindow(table.source)
    this.globalSeqno = table.globalSeqno >= 0 ? new GlobalSeqnoPatch(table.globalSeqno) : null
    const plainText = spec.format === 'text' && !this.filtered && tombstones.length === 0 && this.tsSize === 0 && !this.raw && !spec.blobs
    this.wasm = plainText && options.wasm !== false ? WasmBlockPrinter.create() : null
    this.decoder = this.wasm && options.native !== false ? createDecoder(table) : null
  }

  /** Read [offset, offset + length), the blocks about to be printed, in one go (see ReadWindow.fill). */
  readAhead(offset: number, length: number): void {
    this.window.fill(offset, length)
  }

  /** Whether a tombstone starts in the printed range. */
  inRange(userKey: Uint8Array): boolean {
    const s = this.spec
    if (s.from && this.cmp(userKey, s.from) < 0) return false
    if (s.to && this.cmp(userKey, s.to) >= 0) return false
    if (s.prefix && !startsWith(userKey, s.prefix)) return false
    return true
  }

  /**
   * Print the entries of `handles`, each preceded by the tombstones that sort
   * before it. `ti` is the first tombstone not yet printed, or -1 when unknown
   * (a chunk printed out of order): then the tombstones sorting before the
   * chunk's first entry are left for the caller (see `tombstonesFrom`).
   */
  printBlocks(w: LineWriter, handles: Iterable<BlockHandle>, ti: number, limit: number): ChunkResult {
    const result: ChunkResult = { count: 0, stop: false, tombstonesFrom: ti, tombstonesTo: ti }
    const { spec, cmp, table, tombstones } = this
    const jsonl = spec.format === 'jsonl'
    const restartInterval = table.dataRestartInterval
    let count = 0
    let first = true
    const wasm = this.wasm
    if (wasm && this.decoder) {
      // Nothing here needs per-entry JavaScript (no range, no tombstones): blocks are read a batch at a time.
      try {
        result.count = this.printBatches(w, wasm, this.decoder, handles, limit)
      } finally {
        wasm.flush(w)
      }
      return result
    }
    try {
      outer: for (const handle of handles) {
        if (count >= limit) break
        const data = table.readDataBlock(handle, { scratch: wasm ? wasm.scratch : this.scratch, window: this.window })
        let skip = 0
        if (wasm) {
          const layout = decodeBlockLayout(data, handle.offset, 'data block')
          // As BlockIter: entries start at restart point 0 (RocksDB always writes 0 there).
          if (!layout.separatedKV && layout.numRestarts > 0 && readFixed32(data, layout.restartsOffset) === 0) {
            const k = wasm.printBlock(data, layout.entriesEnd, layout.numRestarts, spec.hex, table.globalSeqno, limit - count, w)
            if (k < 0) {
              count += wasm.printedEntries
              if (count >= limit) break
              continue
            }
            skip = k
            count += k
          }
        }
        const it = new BlockIter(data, handle.offset, 'data block', restartInterval)
        for (it.seekToFirst(); it.valid; it.next()) {
          if (skip > 0) {
            skip--
            continue
          }
          const key = this.globalSeqno ? this.globalSeqno.apply(it.key) : it.key
          const n = this.raw ? key.length : key.length - 8
          if (n < 0)
            throw new CorruptionError(`data block: internal key of ${key.length} bytes is shorter than its 8-byte trailer`, handle.offset + it.entryOffset)
          if (this.filtered) {
            const userKey = key.subarray(0, n)
            if (spec.from && cmp(userKey, spec.from) < 0) continue
            if (spec.to && cmp(userKey, spec.to) >= 0) {
              result.stop = true
              break outer
            }
            if (spec.prefix && !startsWith(userKey, spec.prefix)) {
              // Keys are sorted: once past the prefix, nothing more matches.
              if (cmp(userKey, spec.prefix) > 0) {
                result.stop = true
                break outer
              }
              continue
            }
          }
          if (tombstones.length > 0 && !this.raw) {
            const userKey = key.subarray(0, n)
            const seq = seqOf(key, n)
            if (first && ti < 0) {
              // Out of order: skip what belongs before this chunk; the caller prints it.
              ti = 0
              while (ti < tombstones.length && precedes(cmp, tombstones[ti], userKey, seq)) ti++
              result.tombstonesFrom = ti
            }
            while (ti < tombstones.length && count < limit && precedes(cmp, tombstones[ti], userKey, seq)) {
              this.printTombstone(w, tombstones[ti++])
              count++
            }
          }
          first = false
          if (count >= limit) break outer
          if (this.raw) this.printRaw(w, key, it.block.subarray(it.valueStart, it.valueEnd))
          else if (jsonl || (spec.blobs && key[n] === ValueType.BlobIndex)) this.printJson(w, key, n, it.block, it.valueStart, it.valueEnd)
          else writeEntryLine(w, key, it.block, it.valueStart, it.valueEnd, spec.hex, this.tsSize)
          count++
        }
      }
    } finally {
      wasm?.flush(w)
    }
    result.count = count
    result.tombstonesTo = ti
    return result
  }

  /**
   * printBlocks with the WebAssembly printer and the native decoder: blocks gathered into
   * batches of consecutive blocks, each batch's checksums and contents done in one native call
   * into the printer's memory, where each block prints in place. A block the decoder leaves is
   * read and printed on its own (printBlock), as printBlocks does every block otherwise.
   */
  private printBatches(w: LineWriter, wasm: WasmBlockPrinter, decoder: NativeBlockDecoder, handles: Iterable<BlockHandle>, limit: number): number {
    let count = 0
    const batch = this.batch
    const source = handles[Symbol.iterator]()
    let more = true
    // An error of the index is thrown once the blocks before it are printed, as block by block.
    let indexError: { error: unknown } | null = null
    while (more && count < limit) {
      let n = 0
      let bytes = 0
      while (n < BATCH_BLOCKS && bytes < BATCH_BYTES) {
        let r: IteratorResult<BlockHandle>
        try {
          r = source.next()
        } catch (error) {
          indexError = { error }
          more = false
          break
        }
        if (r.done) {
          more = false
          break
        }
        batch[2 * n] = r.value.offset
        batch[2 * n + 1] = r.value.size
        bytes += r.value.size
        n++
      }
      if (n > 0) count += this.printBatch(w, wasm, decoder, batch.subarray(0, 2 * n), limit - count)
    }
    if (indexError && count < limit) throw indexError.error
    return count
  }

  /** The blocks of `pairs` ([offset, size, ...]), at most `limit` entries; returns how many printed. */
  private printBatch(w: LineWriter, wasm: WasmBlockPrinter, decoder: NativeBlockDecoder, pairs: Float64Array, limit: number): number {
    const blocks = pairs.length / 2
    let count = 0
    let from = 0
    const extent = chunkExtent(pairs, BLOCK_TRAILER_BYTES, this.table.footer.offset, BATCH_READ_MAX_BYTES)
    let src: Uint8Array | null = null
    if (extent) {
      try {
        src = this.window.read(extent.offset, extent.length)
      } catch {
        src = null // each block's own read meets the problem and words it
      }
    }
    while (from < blocks && count < limit) {
      if (!src || !extent) {
        count += this.printBlock(w, pairs[2 * from], pairs[2 * from + 1], limit - count)
        from++
        continue
      }
      const out = wasm.blockRegion(BATCH_OUTPUT_BYTES)
      const done = decoder.decode(src, src.length, extent.offset, pairs.subarray(2 * from), out, out.length)
      const results = decoder.results
      let b = 0
      for (; b < done && count < limit; b++) {
        const length = results[2 * b + 1]
        const offset = pairs[2 * (from + b)]
        if (length < 0) break
        count += this.printDecoded(w, wasm, out.subarray(results[2 * b], results[2 * b] + length), offset, limit - count)
      }
      if (count >= limit) break
      from += b
      // A block the decoder left (or one too large for the region): read and printed on its own,
      // over the region's start (the batch goes on from the block after it).
      if (b < done || done === 0) {
        count += this.printBlock(w, pairs[2 * from], pairs[2 * from + 1], limit - count)
        from++
      }
    }
    return count
  }

  /** One block read on its own (readDataBlock) and printed; returns the entries printed. */
  private printBlock(w: LineWriter, offset: number, size: number, limit: number): number {
    const wasm = this.wasm as WasmBlockPrinter
    const data = this.table.readDataBlock({ offset, size }, { scratch: wasm.scratch, window: this.window })
    return this.printDecoded(w, wasm, data, offset, limit)
  }

  /** A block's contents (at file offset `offset`) printed, in WebAssembly as far as it goes, the rest in JavaScript. */
  private printDecoded(w: LineWriter, wasm: WasmBlockPrinter, data: Uint8Array, offset: number, limit: number): number {
    const layout = decodeBlockLayout(data, offset, 'data block')
    let skip = 0
    // As BlockIter: entries start at restart point 0 (RocksDB always writes 0 there).
    if (!layout.separatedKV && layout.numRestarts > 0 && readFixed32(data, layout.restartsOffset) === 0) {
      const k = wasm.printBlock(data, layout.entriesEnd, layout.numRestarts, this.spec.hex, this.table.globalSeqno, limit, w)
      if (k < 0) return wasm.printedEntries
      skip = k
    }
    let count = skip
    const it = new BlockIter(data, offset, 'data block', this.table.dataRestartInterval)
    for (it.seekToFirst(); it.valid && count < limit; it.next()) {
      if (skip > 0) {
        skip--
        continue
      }
      const key = this.globalSeqno ? this.globalSeqno.apply(it.key) : it.key
      if (key.length < 8)
        throw new CorruptionError(`data block: internal key of ${key.length} bytes is shorter than its 8-byte trailer`, offset + it.entryOffset)
      writeEntryLine(w, key, it.block, it.valueStart, it.valueEnd, this.spec.hex, this.tsSize)
      count++
    }
    return count
  }

  /** Print tombstones [from, to), at most `limit`; returns how many. */
  printTombstones(w: LineWriter, from: number, to: number, limit: number): number {
    let n = 0
    for (let i = from; i < to && n < limit; i++, n++) this.printTombstone(w, this.tombstones[i])
    return n
  }

  private printTombstone(w: LineWriter, t: RangeTombstone): void {
    this.print(w, { userKey: t.start, seq: t.seq, type: t.type, value: t.end, timestampSize: this.tsSize })
  }

  private printJson(w: LineWriter, key: Uint8Array, n: number, block: Uint8Array, valueStart: number, valueEnd: number): void {
    const lo = key[n] // the type byte
    const value = block.subarray(valueStart, valueEnd)
    const userKey = key.subarray(0, n)
    const blob = lo === ValueType.BlobIndex ? this.spec.blobs?.resolve(userKey, value) : undefined
    this.print(w, { userKey, seq: seqOf(key, n), type: lo, value, timestampSize: this.tsSize, blob })
  }

  /** A raw-key entry: key and value only (`'key' => 'value'`, or a JSON line without seq and type). */
  private printRaw(w: LineWriter, key: Uint8Array, value: Uint8Array): void {
    const s = this.spec
    if (s.format === 'jsonl') {
      const {
        seq: _seq,
        type: _type,
        typeCode: _typeCode,
        ...entry
      } = entryJson({ userKey: key, seq: 0, type: ValueType.Value, value, timestampSize: 0 }, s.hex, s.file)
      w.text(JSON.stringify(entry))
    } else w.text(`${bytesText(key, s.hex)} => ${bytesText(value, s.hex)}`)
    w.byte(0x0a)
  }

  private print(w: LineWriter, e: EntryView): void {
    const s = this.spec
    w.text(s.format === 'jsonl' ? JSON.stringify(entryJson(e, s.hex, s.file)) : entryLine(e, s.hex))
    w.byte(0x0a)
  }
}

/** A batch of blocks read in one native call: at most this many blocks, or about this many data bytes. */
const BATCH_BLOCKS = 256
const BATCH_BYTES = 256 * 1024
/** A batch's span is read in one go up to this size (else its blocks are read one by one). */
const BATCH_READ_MAX_BYTES = 2 << 20
/** The printer's block region holds this much of a batch's contents at a time. */
const BATCH_OUTPUT_BYTES = 1 << 20

/** The native decoder of `table`'s data blocks, or null (no kernel here, or a dictionary that does not read: each block's read words it). */
function createDecoder(table: Table): NativeBlockDecoder | null {
  try {
    const dictionary = table.dictionary() ?? undefined
    const facts = { checksum: table.checksum, footerOffset: table.footer.offset, maxBlockBytes: table.maxBlockBytes, dictionary }
    return NativeBlockDecoder.create(facts, table.verifyChecksums ? BlockCheck.Checksums : 0)
  } catch {
    return null
  }
}

/** A tombstone prints before an entry when it starts at a smaller user key, or at the same one with a seqno at least as high. */
function precedes(cmp: (a: Uint8Array, b: Uint8Array) => number, t: RangeTombstone, userKey: Uint8Array, seq: number | bigint): boolean {
  const c = cmp(t.start, userKey)
  return c < 0 || (c === 0 && seqAtLeast(t.seq, seq))
}

function seqOf(key: Uint8Array, n: number): SequenceNumber {
  return sequenceFrom(readFixed32(key, n), readFixed32(key, n + 4))
}

function bytesText(b: Uint8Array, asHex: boolean): string {
  return asHex ? `0x${toHex(b)}` : `'${escapeBytes(b)}'`
}

export function startsWith(k: Uint8Array, prefix: Uint8Array): boolean {
  if (k.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (k[i] !== prefix[i]) return false
  return true
}

/** Tombstones in the order scan prints them: by start key, newest first. */
export function sortTombstones(ts: RangeTombstone[], cmp: ((a: Uint8Array, b: Uint8Array) => number) | null): RangeTombstone[] {
  const c = cmp ?? (() => 0)
  return ts.sort((a, b) => c(a.start, b.start) || (BigInt(b.seq) > BigInt(a.seq) ? 1 : BigInt(b.seq) < BigInt(a.seq) ? -1 : 0))
}
