/**
 * ReadSequential over a whole file (`--command=scan` and `check` without
 * --from, --to, --prefix or --read_num), fast: whole data blocks are printed
 * (or, for check, decoded and counted) by scan's WebAssembly block printer in
 * sst_dump's line format, and a large file is split into chunks of blocks that
 * scan's parallel driver (src/scan/parallel.ts) hands to worker threads
 * (./worker.ts). What the module does not print itself (a type it decodes, a
 * malformed entry) goes through Dumper.printEntry, so output and statuses are
 * those of the entry-by-entry path. `verify`'s data blocks (read and
 * checksummed, not decoded) go through the same driver.
 *
 * A key ParseInternalKey rejects (or a value --decode_blob_index or a wide
 * column cannot decode) is reported on stderr where it is met; a chunk
 * printed out of order cannot do that, so it stops there (SerialRestart) and
 * the rest of the file is read here, serially, from that entry on.
 */
import { availableParallelism } from 'node:os'
import { SstkitError, transferable } from '../errors.js'
import type { BlockHandle } from '../format/block-handle.js'
import { Property } from '../format/properties.js'
import { LineWriter } from '../report/line-writer.js'
import { canUseWorkers, ParallelScan } from '../scan/parallel.js'
import type { ChunkResult } from '../scan/printer.js'
import type { ScanStats } from '../scan/scan.js'
import { SstDumpMode, WasmBlockPrinter } from '../scan/wasm-printer.js'
import { newScratch } from '../codec/output.js'
import { GlobalSeqnoPatch } from '../format/internal-key.js'
import { ReadWindow } from '../io/byte-source.js'
import type { BlockIter } from '../format/block.js'
import type { BlockBuffers, Dumper, DumperOptions } from './dumper.js'
import { toStatus } from './status.js'
import { advance, firstEntry } from './entry-text.js'
import { ByteSink } from './sink.js'
import type { SstDumpStatus } from './status.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { BlockCheck, type BlockChecker, BlockResults } from '../verify/block-checker.js'
import { createBlockChecker } from '../verify/checkers.js'
import { NativeBlockDecoder, packHandles } from '../verify/native.js'

/**
 * check's runs of blocks through verify's block checker: at most this many blocks, spanning at
 * most this many bytes, verify's chunk size. The read window grows to a run: at 2 MiB its first
 * read faulted in 512 fresh pages (one read of 6 ms of an 8 MB file's check under strace); at
 * 512 KiB the check of the 8 MB LZ4 16 KiB file took 0.0988 s against 0.1007 s, of the 64 MB ZSTD
 * 4 KiB one 0.279 s against 0.289 s (commit c13c37e's build beside it, 21 rounds interleaved).
 */
const CHECKED_RUN_BLOCKS = 256
const CHECKED_RUN_BYTES = 512 << 10
/** scan's decoded run is printed from this much of the WebAssembly printer's memory at a time. */
const DECODED_RUN_BYTES = 1 << 20

/** Whether the table's dictionary reads (else the dumper reads every block, and meets it). */
function scanDictionaryReads(t: { dictionary(): Uint8Array | null }): boolean {
  try {
    t.dictionary()
    return true
  } catch {
    return false
  }
}

/** Thrown by the stderr probe of a chunk printed out of order. */
const STDERR_LINE = Symbol('stderr line')

/** A chunk printed out of order met an entry whose message goes to stderr: read on serially from there. */
export class SerialRestart extends SstkitError {
  override name = 'SerialRestart'
  constructor(
    /** The data block of the entry. */
    readonly blockOffset: number,
    /** The entry's index in that block. */
    readonly entry: number,
    /** Entries the chunk read before it. */
    readonly entriesBefore: number,
  ) {
    super('internal', `sst-dump: the stderr line of the data block at ${blockOffset}, entry ${entry}, is printed by the serial path`)
  }
}
transferable(SerialRestart)

/** Start-up data of an sst-dump worker (./worker.ts). */
export interface SstDumpWorkerData {
  path: string
  fsPath: string
  opts: DumperOptions
  read: ReadKind
}

/**
 * What a chunk's blocks are read for: `scan` (lines), `check` (entries decoded
 * and counted) or `verify` (each block read, its checksum checked with
 * --verify_checksum, nothing decoded: BlockBasedTable::VerifyChecksum).
 */
export type ReadKind = 'scan' | 'check' | 'verify'

/** Workers run the built JavaScript (as scan's). */
const WORKER_URL = new URL('./worker.js', import.meta.url)
/**
 * As scan: a worker takes ~0.1 s to start, about what 32 MiB of data blocks take to print
 * (bin/run.js starts a worker early from it, through the build).
 */
export const PARALLEL_THRESHOLD = 32 * 1024 * 1024
/**
 * check and verify print nothing: a 64 MB file's data blocks take one thread ~0.1 s (LZ4) to
 * ~0.3 s (ZSTD) to decode, and a worker's ~0.1 s start made them slower there, and costlier in CPU
 * (checked 0.11-0.16 s more of it on 64 MB files of each codec; commit 92b2bc3, 2026-12-06, load 11).
 */
export const CHECK_PARALLEL_THRESHOLD = 128 * 1024 * 1024
/** Data bytes per parallel chunk: scan's chunk size; check's, whose chunks print nothing, four times that (verify's twice). */
const CHUNK_BYTES = 256 * 1024
const CHECK_CHUNK_BYTES = 1024 * 1024

/** How readAllEntries splits the work (defaults: every core, for files of 32 MiB of data blocks or more). */
export interface SequentialOptions {
  /** Threads (default all cores; 1: serial). */
  jobs?: number
  /** Data bytes per chunk (default 256 KiB). */
  chunkBytes?: number
  /** Go parallel from this many bytes of data blocks (default 32 MiB for scan, 128 MiB for check and verify). */
  parallelThreshold?: number
  /** Wait for the workers before printing (tests: so that workers take chunks of small files). */
  awaitWorkers?: boolean
  /** Filled in with how the work was split. */
  stats?: ScanStats
}

/** ReadSequential's entries of a whole file: printed (printKv) or counted; returns the entries read and the iterator status. */
export function readAllEntries(
  dumper: Dumper,
  printKv: boolean,
  out: ByteSink,
  err: ByteSink,
  options: SequentialOptions = {},
): { entries: number; status: SstDumpStatus | null } {
  return readAll(dumper, printKv ? 'scan' : 'check', out, err, options)
}

/** The data blocks of `BlockBasedTable::VerifyChecksum` (the meta blocks are the caller's): the first failure in file order, or null. */
export function verifyDataBlocks(dumper: Dumper, out: ByteSink, err: ByteSink, options: SequentialOptions = {}): SstDumpStatus | null {
  return readAll(dumper, 'verify', out, err, options).status
}

function readAll(dumper: Dumper, read: ReadKind, out: ByteSink, err: ByteSink, options: SequentialOptions): { entries: number; status: SstDumpStatus | null } {
  const printer = new SstDumpBlockPrinter(dumper, read, err)
  out.flush()
  const w = new LineWriter((b) => out.direct(b))
  let entries = 0
  try {
    const handles = blockHandlesOf(dumper)
    const jobs = Math.max(1, Math.floor(options.jobs ?? availableParallelism()))
    const dataBytes = Number(dumper.props?.num.get(Property.DataSize) ?? 0n)
    const threshold = options.parallelThreshold ?? (read === 'scan' ? PARALLEL_THRESHOLD : CHECK_PARALLEL_THRESHOLD)
    if (jobs > 1 && canUseWorkers && dataBytes >= threshold) {
      const data: SstDumpWorkerData = { path: dumper.path, fsPath: dumper.fsPath, opts: dumper.opts, read }
      const chunkBytes = Math.max(1, options.chunkBytes ?? (read === 'check' ? CHECK_CHUNK_BYTES : CHUNK_BYTES))
      const spec = { format: 'text', hex: false } as const // scan's worker data, unused by sst-dump's workers
      const scan = new ParallelScan(dumper.table!, printer, spec, [], dumper.fsPath, jobs - 1, chunkBytes, w, options.stats, { url: WORKER_URL, data })
      try {
        return { entries: scan.run(handles, options.awaitWorkers ?? false), status: null }
      } catch (e) {
        if (!(e instanceof SerialRestart)) throw e
        entries = scan.printed + e.entriesBefore
        const rest = blockHandlesOf(dumper)
        for (let h = rest.next(); !h.done; h = rest.next()) {
          if (h.value.offset !== e.blockOffset) continue
          entries += printer.printBlocks(w, withFirst(h.value, rest), 0, Infinity, e.entry).count
          break
        }
        return { entries, status: null }
      }
    }
    entries = printer.printInOrder(w, dumper.dataHandleBatches())
    return { entries, status: null }
  } catch (e) {
    return { entries, status: toStatus(e) }
  } finally {
    w.flush()
  }
}

/**
 * ReadSequential from the first entry at or after `from` (or the first), `readNum` entries at
 * most (0: all), with nothing to compare past the seek (no --to, --prefix or timestamps): each
 * block's entries printed at once by the block printer. Returns ReadSequential's count, which
 * takes one entry more than it prints when it stops at --read_num with entries left, and the
 * iterator status (the entry after the last printed is decoded, as its iterator's Next does).
 */
export function readEntriesFrom(
  dumper: Dumper,
  printKv: boolean,
  out: ByteSink,
  err: ByteSink,
  from: Uint8Array | null,
  readNum: bigint,
): { entries: bigint; status: SstDumpStatus | null } {
  const printer = new SstDumpBlockPrinter(dumper, printKv ? 'scan' : 'check', err)
  out.flush()
  const w = new LineWriter((b) => out.direct(b))
  let i = 0n
  try {
    for (const b of dumper.entryBlocks(from, dumper.opts.verifyChecksum, printer.buffers)) {
      // --read_num entries printed, and this block holds another: counted, not printed
      if (readNum > 0n && i >= readNum) return { entries: i + 1n, status: null }
      const room = readNum > 0n ? Number(readNum - i) : Number.POSITIVE_INFINITY
      const r = printer.printEntries(w, b.data, b.offset, b.it, b.first, room)
      i += BigInt(r.printed)
      if (readNum > 0n && i >= readNum && r.more) return { entries: i + 1n, status: null }
    }
    return { entries: i, status: null }
  } catch (e) {
    return { entries: i, status: toStatus(e) }
  } finally {
    w.flush()
  }
}

/** The data blocks' handles in index order (dataHandles: no copy of each index key). */
function blockHandlesOf(dumper: Dumper): Generator<BlockHandle> {
  return dumper.dataHandles()
}

/** Block `i` of [offset, size, ...] pairs. */
function handleAt(pairs: Float64Array, i: number): BlockHandle {
  return { offset: pairs[2 * i], size: pairs[2 * i + 1] }
}

function* handlesOfBatches(batches: Iterable<Float64Array>): Generator<BlockHandle> {
  for (const b of batches) for (let i = 0; i < b.length; i += 2) yield { offset: b[i], size: b[i + 1] }
}

function* withFirst(first: BlockHandle, rest: Iterator<BlockHandle>): Generator<BlockHandle> {
  yield first
  for (let h = rest.next(); !h.done; h = rest.next()) yield h.value
}

/**
 * Prints runs of data blocks as ReadSequential does (the ChunkPrinter of
 * scan's parallel driver). `ti` >= 0 means in file order: bad keys are
 * reported to `err` as met; -1 (out of order) stops at one (SerialRestart).
 */
export class SstDumpBlockPrinter {
  readonly tombstones = []
  private readonly wasm: WasmBlockPrinter | null
  private readonly mode: SstDumpMode
  private readonly seqOverride: number
  private readonly globalSeqno: GlobalSeqnoPatch | null
  private readonly restartInterval: number
  /** Where blocks are read (and decompressed: into the module's memory where it prints). */
  readonly buffers: BlockBuffers
  private readonly printKv: boolean
  /** Where printEntry's lines go: the LineWriter of the printBlocks call under way. */
  private target: LineWriter | null = null
  private readonly sink = new ByteSink((b) => this.target?.write(b))
  /**
   * stderr of a chunk printed out of order: a line there (a key ParseInternalKey
   * rejects, a blob index or wide-column value that does not decode) cannot be
   * placed, so writing one ends the chunk. printEntry writes stderr before stdout.
   */
  private readonly stderrProbe = new ByteSink(() => {
    throw STDERR_LINE
  })

  /** check's block checker (src/verify/block-checker.ts: the native kernel, where it loads), and where its blocks end. */
  private readonly checker: BlockChecker | null
  private readonly footerOffset: number
  /** The run of blocks being gathered ([offset, size, ...]; see countInBatches). */
  private readonly runHandles = new Float64Array(2 * CHECKED_RUN_BLOCKS)
  /** printBlocks' handles, packed for countInBatches. */
  private readonly packed = new Float64Array(2 * CHECKED_RUN_BLOCKS)
  /** A run's results: codes only (no keys are kept). */
  private readonly runResults = new BlockResults(0)
  /** scan's blocks read a run at a time into the WebAssembly printer's memory (the native kernel, where it loads). */
  private readonly decoder: NativeBlockDecoder | null

  constructor(
    private readonly dumper: Dumper,
    private readonly read: ReadKind,
    private readonly err: ByteSink,
  ) {
    const t = dumper.table!
    const footer = dumper.footer
    // The types the WebAssembly check passes (below 32, as setSstDumpTypes marks them); checksums as --verify_checksum says.
    // The dictionary data blocks decode with, read here without touching the dumper's (whose first read
    // reports a damaged one); where it does not read, or 7.8.3 would take its block raw, the dumper does it all.
    let dictionary: Uint8Array | undefined
    let usable = read === 'check' && footer !== null
    try {
      dictionary = usable ? (t.dictionary() ?? undefined) : undefined
      if (dictionary && !dumper.decompressesByType) usable = false
    } catch {
      usable = false
    }
    this.footerOffset = footer ? footer.offset : 0
    this.checker =
      usable && footer
        ? createBlockChecker(
            {
              checksum: { checksumType: footer.checksumType, formatVersion: footer.formatVersion, baseContextChecksum: footer.baseContextChecksum ?? 0 },
              footerOffset: footer.offset,
              maxBlockBytes: t.maxBlockBytes,
              dictionary,
            },
            {
              flags: (dumper.opts.verifyChecksum ? BlockCheck.Checksums : 0) | (dumper.decompressesByType ? 0 : BlockCheck.RawBlocks),
              validTypes: dumper.validTypes().filter((type) => type < 32),
            },
          )
        : null
    this.printKv = read === 'scan'
    this.mode = !this.printKv ? SstDumpMode.Check : dumper.opts.outputHex ? SstDumpMode.Hex : SstDumpMode.Text
    this.wasm = read === 'verify' ? null : WasmBlockPrinter.create()
    this.buffers = { window: new ReadWindow(t.source), scratch: this.wasm ? this.wasm.scratch : newScratch() }
    this.wasm?.setSstDumpTypes(this.printKv ? dumper.plainLineTypes() : dumper.validTypes())
    this.seqOverride = t.globalSeqno
    this.globalSeqno = t.globalSeqno >= 0 ? new GlobalSeqnoPatch(t.globalSeqno) : null
    this.restartInterval = t.dataRestartInterval
    this.decoder =
      read === 'scan' && this.wasm && footer && dumper.decompressesByType && scanDictionaryReads(t)
        ? NativeBlockDecoder.create(
            {
              checksum: { checksumType: footer.checksumType, formatVersion: footer.formatVersion, baseContextChecksum: footer.baseContextChecksum ?? 0 },
              footerOffset: footer.offset,
              maxBlockBytes: t.maxBlockBytes,
              dictionary: t.dictionary() ?? undefined,
            },
            dumper.opts.verifyChecksum ? BlockCheck.Checksums : 0,
          )
        : null
  }

  /** Entries of `handles` (from entry `skip` of the first); `limit` is not used (the whole file is read). */
  /** Read a chunk's blocks in one go (ReadWindow.fill): the usual readahead would read into other threads' blocks. */
  readAhead(offset: number, length: number): void {
    this.buffers.window?.fill(offset, length)
  }

  printBlocks(w: LineWriter, handles: Iterable<BlockHandle>, ti: number, _limit: number, skip = 0): ChunkResult {
    const inOrder = ti >= 0
    this.target = w
    let count = 0
    try {
      if ((this.checker || this.decoder) && skip === 0) count = this.countInBatches(w, packHandles(handles[Symbol.iterator](), this.packed), inOrder)
      else {
        for (const handle of handles) {
          count += this.blockEntries(w, handle, skip, inOrder, count)
          skip = 0
        }
      }
    } finally {
      this.wasm?.flush(w)
      this.sink.flush()
      this.target = null
    }
    return { count, stop: false, tombstonesFrom: ti, tombstonesTo: ti }
  }

  /** The entries of the blocks of `batches` ([offset, size, ...] each), in file order, as printBlocks; returns how many. */
  printInOrder(w: LineWriter, batches: Iterable<Float64Array>): number {
    if (!this.checker && !this.decoder) return this.printBlocks(w, handlesOfBatches(batches), 0, Infinity).count
    this.target = w
    try {
      return this.countInBatches(w, batches, true)
    } finally {
      this.wasm?.flush(w)
      this.sink.flush()
      this.target = null
    }
  }

  /** One block's entries from entry `skip` on, printed (scan) or counted (check); verify reads it. `before`: entries printBlocks has so far. */
  private blockEntries(w: LineWriter, handle: BlockHandle, skip: number, inOrder: boolean, before: number): number {
    if (this.read === 'verify') {
      this.dumper.readBlock(handle, 'data', this.dumper.opts.verifyChecksum, false, this.buffers)
      return 0
    }
    const data = this.dumper.readBlock(handle, 'data', this.dumper.opts.verifyChecksum, true, this.buffers)
    return this.blockContentsEntries(w, data, handle.offset, skip, inOrder, before)
  }

  /** blockEntries after the read: the block's contents `data` (at file offset `offset`). */
  private blockContentsEntries(w: LineWriter, data: Uint8Array, offset: number, skip: number, inOrder: boolean, before: number): number {
    const wasm = this.wasm
    let from = skip
    let count = 0
    if (wasm && from === 0) {
      const k = this.printInWasm(wasm, data, offset, w)
      if (k < 0) return wasm.printedEntries
      from = k
      count += k
    }
    count += this.printInJs(data, offset, from, inOrder, before + count, this.sink)
    this.sink.flush()
    return count
  }

  /**
   * check's blocks (scan's, with the decoder: decodeRun) in runs of consecutive blocks, each run through the block checker in one call;
   * a block it does not pass (or leaves) is read here as blockEntries reads it (which meets the problem and
   * words it as the entry-by-entry path does). A run is checked before an error of the index is
   * passed on, so that a damaged block before it is reported first, as one at a time.
   */
  private countInBatches(w: LineWriter, batches: Iterable<Float64Array>, inOrder: boolean): number {
    let count = 0
    const run = this.runHandles
    let n = 0
    const flush = () => {
      if (n > 0) count += this.countRun(w, run.subarray(0, 2 * n), inOrder, count)
      n = 0
    }
    const it = batches[Symbol.iterator]()
    for (;;) {
      let r: IteratorResult<Float64Array>
      try {
        r = it.next()
      } catch (e) {
        flush()
        throw e
      }
      if (r.done) break
      const batch = r.value
      for (let i = 0; i < batch.length; i += 2) {
        const offset = batch[i]
        const size = batch[i + 1]
        if (n > 0) {
          const follows = offset >= run[2 * n - 2] + run[2 * n - 1] + BLOCK_TRAILER_BYTES
          if (!follows || n >= CHECKED_RUN_BLOCKS || offset + size + BLOCK_TRAILER_BYTES - run[0] > CHECKED_RUN_BYTES) flush()
        }
        run[2 * n] = offset
        run[2 * n + 1] = size
        n++
      }
    }
    flush()
    return count
  }

  /** Entries of a run of consecutive blocks (`handles`: [offset, size, ...]; see countInBatches). */
  private countRun(w: LineWriter, handles: Float64Array, inOrder: boolean, before: number): number {
    const n = handles.length / 2
    const start = handles[0]
    const length = handles[2 * n - 2] + handles[2 * n - 1] + BLOCK_TRAILER_BYTES - start
    if (!this.checker) return this.decodeRun(w, handles, start, length, inOrder, before)
    const results = this.runResults
    results.reset(n)
    if (start + length <= this.footerOffset) {
      // In place in the window (a parallel chunk's blocks are there already: no read).
      const window = this.buffers.window as ReadWindow
      const at = window.at(start, length)
      ;(this.checker as BlockChecker).check(window.bytes, at + length, start - at, handles, results)
    }
    let count = 0
    for (let i = 0; i < n; i++) {
      const entries = results.code(i)
      count += entries >= 0 ? entries : this.blockEntries(w, handleAt(handles, i), 0, inOrder, before + count)
    }
    return count
  }

  /**
   * scan's run of consecutive blocks (see countInBatches): read in one native call into the
   * WebAssembly printer's memory and printed in place; a block the decoder leaves is read here as
   * blockEntries reads it (over the region's start: the run goes on from the block after it).
   */
  private decodeRun(w: LineWriter, handles: Float64Array, start: number, length: number, inOrder: boolean, before: number): number {
    const n = handles.length / 2
    const decoder = this.decoder as NativeBlockDecoder
    const wasm = this.wasm as WasmBlockPrinter
    let src: Uint8Array | null = null
    if (start + length <= this.footerOffset) {
      // In place in the window (a parallel chunk's blocks are there already: no read).
      const window = this.buffers.window as ReadWindow
      try {
        src = window.read(start, length)
      } catch {
        src = null // each block's own read meets the problem and words it
      }
    }
    let count = 0
    let from = 0
    while (from < n) {
      if (!src) {
        count += this.blockEntries(w, handleAt(handles, from++), 0, inOrder, before + count)
        continue
      }
      const out = wasm.blockRegion(DECODED_RUN_BYTES)
      const done = decoder.decode(src, length, start, handles.subarray(2 * from), out, out.length)
      const results = decoder.results
      let b = 0
      for (; b < done; b++) {
        const size = results[2 * b + 1]
        if (size < 0) break
        const data = out.subarray(results[2 * b], results[2 * b] + size)
        count += this.blockContentsEntries(w, data, handles[2 * (from + b)], 0, inOrder, before + count)
      }
      from += b
      if (b < done || done === 0) count += this.blockEntries(w, handleAt(handles, from++), 0, inOrder, before + count)
    }
    return count
  }

  printTombstones(): number {
    return 0
  }

  /**
   * Up to `limit` entries of a block read in file order (`it` at entry `first`), printed as
   * printBlocks prints them; `more`: another entry follows the last printed (decoded: a bad
   * one throws, as the iterator's Next fails).
   */
  printEntries(w: LineWriter, data: Uint8Array, offset: number, it: BlockIter, first: number, limit: number): { printed: number; more: boolean } {
    this.target = w
    let printed = 0
    try {
      let from = first
      const wasm = this.wasm
      if (wasm && first === 0) {
        const k = wasm.printSstDumpData(data, offset, this.mode, this.seqOverride, limit, w)
        wasm.flush(w)
        printed = k < 0 ? wasm.printedEntries : k
        from = printed
      }
      // the rest in JavaScript, from the iterator: bad keys reported to err as met
      for (let index = first; it.valid && index < from; index++) advance(it)
      while (it.valid && printed < limit) {
        const key = this.globalSeqno ? this.globalSeqno.apply(it.key) : it.key
        this.dumper.printEntry(key, it.value, this.printKv, 0, this.sink, this.err)
        printed++
        advance(it)
      }
      return { printed, more: it.valid }
    } finally {
      this.sink.flush()
      this.target = null
    }
  }

  /** The block in WebAssembly: -1 when done, else the entry the JavaScript path takes over at (the module's lines flushed first). */
  private printInWasm(wasm: WasmBlockPrinter, data: Uint8Array, offset: number, w: LineWriter): number {
    const k = wasm.printSstDumpData(data, offset, this.mode, this.seqOverride, Infinity, w)
    if (k === 0) wasm.flush(w)
    return k
  }

  /** Entries [from, end) of a block, one at a time; returns how many. */
  private printInJs(data: Uint8Array, offset: number, from: number, inOrder: boolean, before: number, sink: ByteSink): number {
    const it = firstEntry(data, offset, this.restartInterval)
    const d = this.dumper
    let index = 0
    let count = 0
    while (it.valid) {
      if (index >= from) {
        const key = this.globalSeqno ? this.globalSeqno.apply(it.key) : it.key
        try {
          d.printEntry(key, it.value, this.printKv, 0, sink, inOrder ? this.err : this.stderrProbe)
        } catch (e) {
          if (e === STDERR_LINE) throw new SerialRestart(offset, index, before + count)
          throw e
        }
        count++
      }
      index++
      advance(it)
    }
    return count
  }
}
