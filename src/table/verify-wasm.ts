/**
 * verify's key-order check of whole data blocks in WebAssembly
 * (src/wasm/verify-kernels.wat), for tables ordered by the bytewise
 * comparator. A block the module does not pass (malformed, out of order,
 * keys over 64 KiB) is checked again by verify.ts's JavaScript loop, which
 * words the problem, so findings are exactly those of the JavaScript path.
 */
import type { Scratch } from '../codec/output.js'
import { VERIFY_KERNELS_WASM } from '../wasm/verify-kernels.generated.js'

interface Exports {
  memory: WebAssembly.Memory
  check(block: number, end: number, hasPrev: number): number
  prevLen: WebAssembly.Global
  firstLen: WebAssembly.Global
}

const PAGE = 65536
const PREV = 65536
const FIRST = 196608
const BLOCK_BASE = 262144
const KEY_CAPACITY = 65536
const INITIAL_BLOCK_CAPACITY = 256 * 1024

let compiled: WebAssembly.Module | null | undefined

export class WasmOrderChecker {
  /** Decompress data blocks into this: they then land in the module's memory. */
  readonly scratch: Scratch
  private readonly x: Exports
  private bytes: Uint8Array
  private blockCapacity = INITIAL_BLOCK_CAPACITY

  /** A checker, or null when WebAssembly cannot run here (or SSTKIT_NO_WASM is set). */
  static create(): WasmOrderChecker | null {
    if (compiled === undefined) {
      try {
        compiled = process.env.SSTKIT_NO_WASM ? null : new WebAssembly.Module(Buffer.from(VERIFY_KERNELS_WASM, 'base64'))
      } catch {
        compiled = null
      }
    }
    return compiled ? new WasmOrderChecker(compiled) : null
  }

  private constructor(module: WebAssembly.Module) {
    this.x = new WebAssembly.Instance(module).exports as unknown as Exports
    this.x.memory.grow(Math.ceil((BLOCK_BASE + this.blockCapacity) / PAGE) - this.x.memory.buffer.byteLength / PAGE)
    this.bytes = new Uint8Array(this.x.memory.buffer)
    this.scratch = { buf: this.blockRegion() }
  }

  private blockRegion(): Uint8Array {
    return this.bytes.subarray(BLOCK_BASE, BLOCK_BASE + this.blockCapacity)
  }

  /**
   * Check the entries of `block` (entries end at `entriesEnd`) after `prevKey`
   * (the previous block's last key, or null). Returns the entry count when
   * every key is in order (see firstKey/lastKey), or -1: check it in JavaScript.
   */
  check(block: Uint8Array, entriesEnd: number, prevKey: Uint8Array | null): number {
    if (prevKey && prevKey.length > KEY_CAPACITY) return -1
    if (block.buffer !== this.bytes.buffer || block.byteOffset !== BLOCK_BASE) {
      if (block.length > this.blockCapacity) {
        const capacity = Math.max(block.length, this.blockCapacity * 2)
        const pages = Math.ceil((BLOCK_BASE + capacity) / PAGE) - this.x.memory.buffer.byteLength / PAGE
        if (pages > 0) this.x.memory.grow(pages)
        this.bytes = new Uint8Array(this.x.memory.buffer)
        this.blockCapacity = capacity
      }
      this.bytes.set(block, BLOCK_BASE)
    }
    if (this.scratch.buf.buffer !== this.bytes.buffer) this.scratch.buf = this.blockRegion()
    if (prevKey) this.bytes.set(prevKey, PREV)
    this.x.prevLen.value = prevKey ? prevKey.length : 0
    return this.x.check(BLOCK_BASE, entriesEnd, prevKey ? 1 : 0)
  }

  /** The first key of the block just checked (a view, valid until the next check). */
  firstKey(): Uint8Array {
    return this.bytes.subarray(FIRST, FIRST + (this.x.firstLen.value as number))
  }

  /** The last key of the block just checked (a view, valid until the next check). */
  lastKey(): Uint8Array {
    return this.bytes.subarray(PREV, PREV + (this.x.prevLen.value as number))
  }
}
