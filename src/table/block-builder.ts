/**
 * Cutting data blocks the way RocksDB's FlushBlockBySizePolicy does
 * (`table/block_based/flush_block_policy.cc`); the blocks themselves are
 * encoded by format/block.ts's BlockBuilder.
 */
import type { BlockBuilder } from '../format/block.js'

/** The block encoder belongs to the format; the table builder's callers keep importing it from here. */
export { BlockBuilder, DEFAULT_RESTART_INTERVAL } from '../format/block.js'

/** Default `block_size_deviation` (percent). */
export const DEFAULT_BLOCK_SIZE_DEVIATION = 10

/** FlushBlockBySizePolicy's block_size_deviation_limit_: the size above which an entry that would overflow the block starts a new one. */
export function deviationLimitOf(blockSize: number, deviation = DEFAULT_BLOCK_SIZE_DEVIATION): number {
  return Math.floor((blockSize * (100 - deviation) + 99) / 100)
}

/** FlushBlockBySizePolicy: should the block be cut before adding this entry? */
export class FlushBySizePolicy {
  private readonly deviationLimit: number

  constructor(
    readonly blockSize: number,
    deviation = DEFAULT_BLOCK_SIZE_DEVIATION,
  ) {
    this.deviationLimit = deviationLimitOf(blockSize, deviation)
  }

  shouldFlush(builder: BlockBuilder, keyLength: number, valueLength: number): boolean {
    if (builder.empty) return false
    const current = builder.currentSizeEstimate()
    if (current >= this.blockSize) return true
    if (this.deviationLimit === 0) return false
    return builder.estimateSizeAfter(keyLength, valueLength) > this.blockSize && current > this.deviationLimit
  }
}
