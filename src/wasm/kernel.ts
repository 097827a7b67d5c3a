/**
 * What the WebAssembly kernels share: compiling a module once (or not at all
 * where WebAssembly SIMD cannot run, or SSTKIT_NO_WASM is set: callers then
 * use their JavaScript path), and the region at the end of a kernel's memory
 * that data blocks are decoded into or copied to.
 */
import type { Scratch } from '../codec/output.js'

const PAGE = 65536
const compiled = new Map<string, WebAssembly.Module | null>()

/** The module assembled in `base64` (a *.generated.ts constant), or null. */
export function compileKernel(base64: string): WebAssembly.Module | null {
  let m = compiled.get(base64)
  if (m === undefined) {
    try {
      m = process.env.SSTKIT_NO_WASM ? null : new WebAssembly.Module(Buffer.from(base64, 'base64'))
    } catch {
      m = null
    }
    compiled.set(base64, m)
  }
  return m
}

/** A fresh instance of the module in `base64` (its own memory), as its exports `E`; null where compileKernel gives none. */
export function instantiateKernel<E>(base64: string): E | null {
  const module = compileKernel(base64)
  return module ? (new WebAssembly.Instance(module).exports as unknown as E) : null
}

/**
 * The kernel memory from `base` on holds the current data block. `scratch`
 * lets a decoder write the block there directly; place() copies it there
 * otherwise, growing the memory for a larger block.
 */
export class BlockRegion {
  readonly scratch: Scratch
  private view: Uint8Array
  private capacity: number

  constructor(
    private readonly memory: WebAssembly.Memory,
    readonly base: number,
    capacity = 256 * 1024,
  ) {
    this.capacity = capacity
    this.view = this.grow(capacity)
    this.scratch = { buf: this.region() }
  }

  /** The whole memory (a fresh view after any growth). */
  get bytes(): Uint8Array {
    return this.view
  }

  /**
   * Where `block` is in the memory: where a decoder wrote it inside the region (a chunk's blocks
   * decoded one after another), else copied to `base`.
   */
  place(block: Uint8Array): number {
    let at = block.byteOffset
    if (block.buffer !== this.view.buffer || at < this.base || at + block.length > this.base + this.capacity) {
      if (block.length > this.capacity) {
        this.capacity = Math.max(block.length, this.capacity * 2)
        this.view = this.grow(this.capacity)
      }
      this.view.set(block, this.base)
      at = this.base
    }
    this.refreshScratch()
    return at
  }

  /** The region, grown to at least `bytes` (growing the memory detaches earlier views). */
  reserve(bytes: number): Uint8Array {
    if (bytes > this.capacity) {
      this.capacity = Math.max(bytes, this.capacity * 2)
      this.view = this.grow(this.capacity)
    }
    this.refreshScratch()
    return this.scratch.buf
  }

  /** memory.grow detaches earlier views, the scratch's included. */
  private refreshScratch(): void {
    if (this.scratch.buf.buffer !== this.view.buffer || this.scratch.buf.length < this.capacity) this.scratch.buf = this.region()
  }

  private region(): Uint8Array {
    return this.view.subarray(this.base, this.base + this.capacity)
  }

  private grow(capacity: number): Uint8Array {
    const pages = Math.ceil((this.base + capacity) / PAGE) - this.memory.buffer.byteLength / PAGE
    if (pages > 0) this.memory.grow(pages)
    return new Uint8Array(this.memory.buffer)
  }
}
