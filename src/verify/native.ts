/**
 * verify's per-block checks of a chunk of data blocks in one native call
 * (native/verify-kernel.c, built into dist/native by scripts/build-native.mjs):
 * checksum, decompression (none, Snappy, ZSTD, LZ4/LZ4HC, with the table's
 * dictionary as codec/compression.ts uses it), block footer and restart array, and
 * the order of the entries, as the WebAssembly path checks a block. The answer
 * per block is parallel.ts's summary: the entry count and the first and
 * last keys; REDO (check it again in verify.ts, which words the problem); or
 * NOT_HANDLED (a codec or checksum the kernel does not do, or a block outside
 * the bytes given: the caller checks it as before). Also: chunkPassesAcross
 * (verify.ts's checks across a chunk's blocks), NativeIndexWalk and
 * fastDataHandles (a one-block index walked without an object per entry).
 *
 * Null where the library was not built or cannot load (another platform, no
 * C compiler at install, SSTKIT_NO_NATIVE_VERIFY set): verify then uses the
 * WebAssembly path alone, with the same findings.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_MAX_OUTPUT_BYTES } from '../codec/compression.js'
import { koffi } from '../codec/native.js'
import type { ChecksumContext } from '../table/block-reader.js'
import type { BlockHandle } from '../format/block-handle.js'
import type { Table } from '../table/reader.js'

/** The per-block codes of meta[5 * b] besides an entry count (native/verify-kernel.c). */
export const NATIVE_REDO = -1
export const NATIVE_NOT_HANDLED = -2

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
  | { call: VerifyBlocksCall; across: VerifyAcrossCall; indexWalk: IndexWalkCall; dictionaryId: () => number; abilities: NativeVerifyAbilities }
  | null
  | undefined

/** dist/native, from tsc's output (dist/table), the sources (src/table: tests) and the bundle (which re-points it). */
const LIBRARY = new URL('../../dist/native/verify-kernel.so', import.meta.url)

function load(): typeof loaded {
  const path = fileURLToPath(LIBRARY)
  if (!existsSync(path)) return null
  try {
    const lib = koffi().load(path)
    const init = lib.func('int sstkit_verify_init(void)') as () => number
    const call = lib.func(
      'int32_t sstkit_verify_blocks(const uint8_t *src, double srcLength, double srcOffset, const double *handles, int32_t n, int32_t flags, const uint8_t *validTypes, int32_t checksumType, uint32_t contextBase, int32_t formatVersion, double limit, double maxBlockBytes, double maxOutput, const uint8_t *dict, double dictLength, uint32_t dictId, void *meta, void *keys, double keysCapacity, void *keysUsed)',
    ) as VerifyBlocksCall
    const across = lib.func(
      'int32_t sstkit_verify_across(const int32_t *meta, const uint8_t *keys, int32_t n, const uint8_t *indexKeys, const int32_t *indexEnds, int32_t sepIsUserKey, const uint8_t *prevKey, int32_t prevLen, const uint8_t *prevIndex, int32_t prevIndexLen)',
    ) as VerifyAcrossCall
    const indexWalk = lib.func(
      'int32_t sstkit_index_walk(const uint8_t *block, double entriesEnd, int32_t deltaValues, void *state, void *prevKey, int32_t maxBlocks, double maxBytes, void *handles, void *keys, int32_t keysFrom, int32_t keysCapacity, void *keyEnds)',
    ) as IndexWalkCall
    const dictionaryId = lib.func('uint32_t sstkit_verify_dictionary_id(void)') as () => number
    const bits = init()
    const abilities = { xxh3: (bits & 1) !== 0, snappy: (bits & 2) !== 0, crc32c: (bits & 4) !== 0, zstd: (bits & 8) !== 0, lz4: (bits & 16) !== 0 }
    return { call, across, indexWalk, dictionaryId, abilities }
  } catch {
    // not loadable here (another platform's build): the WebAssembly path does the work
    return null
  }
}

/** What the native kernel can do here, or null when it is not available. */
export function nativeVerifyAbilities(): NativeVerifyAbilities | null {
  if (loaded === undefined) loaded = load()
  return loaded && !process.env.SSTKIT_NO_NATIVE_VERIFY ? loaded.abilities : null
}

/** What the kernel checks (native/verify-kernel.c's flags). */
export const NativeCheck = {
  /** Each block's checksum (else only read). */
  Checksums: 1,
  /** Internal keys in strictly increasing order under the bytewise comparator. */
  Order: 2,
  /** Keep each block's first and last keys (verify's summaries). */
  Keys: 4,
  /** Take every block's payload as its contents, whatever its type byte says (sst_dump 7.8.3 on a NoCompression file). */
  RawBlocks: 8,
} as const

export interface NativeCheckOptions {
  /** NativeCheck bits. */
  readonly flags: number
  /** Entry types that pass (sst-dump's check; any type otherwise). */
  readonly validTypes?: readonly number[]
}

/** The table facts the kernel needs. */
export interface NativeTableFacts {
  readonly checksum: ChecksumContext
  /** Where the footer starts: every block and its trailer end by it. */
  readonly footerOffset: number
  readonly maxBlockBytes: number
  /** The compression dictionary the JavaScript path decodes data blocks with (BlockSummarizer's), if any. */
  readonly dictionary?: Uint8Array
}

/** The kernel's id of each dictionary (a thread digests a ZSTD dictionary once per id). */
const dictionaryIds = new WeakMap<Uint8Array, number>()

/**
 * One chunk's blocks through the kernel. `meta` gets 5 ints per block, `keys`
 * (grown as needed) the first and last keys; returns the key bytes used.
 */
export class NativeBlockChecker {
  private readonly used = new Float64Array(1)
  private readonly flags: number
  private readonly types: Uint8Array | null

  /** A checker, or null where the kernel is not available (or SSTKIT_NO_NATIVE_VERIFY is set: read at each creation). */
  static create(options: NativeCheckOptions): NativeBlockChecker | null {
    if (loaded === undefined) loaded = load()
    return loaded && !process.env.SSTKIT_NO_NATIVE_VERIFY ? new NativeBlockChecker(loaded.call, loaded.dictionaryId, options) : null
  }

  private constructor(
    private readonly call: VerifyBlocksCall,
    private readonly newDictionaryId: () => number,
    options: NativeCheckOptions,
  ) {
    this.flags = options.flags
    this.types = options.validTypes ? typeTable(options.validTypes) : null
  }

  /**
   * Check the blocks of `handles` (offset, size pairs) held by `src` from file offset `srcOffset`
   * (its first `srcLength` bytes). Returns the keys buffer (`keys`, or a larger copy) and the
   * bytes of it used.
   */
  check(
    table: NativeTableFacts,
    src: Uint8Array,
    srcLength: number,
    srcOffset: number,
    handles: Float64Array,
    meta: Int32Array,
    keys: Uint8Array<ArrayBuffer>,
  ): { keys: Uint8Array<ArrayBuffer>; used: number } {
    const blocks = handles.length / 2
    const { checksumType, formatVersion, baseContextChecksum } = table.checksum
    const dict = table.dictionary && table.dictionary.length > 0 ? table.dictionary : null
    let dictId = dict ? (dictionaryIds.get(dict) ?? 0) : 0
    if (dict && dictId === 0) {
      dictId = this.newDictionaryId()
      dictionaryIds.set(dict, dictId)
    }
    this.used[0] = 0
    let done = 0
    for (;;) {
      const rest = done === 0 ? handles : handles.subarray(2 * done)
      const metaRest = done === 0 ? meta : meta.subarray(5 * done)
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
        dictId,
        metaRest,
        keys,
        keys.length,
        this.used,
      )
      if (n < 0) throw new Error('native verify kernel rejected its arguments')
      done += n
      if (done >= blocks) return { keys, used: this.used[0] }
      // The keys did not fit: a larger buffer, and the rest of the chunk.
      const bigger = new Uint8Array(Math.max(2 * keys.length, 64 * 1024))
      bigger.set(keys.subarray(0, this.used[0]))
      keys = bigger
    }
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
  private readonly state = new Float64Array(5)
  private readonly prevKey: Uint8Array
  /** Entries walked, the first (decoded by the caller) included. */
  entries = 1

  /**
   * A walk of `block` (entries end at `entriesEnd`) after its first entry, which the caller's
   * iterator decoded: it ended at `next`, its handle and key as given. Null where the kernel is not available.
   */
  static create(
    block: Uint8Array,
    entriesEnd: number,
    deltaValues: boolean,
    first: { next: number; offset: number; size: number; key: Uint8Array },
  ): NativeIndexWalk | null {
    if (loaded === undefined) loaded = load()
    return loaded && !process.env.SSTKIT_NO_NATIVE_VERIFY ? new NativeIndexWalk(loaded.indexWalk, block, entriesEnd, deltaValues, first) : null
  }

  private constructor(
    private readonly call: IndexWalkCall,
    private readonly block: Uint8Array,
    private readonly entriesEnd: number,
    private readonly deltaValues: boolean,
    first: { next: number; offset: number; size: number; key: Uint8Array },
  ) {
    this.prevKey = new Uint8Array(Math.max(entriesEnd, first.key.length, 1))
    this.prevKey.set(first.key)
    this.state.set([first.next, first.offset, first.size, first.key.length, IndexWalkStop.Limit])
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
      this.entriesEnd,
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
  const walk = NativeIndexWalk.create(top.iter.block, top.iter.layout.entriesEnd, top.encoding.valueIsDeltaEncoded, first)
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

/** A 256-byte table marking `types`. */
function typeTable(types: readonly number[]): Uint8Array {
  const t = new Uint8Array(256)
  for (const type of types) if (type >= 0 && type < 256) t[type] = 1
  return t
}
