/**
 * sst_dump's `--output_hex` (upper-case hex of every key and value) through
 * scan's WebAssembly hex kernel (src/scan/text-kernels.wat, 16 bytes at a
 * time with SIMD), given upper-case digits: several times faster than a
 * JavaScript byte loop, which was most of `sst-dump --command=scan --output_hex`.
 */
import { BlockRegion, instantiateKernel } from '../wasm/kernel.js'
import { TEXT_KERNELS_WASM } from '../scan/text-kernels.generated.js'

interface Exports {
  memory: WebAssembly.Memory
  hex(src: number, n: number, dst: number): number
  HEX_DIGITS: WebAssembly.Global
  FREE: WebAssembly.Global
}

const UPPER_DIGITS = Buffer.from('0123456789ABCDEF', 'latin1')

export class UpperHexEncoder {
  private readonly x: Exports
  private readonly region: BlockRegion
  private capacity: number

  /** An encoder, or null when WebAssembly cannot run here (or SSTKIT_NO_WASM is set). */
  static create(): UpperHexEncoder | null {
    const x = instantiateKernel<Exports>(TEXT_KERNELS_WASM)
    return x ? new UpperHexEncoder(x) : null
  }

  private constructor(x: Exports) {
    this.x = x
    this.capacity = 64 * 1024
    // The input at FREE, its hex after it (2n bytes and the kernel's 16-byte overrun).
    this.region = new BlockRegion(this.x.memory, this.x.FREE.value as number, this.capacity * 3 + 64)
    this.region.bytes.set(UPPER_DIGITS, this.x.HEX_DIGITS.value as number)
  }

  /** The hex of `b`, a view valid until the next call. */
  encode(b: Uint8Array): Uint8Array {
    if (b.length > this.capacity) {
      this.capacity = Math.max(b.length, this.capacity * 2)
      // place() grows the memory for a block of this size
      this.region.place(new Uint8Array(this.capacity * 3 + 64))
    }
    const base = this.region.base
    const mem = this.region.bytes
    mem.set(b, base)
    const out = base + this.capacity
    const end = this.x.hex(base, b.length, out)
    return this.region.bytes.subarray(out, end)
  }
}
