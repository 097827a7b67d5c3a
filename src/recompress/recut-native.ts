/**
 * A table's entries re-cut into data blocks of another size by the native kernel
 * (native/recut-kernel.h, through the addon): one call per stored block instead of
 * several JavaScript calls per entry. The blocks, their first and last keys and their
 * entry counts are the ones the JavaScript path (source.ts and evaluate.ts: BlockIter
 * over the stored blocks, BlockBuilder cut by FlushBySizePolicy) produces, byte for byte;
 * test/recompress/recut-native.test.ts holds the two equal. An unreadable entry is
 * reported with BlockIter's own message (the block is walked again in JavaScript).
 */
import { kernelAddon } from '../codec/addon.js'
import { newScratch } from '../codec/output.js'
import { CorruptionError } from '../errors.js'
import { BlockIter, decodeBlockLayout, DEFAULT_RESTART_INTERVAL } from '../format/block.js'
import { ReadWindow } from '../io/byte-source.js'
import { deviationLimitOf } from '../table/block-builder.js'
import { messageOf } from '../table/layout.js'
import type { Table } from '../table/reader.js'
import type { BlockEntryStats } from '../table/writer.js'
import type { EntryPosition, ReadStats, SkippedBlock, SourceOptions } from './source-types.js'
import { storedBlockDecoder, storedBlocks } from './stored-blocks.js'
import { storedObserver } from './stored-decompress.js'

/** The kernel's state slots (native/recut-kernel.h's enum, in its order). */
enum S {
  Fresh,
  End,
  RestartsOff,
  NumRestarts,
  Separated,
  ValuesStart,
  ValuesEnd,
  SrcInterval,
  Pos,
  RestartIndex,
  SinceRestart,
  PendingRestart,
  Valid,
  SrcKeyLen,
  NextValue,
  EntryIndex,
  Pending,
  PendingValue,
  PendingValueLen,
  PendingEntry,
  BlockSize,
  DeviationLimit,
  Interval,
  Size,
  Counter,
  Estimate,
  NumBuiltRestarts,
  LastLen,
  FirstOff,
  FirstLen,
  Started,
  StartEntry,
  BlockLen,
  BlockLastLen,
  Entries,
  Deletions,
  Merges,
  RawKey,
  RawValue,
  MinHi,
  MinLo,
  MaxHi,
  MaxLo,
  Need,
  ErrorAt,
  Strict,
  Slots,
}

enum R {
  Exhausted = 0,
  Block = 1,
  GrowOut = 2,
  GrowKeys = 3,
  Corrupt = -1,
  ShortKey = -2,
}

/** A re-cut block: its contents (a new array), first and last key, entries counted, and where it starts among the stored blocks. */
export interface RecutBlock {
  data: Uint8Array
  firstKey: Uint8Array
  lastKey: Uint8Array
  stats: BlockEntryStats
  start: EntryPosition
}

/** Whether the native re-cut serves these options (the global-seqno iterator and the separated layout's builder stay in JavaScript). */
export function nativeRecutApplies(table: Table, opts: SourceOptions): boolean {
  if (opts.blockSize === null || opts.separateKeyValue || (opts.applyGlobalSeqno && table.globalSeqno >= 0)) return false
  if (process.env.SSTKIT_NO_NATIVE_RECUT) return false
  return typeof kernelAddon()?.recut === 'function'
}

/** sequenceFrom's split: seq >> 24 and its low 24 bits, back to a number (a bigint from 2^53). */
function sequence(hi: number, lo: number): number | bigint {
  return hi < 0x200000 ? hi * 0x1000000 + lo : (BigInt(hi) << 24n) | BigInt(lo)
}

/**
 * The re-cut blocks of `table` at `opts.blockSize` (nativeRecutApplies must hold). Reads of
 * stored blocks are counted in `stats` when given. `counted`: each block's stats are used, so a key
 * shorter than its 8-byte trailer (whose type and sequence they read) stops the re-cut as unreadable;
 * otherwise the stats of a block holding one are not meaningful. Stops at the first unreadable block or entry,
 * recording it in `skipped` as the JavaScript path does, and ends with the block it was building.
 */
export function* recutNative(table: Table, opts: SourceOptions, skipped: SkippedBlock[], stats?: ReadStats, counted = false): Generator<RecutBlock> {
  const recut = kernelAddon()!.recut
  const blockSize = opts.blockSize!
  const state = new Float64Array(S.Slots)
  state[S.BlockSize] = blockSize
  state[S.DeviationLimit] = deviationLimitOf(blockSize)
  state[S.Interval] = opts.restartInterval ?? DEFAULT_RESTART_INTERVAL
  state[S.SrcInterval] = table.dataRestartInterval
  state[S.NumBuiltRestarts] = 1
  state[S.Estimate] = 8
  state[S.Strict] = counted ? 1 : 0
  let out = new Uint8Array(Math.max(blockSize * 2, 4096))
  let restarts = new Uint32Array(Math.ceil(out.length / 3) + 2)
  // Small at first, so that every file's first keys take the growing path (tests meet it on real tables).
  let srcKey = new Uint8Array(16)
  let lastKey = new Uint8Array(16)
  const reuse = { window: new ReadWindow(table.source), scratch: newScratch(), tally: stats, observe: storedObserver(stats) }
  let start: EntryPosition = { block: 0, entry: 0 }
  let ordinal = -1
  let offset = table.indexHandle.offset
  const take = (): RecutBlock => {
    const len = state[S.BlockLen]
    const firstOff = state[S.FirstOff]
    return {
      data: out.slice(0, len),
      firstKey: out.slice(firstOff, firstOff + state[S.FirstLen]),
      lastKey: lastKey.slice(0, state[S.BlockLastLen]),
      stats: {
        entries: state[S.Entries],
        deletions: state[S.Deletions],
        merges: state[S.Merges],
        rawKeyBytes: state[S.RawKey],
        rawValueBytes: state[S.RawValue],
        smallestSeq: state[S.MinHi] < 0 ? null : sequence(state[S.MinHi], state[S.MinLo]),
        largestSeq: state[S.MaxHi] < 0 ? null : sequence(state[S.MaxHi], state[S.MaxLo]),
      },
      start,
    }
  }
  const onRead = stats
    ? (ms: number, bytes: number) => {
        stats.ms += ms
        stats.bytes += bytes
      }
    : undefined
  try {
    for (const block of storedBlocks(table, storedBlockDecoder(table), reuse, onRead)) {
      if (block.data === undefined) {
        if (block.handle) offset = block.handle.offset
        throw block.error
      }
      ordinal++
      offset = block.handle.offset
      const data = block.data
      const layout = decodeBlockLayout(data, offset, 'data block')
      if (layout.separatedKV && table.dataRestartInterval <= 0) {
        throw new CorruptionError('data block uses the separated key/value layout but the table has no restart interval property', offset)
      }
      state[S.Fresh] = 1
      state[S.End] = layout.entriesEnd
      state[S.RestartsOff] = layout.restartsOffset
      state[S.NumRestarts] = layout.numRestarts
      state[S.Separated] = layout.separatedKV ? 1 : 0
      state[S.ValuesStart] = layout.valuesStart
      state[S.ValuesEnd] = layout.valuesEnd
      state[S.NextValue] = layout.valuesStart
      for (;;) {
        const r = recut(0, data, out, restarts, srcKey, lastKey, state)
        if (state[S.Started]) {
          state[S.Started] = 0
          start = { block: ordinal, entry: state[S.StartEntry] }
        }
        if (r === R.Exhausted) break
        if (r === R.Block) yield take()
        else if (r === R.GrowOut) {
          const grown = new Uint8Array(Math.max(out.length * 2, state[S.Need]))
          grown.set(out.subarray(0, state[S.Size]))
          out = grown
          const more = new Uint32Array(Math.ceil(out.length / 3) + 2)
          more.set(restarts)
          restarts = more
        } else if (r === R.GrowKeys) {
          const n = Math.max(srcKey.length * 2, state[S.Need])
          const s = new Uint8Array(n)
          s.set(srcKey)
          srcKey = s
          const l = new Uint8Array(n)
          l.set(lastKey)
          lastKey = l
        } else throw unreadable(table, data, offset, r, state[S.ErrorAt], state[S.Need])
      }
    }
  } catch (e) {
    skipped.push({ offset, message: `${messageOf(e)}; entries after this point were not evaluated` })
  }
  if (recut(1, out, out, restarts, srcKey, lastKey, state) === R.Block) yield take()
}

/** The error BlockIter gives for the block the kernel stopped in (the same checks: it stops at the same entry). */
function unreadable(table: Table, data: Uint8Array, offset: number, r: number, at: number, keyLength: number): Error {
  if (r === R.ShortKey) return new CorruptionError(`data block: internal key of ${keyLength} bytes, shorter than its 8-byte trailer`, offset + at)
  try {
    const it = new BlockIter(data, offset, 'data block', table.dataRestartInterval)
    for (it.seekToFirst(); it.valid; it.next());
  } catch (e) {
    return e as Error
  }
  return new CorruptionError('data block: an entry the re-cut could not read', offset + at)
}
