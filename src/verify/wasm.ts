/**
 * The portable BlockChecker (block-checker.ts): checksum and decompression in
 * JavaScript, the entries' order in WebAssembly (verify-kernels.wat, beside
 * this), for tables ordered by the bytewise comparator. It runs wherever
 * WebAssembly does: it checks the blocks the native kernel leaves (a codec it
 * does not do), and every block where the kernel is not built or does not load.
 * A block it does not pass (malformed, out of order, keys over 64 KiB) gets
 * Redo and is checked again by verify.ts's JavaScript loop, which words the
 * problem, so findings are exactly those of the JavaScript path.
 */
import type { Scratch } from '../codec/output.js'
import { decompressBlock, type DecompressOptions } from '../codec/compression.js'
import { decodeBlockLayout } from '../format/block.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { readFixed32 } from '../format/coding.js'
import type { ReadWindow } from '../io/byte-source.js'
import { computeStoredChecksum } from '../table/block-reader.js'
import { BlockCode, type BlockChecker, type BlockResults, type TableFacts } from './block-checker.js'
import { BlockRegion, compileKernel, instantiateKernel } from '../wasm/kernel.js'
import { VERIFY_KERNELS_WASM } from './verify-kernels.generated.js'

/** The portable checker of verify's checks (block-checker.ts VERIFY_CHECKS). */
export class WasmBlockChecker implements BlockChecker {
  /** Reused per block (offset and dictionary set before each use). */
  private readonly decompress: DecompressOptions

  /** Whether create() gives a checker here (WebAssembly runs). */
  static get available(): boolean {
    return WasmOrderChecker.available
  }

  /** A checker of `table`'s blocks, or null when WebAssembly cannot run here (or SSTKIT_NO_WASM is set). */
  static create(table: TableFacts): WasmBlockChecker | null {
    const order = WasmOrderChecker.create()
    return order ? new WasmBlockChecker(table, order) : null
  }

  private constructor(
    private readonly table: TableFacts,
    private readonly order: WasmOrderChecker,
  ) {
    // Decompressed into the module's memory, where the order check reads it.
    this.decompress = { formatVersion: table.checksum.formatVersion, offset: 0, dictionary: undefined, scratch: order.scratch }
  }

  check(src: Uint8Array, srcLength: number, srcOffset: number, handles: Float64Array, out: BlockResults): void {
    const blocks = handles.length / 2
    for (let b = 0; b < blocks; b++) {
      if (out.code(b) !== BlockCode.NotHandled) continue
      const offset = handles[2 * b]
      const size = handles[2 * b + 1]
      const at = offset - srcOffset
      if (!this.inTable(offset, size)) out.keep(b, BlockCode.Redo, NO_KEY, NO_KEY)
      else if (at >= 0 && at + size + BLOCK_TRAILER_BYTES <= srcLength) this.checkAndKeep(src, at, offset, size, b, out)
    }
  }

  /** check(), every block left NotHandled read through `window` (in place where it holds the block already). */
  checkFrom(window: ReadWindow, handles: Float64Array, out: BlockResults): void {
    const blocks = handles.length / 2
    for (let b = 0; b < blocks; b++) {
      if (out.code(b) !== BlockCode.NotHandled) continue
      const offset = handles[2 * b]
      const size = handles[2 * b + 1]
      let at = -1
      try {
        if (this.inTable(offset, size)) at = window.at(offset, size + BLOCK_TRAILER_BYTES)
      } catch {
        // a failed read: verify.ts reads the block again and reports it
      }
      if (at < 0) out.keep(b, BlockCode.Redo, NO_KEY, NO_KEY)
      else this.checkAndKeep(window.bytes, at, offset, size, b, out)
    }
  }

  /**
   * One block of verify.ts's serial path, held by `buf` from `at` (payload and trailer): its
   * entry count (firstKey/lastKey then give its keys), or Redo. Throws on what it cannot decode.
   */
  checkOne(buf: Uint8Array, at: number, offset: number, size: number): number {
    return this.checkBytes(buf.subarray(at, at + size + 1), readFixed32(buf, at + size + 1), offset)
  }

  /** The first key of the block checkOne just passed (a view, valid until the next check). */
  firstKey(): Uint8Array {
    return this.order.firstKey()
  }

  /** The last key of the block checkOne just passed (a view, valid until the next check). */
  lastKey(): Uint8Array {
    return this.order.lastKey()
  }

  /** Whether a block (payload and trailer) of at most maxBlockBytes lies before the footer: else Redo, and nothing is read. */
  private inTable(offset: number, size: number): boolean {
    return size <= this.table.maxBlockBytes && offset + size + BLOCK_TRAILER_BYTES <= this.table.footerOffset
  }

  private checkAndKeep(buf: Uint8Array, at: number, offset: number, size: number, b: number, out: BlockResults): void {
    let n: number
    try {
      n = this.checkOne(buf, at, offset, size)
    } catch {
      n = BlockCode.Redo
    }
    if (n > 0) out.keep(b, n, this.order.firstKey(), this.order.lastKey())
    else out.keep(b, n, NO_KEY, NO_KEY)
  }

  /**
   * The entries of a block (`checksummed`: payload and type byte; its trailer stores `stored`)
   * that passes every context-free check, else Redo (anything unusual: the serial path reads it
   * again and words the problem). Read in place: no RawBlock, options or trailer objects.
   */
  private checkBytes(checksummed: Uint8Array, stored: number, offset: number): number {
    if (computeStoredChecksum(this.table.checksum, checksummed, offset) !== stored) return BlockCode.Redo
    const size = checksummed.length - 1
    const type = checksummed[size]
    const payload = checksummed.subarray(0, size)
    let contents = payload
    if (type !== 0) {
      this.decompress.offset = offset
      this.decompress.dictionary = this.table.dictionary
      contents = decompressBlock(type, payload, this.decompress)
    }
    const layout = decodeBlockLayout(contents, offset, 'data block')
    // The same conditions as verify.ts's JavaScript path meets without a problem: anything else is checked there.
    if (layout.separatedKV || layout.numRestarts === 0 || readFixed32(contents, layout.restartsOffset) !== 0) return BlockCode.Redo
    const n = this.order.check(contents, layout.entriesEnd, layout.numRestarts, null)
    return n < 0 ? BlockCode.Redo : n
  }
}

const NO_KEY = new Uint8Array(0)

/** The WebAssembly module's order check of one decompressed block. */
interface Exports {
  memory: WebAssembly.Memory
  check(block: number, end: number, numRestarts: number, hasPrev: number): number
  prevLen: WebAssembly.Global
  firstLen: WebAssembly.Global
  /** The memory layout (see the .wat): where the key regions and the block start, and a key region's size. */
  PREV: WebAssembly.Global
  FIRST: WebAssembly.Global
  BLOCK: WebAssembly.Global
  KEY_CAPACITY: WebAssembly.Global
  /** Where check() stores firstLen and prevLen as two i32. */
  LENS: WebAssembly.Global
}

export class WasmOrderChecker {
  private readonly x: Exports
  private readonly region: BlockRegion
  private readonly prev: number
  private readonly first: number
  private readonly blockBase: number
  private readonly keyCapacity: number
  private readonly lensAt: number
  /** firstLen, prevLen after a check (read here once per block: a WebAssembly.Global is slower to read). */
  private lens: Int32Array

  /** Whether create() gives a checker (the module compiles here). */
  static get available(): boolean {
    return compileKernel(VERIFY_KERNELS_WASM) !== null
  }

  /** A checker, or null when WebAssembly cannot run here (or SSTKIT_NO_WASM is set). */
  static create(): WasmOrderChecker | null {
    const x = instantiateKernel<Exports>(VERIFY_KERNELS_WASM)
    return x ? new WasmOrderChecker(x) : null
  }

  private constructor(x: Exports) {
    this.x = x
    this.prev = this.x.PREV.value as number
    this.first = this.x.FIRST.value as number
    this.blockBase = this.x.BLOCK.value as number
    this.keyCapacity = this.x.KEY_CAPACITY.value as number
    this.lensAt = this.x.LENS.value as number
    this.region = new BlockRegion(this.x.memory, this.blockBase)
    this.lens = new Int32Array(this.x.memory.buffer, this.lensAt, 2)
  }

  /** Decompress data blocks into this: they then land in the module's memory. */
  get scratch(): Scratch {
    return this.region.scratch
  }

  /**
   * Check the entries of `block` (entries end at `entriesEnd`, where its `numRestarts` restart points
   * follow; the first is 0) after `prevKey`
   * (the previous block's last key, or null). Returns the entry count when
   * every key is in order (see firstKey/lastKey), or -1: check it in JavaScript.
   */
  check(block: Uint8Array, entriesEnd: number, numRestarts: number, prevKey: Uint8Array | null): number {
    if (prevKey && prevKey.length > this.keyCapacity) return -1
    const at = this.region.place(block)
    if (prevKey) {
      this.region.bytes.set(prevKey, this.prev)
      this.x.prevLen.value = prevKey.length
    }
    const n = this.x.check(at, entriesEnd, numRestarts, prevKey ? 1 : 0)
    // memory.grow (in place) detaches the view
    if (this.lens.length === 0) this.lens = new Int32Array(this.x.memory.buffer, this.lensAt, 2)
    return n
  }

  /** The first key of the block just checked (a view, valid until the next check). */
  firstKey(): Uint8Array {
    return this.region.bytes.subarray(this.first, this.first + this.lens[0])
  }

  /** The last key of the block just checked (a view, valid until the next check). */
  lastKey(): Uint8Array {
    return this.region.bytes.subarray(this.prev, this.prev + this.lens[1])
  }
}
