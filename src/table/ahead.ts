/**
 * Data blocks compressed ahead of being added to a table writer (TableWriter.compressAhead,
 * submitAhead): a batch in one native call or handed to a lent core, each payload kept by its
 * block's array, with the block's share of the batch's CPU, until the writer adds that block.
 */
import { type AcceptanceRule, attemptsCompression, type BlockCompressor } from '../codec/block-compressor.js'
import type { AheadBatch } from './writer-options.js'

export class AheadBlocks {
  private readonly kept = new Map<Uint8Array, { payload: Uint8Array; ns: number }>()
  /** The blocks of the batch out on a lent core (submit). */
  private submitted: readonly Uint8Array[] | null = null

  constructor(private readonly o: { maxCompressedBytesPerKb: number; acceptance?: AcceptanceRule }) {}

  /** The payload compressed ahead for `raw` and its CPU, no longer kept; undefined when there is none. */
  take(raw: Uint8Array): { payload: Uint8Array; ns: number } | undefined {
    const a = this.kept.get(raw)
    if (a) this.kept.delete(raw)
    return a
  }

  clear(): void {
    this.kept.clear()
    this.submitted = null
  }

  /** The blocks of `raws` compression is tried on (the others are stored raw). */
  private tried(raws: readonly Uint8Array[]): Uint8Array[] {
    return raws.filter((r) => attemptsCompression(r.length, this.o.maxCompressedBytesPerKb, this.o.acceptance))
  }

  /** Compress `raws` in one batch (`reuse`: BlockCompressor.compressMany's); null when none is tried. */
  compress(c: BlockCompressor, raws: readonly Uint8Array[], reuse = false): AheadBatch | null {
    const tried = this.tried(raws)
    return tried.length === 0 ? null : this.keepTimed(c, tried, () => c.compressMany(tried, reuse))
  }

  /** Hand `raws` to a lent core (BlockCompressor.submitMany): true when taken, collect() then keeping them. */
  submit(c: BlockCompressor, raws: readonly Uint8Array[]): boolean {
    const tried = this.tried(raws)
    if (tried.length === 0 || !c.submitMany(tried)) return false
    this.submitted = tried
    return true
  }

  /** The batch submit handed out, once compressed (waited for). */
  collect(c: BlockCompressor, reuse = false): AheadBatch {
    const tried = this.submitted
    if (!tried) throw new Error('TableWriter.collectAhead() without a batch submitted')
    this.submitted = null
    return this.keepTimed(c, tried, () => c.collectMany(reuse))
  }

  /** Keep the payloads `call` makes of `tried`, with the compression CPU (and the helper's share) it added to `c`. */
  private keepTimed(c: BlockCompressor, tried: readonly Uint8Array[], call: () => Uint8Array[]): AheadBatch {
    const before = c.compressNs
    const helperBefore = c.helperNs
    const payloads = call()
    return this.keep(tried, payloads, c.compressNs - before, c.helperNs - helperBefore)
  }

  /** zstd with the content checksum: `plain`'s frames checksummed (BlockCompressor.withChecksumFrom); false where that cannot be done. */
  checksumFrom(c: BlockCompressor, plain: AheadBatch, reuse = false): boolean {
    const before = c.compressNs
    const payloads = c.withChecksumFrom(plain.payloads, plain.raws, reuse)
    if (!payloads) return false
    // What compressing them with the checksum costs: the same compression, and the hashing.
    this.keep(plain.raws, payloads, plain.ns + c.compressNs - before, 0)
    return true
  }

  private keep(tried: readonly Uint8Array[], payloads: readonly Uint8Array[], ns: number, helperNs: number): AheadBatch {
    let bytes = 0
    for (const r of tried) bytes += r.length
    for (let i = 0; i < tried.length; i++) this.kept.set(tried[i], { payload: payloads[i], ns: bytes > 0 ? (ns * tried[i].length) / bytes : 0 })
    return { raws: tried, payloads, ns, helperNs }
  }
}
