/**
 * verify's key-order check of whole data blocks in WebAssembly
 * (src/wasm/verify-kernels.wat), for tables ordered by the bytewise
 * comparator. A block the module does not pass (malformed, out of order,
 * keys over 64 KiB) is checked again by verify.ts's JavaScript loop, which
 * words the problem, so findings are exactly those of the JavaScript path.
 */
import type { Scratch } from '../codec/output.js'
import { BlockRegion, compileKernel } from '../wasm/kernel.js'
import { VERIFY_KERNELS_WASM } from '../wasm/verify-kernels.generated.js'

interface Exports {
  memory: WebAssembly.Memory
  check(block: number, end: number, hasPrev: number): number
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
    const module = compileKernel(VERIFY_KERNELS_WASM)
    return module ? new WasmOrderChecker(module) : null
  }

  private constructor(module: WebAssembly.Module) {
    this.x = new WebAssembly.Instance(module).exports as unknown as Exports
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
   * Check the entries of `block` (entries end at `entriesEnd`) after `prevKey`
   * (the previous block's last key, or null). Returns the entry count when
   * every key is in order (see firstKey/lastKey), or -1: check it in JavaScript.
   */
  check(block: Uint8Array, entriesEnd: number, prevKey: Uint8Array | null): number {
    if (prevKey && prevKey.length > this.keyCapacity) return -1
    this.region.place(block)
    if (prevKey) {
      this.region.bytes.set(prevKey, this.prev)
      this.x.prevLen.value = prevKey.length
    }
    const n = this.x.check(this.blockBase, entriesEnd, prevKey ? 1 : 0)
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
