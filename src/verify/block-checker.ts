/**
 * The seam of verify's block checks: the context-free checks of data blocks
 * (checksum, decompression, the block's footer and restart array, the order of
 * its entries), done a chunk of blocks at a time. Two checkers stand behind it:
 * the native kernel (native.ts, native/verify-kernel.c: a chunk in one call)
 * and the portable checker (wasm.ts: checksum and decompression in
 * JavaScript, entry order in WebAssembly), which does what the kernel leaves
 * and everything where the kernel is not built or does not load. checkers.ts
 * picks them; verify's chunks (parallel.ts) and sst-dump's check
 * (sstdump/sequential.ts) ask it for one.
 *
 * A checker decides nothing: a block it does not pass gets REDO, and the
 * caller's own path (verify.ts's serial loop, sst-dump's entry-by-entry path)
 * reads it again and words the problem. So the findings are those of that
 * path, whichever checker ran.
 */
import type { ChecksumContext } from '../table/block-reader.js'

/** A block's code in BlockResults besides its entry count (native/verify-kernel.c uses the same). */
export const BlockCode = {
  /** Not passed: check it again where the problem is worded. */
  Redo: -1,
  /** Not done by this checker (a codec or checksum it does not do, a block outside the bytes given): the next one takes it. */
  NotHandled: -2,
} as const

/** What a checker checks (native/verify-kernel.c's flags). */
export const BlockCheck = {
  /** Each block's checksum (else only read). */
  Checksums: 1,
  /** Internal keys in strictly increasing order under the bytewise comparator. */
  Order: 2,
  /** Keep each block's first and last keys (verify's summaries). */
  Keys: 4,
  /** Take every block's payload as its contents, whatever its type byte says (sst_dump 7.8.3 on a NoCompression file). */
  RawBlocks: 8,
} as const

/** verify's checks: every one but RawBlocks, any entry type. */
export const VERIFY_CHECKS: BlockChecks = { flags: BlockCheck.Checksums | BlockCheck.Order | BlockCheck.Keys }

export interface BlockChecks {
  /** BlockCheck bits. */
  readonly flags: number
  /** Entry types that pass (sst-dump's check; any type otherwise). */
  readonly validTypes?: readonly number[]
}

/** The table facts a checker needs. */
export interface TableFacts {
  readonly checksum: ChecksumContext
  /** Where the footer starts: every block and its trailer end by it. */
  readonly footerOffset: number
  readonly maxBlockBytes: number
  /** The compression dictionary data blocks decode with, if any. */
  readonly dictionary?: Uint8Array
}

/** Ints per block in BlockResults.meta: its code (entries, Redo, NotHandled), first key offset and length, last key offset and length in `keys`. */
export const SUMMARY_INTS = 5

/** A chunk's results, packed: SUMMARY_INTS ints per block in `meta`, the keys they point at in keys[0, used). */
export class BlockResults {
  meta = new Int32Array(0)
  private backing = new Int32Array(0)
  keys: Uint8Array<ArrayBuffer>
  used = 0

  constructor(keyBytes = 64 * 1024) {
    this.keys = new Uint8Array(keyBytes)
  }

  /**
   * Ready for a chunk of `blocks` blocks, every one NotHandled. `fresh`: a new meta array (one
   * handed on, say to another thread), else a view of a buffer reused chunk after chunk.
   */
  reset(blocks: number, fresh = false): Int32Array {
    const ints = blocks * SUMMARY_INTS
    if (fresh) this.meta = new Int32Array(ints)
    else {
      if (this.backing.length < ints) this.backing = new Int32Array(Math.max(ints, 2 * this.backing.length))
      this.meta = this.backing.subarray(0, ints)
      this.meta.fill(0)
    }
    for (let at = 0; at < ints; at += SUMMARY_INTS) this.meta[at] = BlockCode.NotHandled
    this.used = 0
    return this.meta
  }

  /** Block b's entry count, or its BlockCode. */
  code(b: number): number {
    return this.meta[b * SUMMARY_INTS]
  }

  /** Whether some block is still NotHandled. */
  someNotHandled(): boolean {
    for (let at = 0; at < this.meta.length; at += SUMMARY_INTS) if (this.meta[at] === BlockCode.NotHandled) return true
    return false
  }

  /** Record block b's code: passed with `entries` entries, its first and last keys copied in; or a BlockCode. */
  keep(b: number, entries: number, first: Uint8Array, last: Uint8Array): void {
    const at = b * SUMMARY_INTS
    this.meta[at] = entries
    if (entries <= 0) {
      this.meta.fill(0, at + 1, at + SUMMARY_INTS)
      return
    }
    let used = this.used
    if (used + first.length + last.length > this.keys.length) {
      const bigger = new Uint8Array(Math.max(this.keys.length * 2, used + first.length + last.length))
      bigger.set(this.keys.subarray(0, used))
      this.keys = bigger
    }
    this.meta[at + 1] = used
    this.meta[at + 2] = first.length
    this.keys.set(first, used)
    used += first.length
    this.meta[at + 3] = used
    this.meta[at + 4] = last.length
    this.keys.set(last, used)
    this.used = used + last.length
  }
}

/**
 * The context-free checks of a chunk of data blocks. `handles` holds [offset, size, ...] of
 * consecutive blocks; src[0, srcLength) holds the file's bytes from srcOffset on. Each block
 * whose code in `out` is NotHandled on entry (every one of a fresh chunk; what a checker
 * before this one left) gets its entry count with its keys, Redo, or stays NotHandled where
 * this checker does not do it.
 */
export interface BlockChecker {
  check(src: Uint8Array, srcLength: number, srcOffset: number, handles: Float64Array, out: BlockResults): void
}
