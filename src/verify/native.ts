/**
 * The native kernel (native/verify-kernel.c, built into dist/native by
 * scripts/build-native.mjs, loaded as a Node-API addon, else through koffi). NativeBlockChecker is the
 * BlockChecker (block-checker.ts) that checks a chunk of data blocks in one
 * call: checksum, decompression (none, Snappy, ZSTD, LZ4/LZ4HC, with the
 * table's dictionary as codec/compression.ts uses it), block footer and restart
 * array, and the order of the entries, as the portable checker (wasm.ts) checks
 * a block; a codec or checksum it does not do, or a block outside the bytes
 * given, stays NotHandled for the next checker. Also: chunkPassesAcross
 * (verify.ts's checks across a chunk's blocks), NativeIndexWalk and
 * fastDataHandles (a one-block index walked without an object per entry).
 *
 * Null where the library was not built or cannot load (another platform, no
 * C compiler at install, SSTKIT_NO_NATIVE_VERIFY set): the portable checker
 * then does every block, with the same findings.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_MAX_OUTPUT_BYTES } from '../codec/compression.js'
import { kernelAddon } from '../codec/addon.js'
import { koffi } from '../codec/native.js'
import type { BlockHandle } from '../format/block-handle.js'
import type { BlockLayout } from '../format/block.js'
import type { Table } from '../table/reader.js'
import { type BlockChecker, type BlockChecks, type BlockResults, SUMMARY_INTS, type TableFacts } from './block-checker.js'

type VerifyBlocksCall = (
  src: Uint8Array,
  srcLength: number,
  srcOffset: number,
  handles: Float64Array,
  n: number,
  flags: number,
  validTypes: Uint8Array | null,
  checksumType: number,
  contextBase: number,
  formatVersion: number,
  limit: number,
  maxBlockBytes: number,
  maxOutput: number,
  dict: Uint8Array | null,
  dictLength: number,
  dictId: number,
  meta: Int32Array,
  keys: Uint8Array,
  keysCapacity: number,
  keysUsed: Float64Array,
) => number

type DecodeBlocksCall = (
  src: Uint8Array,
  srcLength: number,
  srcOffset: number,
  handles: Float64Array,
  n: number,
  flags: number,
  checksumType: number,
  contextBase: number,
  formatVersion: number,
  limit: number,
  maxBlockBytes: number,
  maxOutput: number,
  dict: Uint8Array | null,
  dictLength: number,
  dictId: number,
  out: Uint8Array,
  outCapacity: number,
  results: Float64Array,
) => number

type VerifyAcrossCall = (
  meta: Int32Array,
  keys: Uint8Array,
  n: number,
  indexKeys: Uint8Array,
  indexEnds: Int32Array,
  sepIsUserKey: number,
  prevKey: Uint8Array | null,
  prevLen: number,
  prevIndex: Uint8Array | null,
  prevIndexLen: number,
) => number

type IndexWalkCall = (
  block: Uint8Array,
  entriesEnd: number,
  numRestarts: number,
  deltaValues: number,
  state: Float64Array,
  prevKey: Uint8Array,
  maxBlocks: number,
  maxBytes: number,
  handles: Float64Array,
  keys: Uint8Array,
  keysFrom: number,
  keysCapacity: number,
  keyEnds: Int32Array,
) => number

/** What the kernel found it can do in this process (sstkit_verify_init's bits). */
export interface NativeVerifyAbilities {
  xxh3: boolean
  snappy: boolean
  crc32c: boolean
  zstd: boolean
  lz4: boolean
}

let loaded:
  | {
      call: VerifyBlocksCall
      decode: DecodeBlocksCall
      across: VerifyAcrossCall
      indexWalk: IndexWalkCall
      dictionaryId: () => number
      abilities: NativeVerifyAbilities
    }
  | null
  | undefined

/** dist/native, from tsc's output (dist/table), the sources (src/table: tests) and the bundle (which re-points it). */
const LIBRARY = new URL('../../dist/native/verify-kernel.so', import.meta.url)

function load(): typeof loaded {
  const addon = kernelAddon()
  if (addon) {
    return {
      call: addon.verifyBlocks as VerifyBlocksCall,
      decode: addon.decodeBlocks as DecodeBlocksCall,
      across: addon.verifyAcross as VerifyAcrossCall,
      indexWalk: addon.indexWalk as IndexWalkCall,
      dictionaryId: addon.dictionaryId,
      abilities: abilitiesOf(addon.init()),
    }
  }
  const path = fileURLToPath(LIBRARY)
  if (!existsSync(path)) return null
  try {
    const lib = koffi().load(path)
    const init = lib.func('int sstkit_verify_init(void)') as () => number
    const call = lib.func(
      'int32_t sstkit_verify_blocks(const uint8_t *src, double srcLength, double srcOffset, const double *handles, int32_t n, int32_t flags, const uint8_t *validTypes, int32_t checksumType, uint32_t contextBase, int32_t formatVersion, double limit, double maxBlockBytes, double maxOutput, const uint8_t *dict, double dictLength, uint32_t dictId, void *meta, void *keys, double keysCapacity, void *keysUsed)',
    ) as VerifyBlocksCall
    const decode = lib.func(
      'int32_t sstkit_decode_blocks(const uint8_t *src, double srcLength, double srcOffset, const double *handles, int32_t n, int32_t flags, int32_t checksumType, uint32_t contextBase, int32_t formatVersion, double limit, double maxBlockBytes, double maxOutput, const uint8_t *dict, double dictLength, uint32_t dictId, void *out, double outCapacity, void *results)',
    ) as DecodeBlocksCall
    const across = lib.func(
      'int32_t sstkit_verify_across(const int32_t *meta, const uint8_t *keys, int32_t n, const uint8_t *indexKeys, const int32_t *indexEnds, int32_t sepIsUserKey, const uint8_t *prevKey, int32_t prevLen, const uint8_t *prevIndex, int32_t prevIndexLen)',
    ) as VerifyAcrossCall
    const indexWalk = lib.func(
      'int32_t sstkit_index_walk(const uint8_t *block, double entriesEnd, double numRestarts, int32_t deltaValues, void *state, void *prevKey, int32_t maxBlocks, double maxBytes, void *handles, void *keys, int32_t keysFrom, int32_t keysCapacity, void *keyEnds)',
    ) as IndexWalkCall
    const dictionaryId = lib.func('uint32_t sstkit_verify_dictionary_id(void)') as () => number
    return { call, decode, across, indexWalk, dictionaryId, abilities: abilitiesOf(init()) }
  } catch {
    // not loadable here (another platform's build): the WebAssembly path does the work
    return null
  }
}

/** sstkit_verify_init's bits: 1 libxxhash, 2 libsnappy, 4 CRC32C instructions, 8 libzstd, 16 liblz4. */
function abilitiesOf(bits: number): NativeVerifyAbilities {
  return { xxh3: (bits & 1) !== 0, snappy: (bits & 2) !== 0, crc32c: (bits & 4) !== 0, zstd: (bits & 8) !== 0, lz4: (bits & 16) !== 0 }
}

/** What the native kernel can do here, or null when it is not available. */
export function nativeVerifyAbilities(): NativeVerifyAbilities | null {
  if (loaded === undefined) loaded = load()
  return loaded && !process.env.SSTKIT_NO_NATIVE_VERIFY ? loaded.abilities : null
}

/** The kernel's id of each dictionary (a thread digests a ZSTD dictionary once per id). */
const dictionaryIds = new WeakMap<Uint8Array, number>()

/**
 * The native BlockChecker: a chunk's blocks in one call. It checks every block of the chunk
 * (so it comes first where checkers are chained); a block it does not do stays NotHandled.
 */
export class NativeBlockChecker implements BlockChecker {
  private readonly used = new Float64Array(1)
  private readonly flags: number
  private readonly types: Uint8Array | null
  private readonly dict: Uint8Array | null
  private readonly dictId: number

  /** A checker of `table`'s blocks, or null where the kernel is not available (or SSTKIT_NO_NATIVE_VERIFY is set: read at each creation). */
  static create(checks: BlockChecks, table: TableFacts): NativeBlockChecker | null {
    if (loaded === undefined) loaded = load()
    return loaded && !process.env.SSTKIT_NO_NATIVE_VERIFY ? new NativeBlockChecker(loaded.call, loaded.dictionaryId, checks, table) : null
  }

  private constructor(
    private readonly call: VerifyBlocksCall,
    newDictionaryId: () => number,
    checks: BlockChecks,
    private readonly table: TableFacts,
  ) {
    this.flags = checks.flags
    this.types = checks.validTypes ? typeTable(checks.validTypes) : null
    const dict = table.dictionary && table.dictionary.length > 0 ? table.dictionary : null
    let dictId = dict ? (dictionaryIds.get(dict) ?? 0) : 0
    if (dict && dictId === 0) {
      dictId = newDictionaryId()
      dictionaryIds.set(dict, dictId)
    }
    this.dict = dict
    this.dictId = dictId
  }

  check(src: Uint8Array, srcLength: number, srcOffset: number, handles: Float64Array, out: BlockResults): void {
    const blocks = handles.length / 2
    const table = this.table
    const { checksumType, formatVersion, baseContextChecksum } = table.checksum
    const dict = this.dict
    const meta = out.meta
    this.used[0] = out.used
    let done = 0
    for (;;) {
      const rest = done === 0 ? handles : handles.subarray(2 * done)
      const metaRest = done === 0 ? meta : meta.subarray(SUMMARY_INTS * done)
      const n = this.call(
        src,
        srcLength,
        srcOffset,
        rest,
        blocks - done,
        this.flags,
        this.types,
        checksumType,
        baseContextChecksum >>> 0,
        formatVersion,
        table.footerOffset,
        table.maxBlockBytes,
        DEFAULT_MAX_OUTPUT_BYTES,
        dict,
        dict ? dict.length : 0,
        this.dictId,
        metaRest,
        out.keys,
        out.keys.length,
        this.used,
      )
      if (n < 0) throw new Error('native verify kernel rejected its arguments')
      done += n
      out.used = this.used[0]
      if (done >= blocks) return
      // The keys did not fit: a larger buffer, and the rest of the chunk.
      const bigger = new Uint8Array(Math.max(2 * out.keys.length, 64 * 1024))
      bigger.set(out.keys.subarray(0, out.used))
      out.keys = bigger
    }
  }
}

/**
 * scan's and sst-dump's reading of data blocks a chunk at a time (sstkit_decode_blocks): checksums
 * (when asked) and contents, decompressed one after another into the caller's buffer, in one
 * call, where reading them block by block took two native calls and a dozen JavaScript steps
 * each (a quarter of a 4 KiB-block scan). A block it does not pass (or do) is left to the
 * caller's own block-by-block read, which words the problem: the output is the same.
 */
export class NativeBlockDecoder {
  private readonly dict: Uint8Array | null
  private readonly dictId: number
  /** Per block of the last decode: where its contents start in the output, and their length (or a BlockCode). */
  results = new Float64Array(512)

  /**
   * A decoder of `table`'s data blocks (`flags`: BlockCheck.Checksums, BlockCheck.RawBlocks), or null
   * where the kernel is not available (or SSTKIT_NO_NATIVE_VERIFY is set).
   */
  static create(table: TableFacts, flags: number): NativeBlockDecoder | null {
    if (loaded === undefined) loaded = load()
    return loaded && !process.env.SSTKIT_NO_NATIVE_VERIFY ? new NativeBlockDecoder(loaded.decode, loaded.dictionaryId, table, flags) : null
  }

  private constructor(
    private readonly call: DecodeBlocksCall,
    newDictionaryId: () => number,
    private readonly table: TableFacts,
    private readonly flags: number,
  ) {
    const dict = table.dictionary && table.dictionary.length > 0 ? table.dictionary : null
    let dictId = dict ? (dictionaryIds.get(dict) ?? 0) : 0
    if (dict && dictId === 0) {
      dictId = newDictionaryId()
      dictionaryIds.set(dict, dictId)
    }
    this.dict = dict
    this.dictId = dictId
  }

  /**
   * Blocks `handles` ([offset, size, ...], inside src[0, srcLength), the bytes read from file
   * offset srcOffset) decoded into out[0, outCapacity): see `results`. Returns how many blocks
   * were done (fewer than given when out filled up; 0: the first block's contents need more room).
   */
  decode(src: Uint8Array, srcLength: number, srcOffset: number, handles: Float64Array, out: Uint8Array, outCapacity: number): number {
    const blocks = handles.length / 2
    if (this.results.length < 2 * blocks) this.results = new Float64Array(2 * blocks)
    const { checksumType, formatVersion, baseContextChecksum } = this.table.checksum
    const dict = this.dict
    const n = this.call(
      src,
      srcLength,
      srcOffset,
      handles,
      blocks,
      this.flags,
      checksumType,
      baseContextChecksum >>> 0,
      formatVersion,
      this.table.footerOffset,
      this.table.maxBlockBytes,
      DEFAULT_MAX_OUTPUT_BYTES,
      dict,
      dict ? dict.length : 0,
      this.dictId,
      out,
      outCapacity,
      this.results,
    )
    if (n < 0) throw new Error('native block decoder rejected its arguments')
    return n
  }
}

/** A chunk's summaries (5 ints per block in meta, keys in keys) and its blocks' index separators, packed. */
export interface PackedChunk {
  readonly blocks: number
  readonly meta: Int32Array
  readonly keys: Uint8Array
  /** Block b's separator is indexKeys[indexEnds[b - 1] (0 for b = 0) .. indexEnds[b]). */
  readonly indexKeys: Uint8Array
  readonly indexEnds: Int32Array
}

/**
 * Whether verify.ts's checks across blocks all pass over a whole summarized chunk, after the
 * previous block's state (see sstkit_verify_across): verify.ts then takes the chunk whole.
 * False where the kernel is not available.
 */
export function chunkPassesAcross(chunk: PackedChunk, sepIsUserKey: boolean, prevKey: Uint8Array | null, prevIndexKey: Uint8Array | null): boolean {
  if (loaded === undefined) loaded = load()
  if (!loaded) return false
  const { meta, keys, indexKeys, indexEnds, blocks } = chunk
  return (
    loaded.across(
      meta,
      keys,
      blocks,
      indexKeys,
      indexEnds,
      sepIsUserKey ? 1 : 0,
      prevKey,
      prevKey ? prevKey.length : -1,
      prevIndexKey,
      prevIndexKey ? prevIndexKey.length : -1,
    ) === 1
  )
}

/** Why NativeIndexWalk.next stopped (sstkit_index_walk's state[4]). */
export const IndexWalkStop = {
  /** The limits given (or the keys buffer is full). */
  Limit: 0,
  /** At an entry the JavaScript iterator throws for or decodes otherwise: go on with it from `entries`. */
  Unusual: 1,
  End: 2,
} as const

/**
 * The entries of a binary index block (no first keys in its values) after its first, decoded by
 * the kernel as IndexBlockIter decodes them; parallel.ts fills its chunks with them.
 */
export class NativeIndexWalk {
  private readonly state = new Float64Array(6)
  private readonly prevKey: Uint8Array
  /** Entries walked, the first (decoded by the caller) included. */
  entries = 1

  /**
   * A walk of `block` (its layout: where the entries end, how many restart points follow) after
   * its first entry, which the caller's iterator decoded: it ended at `next`, its handle and key as
   * given. Null where the kernel is not available.
   */
  static create(
    block: Uint8Array,
    layout: Pick<BlockLayout, 'entriesEnd' | 'numRestarts'>,
    deltaValues: boolean,
    first: { next: number; offset: number; size: number; key: Uint8Array },
  ): NativeIndexWalk | null {
    if (loaded === undefined) loaded = load()
    return loaded && !process.env.SSTKIT_NO_NATIVE_VERIFY ? new NativeIndexWalk(loaded.indexWalk, block, layout, deltaValues, first) : null
  }

  private constructor(
    private readonly call: IndexWalkCall,
    private readonly block: Uint8Array,
    private readonly layout: Pick<BlockLayout, 'entriesEnd' | 'numRestarts'>,
    private readonly deltaValues: boolean,
    first: { next: number; offset: number; size: number; key: Uint8Array },
  ) {
    this.prevKey = new Uint8Array(Math.max(layout.entriesEnd, first.key.length, 1))
    this.prevKey.set(first.key)
    // The first entry is at restart point 0: the next one to meet is 1.
    this.state.set([first.next, first.offset, first.size, first.key.length, IndexWalkStop.Limit, 1])
  }

  /** Why the last next() stopped. */
  get stop(): number {
    return this.state[4]
  }

  /**
   * Up to `maxBlocks` more entries, stopping once their sizes reach `maxBytes`: handles into
   * `handles`, keys into `keys` from `keysFrom` on (entry b's key ends at keyEnds[b]). Returns how many.
   */
  next(maxBlocks: number, maxBytes: number, handles: Float64Array, keys: Uint8Array, keysFrom: number, keyEnds: Int32Array): number {
    const n = this.call(
      this.block,
      this.layout.entriesEnd,
      this.layout.numRestarts,
      this.deltaValues ? 1 : 0,
      this.state,
      this.prevKey,
      maxBlocks,
      maxBytes,
      handles,
      keys,
      keysFrom,
      keys.length,
      keyEnds,
    )
    this.entries += n
    return n
  }
}

/**
 * table.dataHandles(), with a one-block index without first keys walked by the kernel in
 * batches (where it loads): the same handles, and from an entry the kernel leaves to it on,
 * dataHandles() itself (which meets and throws what is wrong there, as it always would).
 */
export function* fastDataHandles(table: Table): Generator<BlockHandle> {
  if (table.isPartitionedIndex || table.indexEncoding.hasFirstKey || !nativeVerifyAbilities()) return yield* table.dataHandles()
  const top = table.topIndex()
  top.seekToFirst()
  if (!top.valid) return
  const first = { next: top.iter.valueEnd, offset: top.handle.offset, size: top.handle.size, key: top.key }
  const walk = NativeIndexWalk.create(top.iter.block, top.iter.layout, top.encoding.valueIsDeltaEncoded, first)
  if (!walk) return yield* table.dataHandles()
  yield { offset: first.offset, size: first.size }
  const handles = new Float64Array(2 * HANDLE_BATCH)
  const keyEnds = new Int32Array(HANDLE_BATCH)
  let keys = new Uint8Array(64 * 1024)
  for (;;) {
    const n = walk.next(HANDLE_BATCH, Number.MAX_SAFE_INTEGER, handles, keys, 0, keyEnds)
    for (let b = 0; b < n; b++) yield { offset: handles[2 * b], size: handles[2 * b + 1] }
    if (walk.stop === IndexWalkStop.End) return
    if (walk.stop === IndexWalkStop.Unusual) {
      const rest = table.dataHandles()
      for (let i = 0; i < walk.entries; i++) rest.next()
      return yield* rest
    }
    if (n === 0) keys = new Uint8Array(2 * keys.length) // the keys did not fit
  }
}

/** Entries fastDataHandles asks the kernel for at a time. */
const HANDLE_BATCH = 1024

/**
 * fastDataHandles in batches: each a view of [offset, size, ...] pairs, valid until the next, with
 * no object per block where the kernel walks the index. An error of the index comes after the
 * batch of the handles before it, as fastDataHandles would have yielded them first.
 */
export function* fastDataHandleBatches(table: Table): Generator<Float64Array> {
  const handles = new Float64Array(2 * HANDLE_BATCH)
  if (table.isPartitionedIndex || table.indexEncoding.hasFirstKey || !nativeVerifyAbilities()) return yield* packHandles(table.dataHandles(), handles)
  const top = table.topIndex()
  top.seekToFirst()
  if (!top.valid) return
  const first = { next: top.iter.valueEnd, offset: top.handle.offset, size: top.handle.size, key: top.key }
  const walk = NativeIndexWalk.create(top.iter.block, top.iter.layout, top.encoding.valueIsDeltaEncoded, first)
  if (!walk) return yield* packHandles(table.dataHandles(), handles)
  handles[0] = first.offset
  handles[1] = first.size
  let n = 1
  const keyEnds = new Int32Array(HANDLE_BATCH)
  let keys = new Uint8Array(64 * 1024)
  for (;;) {
    const got = walk.next(HANDLE_BATCH - n, Number.MAX_SAFE_INTEGER, handles.subarray(2 * n), keys, 0, keyEnds)
    n += got
    if (walk.stop !== IndexWalkStop.Limit) break
    if (n === HANDLE_BATCH) {
      yield handles.subarray(0, 2 * n)
      n = 0
    } else if (got === 0) keys = new Uint8Array(2 * keys.length) // the keys did not fit
  }
  if (n > 0) yield handles.subarray(0, 2 * n)
  if (walk.stop === IndexWalkStop.End) return
  const rest = table.dataHandles()
  for (let i = 0; i < walk.entries; i++) rest.next()
  yield* packHandles(rest, handles)
}

/** `handles` packed into batches of `into` (each valid until the next); an error of theirs comes after the batch before it. */
export function* packHandles(handles: Iterator<BlockHandle>, into: Float64Array): Generator<Float64Array> {
  let n = 0
  try {
    for (let r = handles.next(); !r.done; r = handles.next()) {
      into[2 * n] = r.value.offset
      into[2 * n + 1] = r.value.size
      if (2 * ++n === into.length) {
        yield into.subarray(0, 2 * n)
        n = 0
      }
    }
  } catch (e) {
    if (n > 0) yield into.subarray(0, 2 * n)
    throw e
  }
  if (n > 0) yield into.subarray(0, 2 * n)
}

/** A 256-byte table marking `types`. */
function typeTable(types: readonly number[]): Uint8Array {
  const t = new Uint8Array(256)
  for (const type of types) if (type >= 0 && type < 256) t[type] = 1
  return t
}
