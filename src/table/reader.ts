/**
 * Reading a whole block-based table: footer -> metaindex -> properties -> index
 * -> data blocks, one positional read per block. Nothing is loaded whole;
 * memory is bounded by the largest block (and the readahead window).
 */
import { type BlockHandle, isNullHandle } from '../format/block-handle.js'
import { BlockIter } from '../format/block.js'
import { Cursor, readFixed32, userKeyBytes } from '../format/coding.js'
import { CorruptionError, NotSupportedError } from '../format/errors.js'
import { errorCode, UsageError } from '../errors.js'
import { ChecksumType } from '../format/checksum-type.js'
import { decodeFooter, type Footer, FOOTER_BYTES, FOOTER_CHECKSUM_OFFSET } from '../format/footer.js'
import { IndexBlockIter, type IndexEncoding, IndexType } from '../format/index-block.js'
import {
  GlobalSeqnoPatch,
  parseInternalKey,
  internalKeyComparator,
  INTERNAL_KEY_TRAILER_BYTES,
  userComparatorByName,
  type UserComparator,
  bytewiseComparator,
} from '../format/internal-key.js'
import {
  COMPRESSION_DICT_BLOCK,
  decodeMetaindex,
  INDEX_BLOCK,
  LEGACY_PROPERTIES_BLOCK,
  type MetaindexEntry,
  PROPERTIES_BLOCK,
  RANGE_DEL_BLOCK,
} from '../format/metaindex.js'
import {
  decodeProperties,
  decodeWellKnownUserProperty,
  EXTERNAL_SST_VERSION_PROPERTY,
  GLOBAL_SEQNO_PROPERTY,
  INDEX_TYPE_PROPERTY,
  Property,
  propertyNumber,
  propertyString,
  type TableProperties,
} from '../format/properties.js'
import { decodeRangeDeletions, type RangeTombstone } from '../format/range-del.js'
import type { Scratch } from '../codec/output.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { type ByteSource, FileByteSource, type ReadWindow } from '../io/byte-source.js'
import {
  ChecksumMismatchError,
  checkHandle,
  computeStoredChecksum,
  decompressRawBlock,
  DEFAULT_MAX_BLOCK_BYTES,
  hex32,
  readRawBlock,
  type RawBlock,
  type ChecksumContext,
} from './block-reader.js'

export interface OpenTableOptions {
  /** Verify block checksums as blocks are read (default true). */
  verifyChecksums?: boolean
  /** Refuse blocks larger than this (default 512 MiB). */
  maxBlockBytes?: number
  /** Readahead window for file sources, bytes. */
  readahead?: number
  /**
   * The file's user comparator as the caller states it (one userComparatorByName knows),
   * in place of the one its properties record (or, in a LevelDB table, do not record).
   */
  comparator?: string
  /** How data blocks store keys (default auto: see KeyFormat). */
  keyFormat?: KeyFormat | 'auto'
  /**
   * The top-level index block as the caller read (and decompressed) it, for topIndex() to use
   * instead of reading it again (sst-dump's open reads it, as RocksDB's does).
   */
  topIndexBlock?: Uint8Array
}

/**
 * How data blocks store keys: `internal` (user key + 8-byte sequence/type trailer, what a DB writes)
 * or `raw` (plain user keys, what LevelDB's TableBuilder writes when used directly). Auto-detected
 * for tables without a properties block (LevelDB's); RocksDB tables always hold internal keys.
 */
export type KeyFormat = 'internal' | 'raw'

/**
 * Where the comparator sstkit orders keys with comes from: `recorded` in the file's properties,
 * `stated` by the caller (OpenTableOptions.comparator), or `assumed` bytewise because the table
 * records none (LevelDB).
 */
export type ComparatorSource = 'recorded' | 'stated' | 'assumed'

/** A data block as stored: where it is, its payload and its compression type byte. */
export type StoredPayload = Pick<RawBlock, 'handle' | 'payload' | 'compressionType'>

/** What a sequential reader of data blocks reuses between readDataBlock calls, and what it is told of each block. */
export interface DataBlockReuse {
  scratch?: Scratch
  window?: ReadWindow
  tally?: StoredTally
  /** Each block read: as stored (payload and type, valid until the next read) and decoded (valid until the next call). */
  observe?: (stored: StoredPayload, data: Uint8Array) => void
}

/** Data blocks as stored, counted as they are read (readDataBlock's `reuse.tally`). */
export interface StoredTally {
  blocks: number
  /** Their bytes on disk, trailers included. */
  storedBytes: number
  /** How many are stored compressed, and the compression types met (in order of first use). */
  compressed: number
  types: number[]
}

/** Count one data block into `t` as readDataBlock does (a pass that decodes blocks its own way counts them too). */
export function tallyBlock(t: StoredTally, handle: BlockHandle, compressionType: number): void {
  t.blocks++
  t.storedBytes += handle.size + BLOCK_TRAILER_BYTES
  if (compressionType !== 0) t.compressed++
  if (!t.types.includes(compressionType)) t.types.push(compressionType)
}

export interface DataBlockRef {
  readonly handle: BlockHandle
  /** Index key (separator) of the block, as stored (user or internal key). */
  readonly indexKey: Uint8Array
  /** First internal key, for kBinarySearchWithFirstKey indexes. */
  readonly firstKey: Uint8Array | null
  /** Handle of the index partition listing this block (partitioned indexes). */
  readonly partition: BlockHandle | null
}

/** The internal key that sorts first among all entries of `userKey` (max sequence, max type). */
function seekTarget(userKey: Uint8Array): Uint8Array {
  const target = new Uint8Array(userKey.length + INTERNAL_KEY_TRAILER_BYTES)
  target.set(userKey)
  target.fill(0xff, userKey.length)
  return target
}

/** Sequence number RocksDB uses to mean "no global seqno". */
const DISABLED_GLOBAL_SEQNO = -1

export class Table {
  readonly checksum: ChecksumContext
  readonly metaindexEntries: MetaindexEntry[]
  readonly properties: TableProperties
  readonly propertiesHandle: BlockHandle | null
  readonly indexHandle: BlockHandle
  readonly indexType: number
  readonly indexEncoding: IndexEncoding
  readonly comparatorName: string
  readonly comparatorSource: ComparatorSource
  /** User comparator, or null if the file's comparator is unknown (scan works, seek does not). */
  readonly userComparator: UserComparator | null
  readonly keyFormat: KeyFormat
  readonly compareInternal: (a: Uint8Array, b: Uint8Array) => number
  /** Global sequence number of an ingested file, or -1 when not applicable. */
  readonly globalSeqno: number
  /** Properties block passed its checksum only with the global seqno zeroed (as RocksDB allows). */
  readonly propertiesChecksumNeededSeqnoZeroed: boolean
  readonly verifyChecksums: boolean
  readonly maxBlockBytes: number
  /** Restart interval of data blocks (needed for separated key/value blocks). */
  readonly dataRestartInterval: number
  private dictionaryCache: Uint8Array | null | undefined
  private readonly topIndexBlock: Uint8Array | undefined

  private constructor(
    readonly source: ByteSource,
    readonly footer: Footer,
    init: {
      metaindex: MetaindexEntry[]
      properties: TableProperties
      propertiesHandle: BlockHandle | null
      indexHandle: BlockHandle
      propertiesSeqnoZeroed: boolean
      keyFormat: KeyFormat
    },
    options: OpenTableOptions,
  ) {
    this.checksum = {
      checksumType: footer.checksumType,
      formatVersion: footer.formatVersion,
      baseContextChecksum: footer.baseContextChecksum ?? 0,
    }
    this.verifyChecksums = options.verifyChecksums ?? true
    this.topIndexBlock = options.topIndexBlock
    this.maxBlockBytes = options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES
    this.metaindexEntries = init.metaindex
    this.properties = init.properties
    this.propertiesHandle = init.propertiesHandle
    this.indexHandle = init.indexHandle
    this.propertiesChecksumNeededSeqnoZeroed = init.propertiesSeqnoZeroed
    const props = init.properties
    const typeBytes = props.user.get(INDEX_TYPE_PROPERTY)
    this.indexType = typeBytes ? ((decodeWellKnownUserProperty(INDEX_TYPE_PROPERTY, typeBytes) as number | undefined) ?? -1) : IndexType.BinarySearch
    if (this.indexType < 0 || this.indexType > 3) {
      throw new NotSupportedError(`unknown index type ${this.indexType} in property ${INDEX_TYPE_PROPERTY}`)
    }
    this.keyFormat = init.keyFormat
    // Where the properties cannot be read (a damaged metaindex), what RocksDB's builder writes at this format_version:
    // index values delta-encoded from 4 on (no value lengths in the block: read otherwise, every handle would be wrong),
    // user keys from 3 on. The properties were introduced with those versions, so a readable one always has them.
    const fv = footer.formatVersion
    this.indexEncoding = {
      // Raw-key tables index by their (raw) user keys.
      keyIsUserKey: this.keyFormat === 'raw' || (propertyNumber(props, Property.IndexKeyIsUserKey) ?? (fv >= 3 ? 1 : 0)) === 1,
      valueIsDeltaEncoded: (propertyNumber(props, Property.IndexValueIsDeltaEncoded) ?? (fv >= 4 ? 1 : 0)) === 1,
      hasFirstKey: this.indexType === IndexType.BinarySearchWithFirstKey,
    }
    const recorded = propertyString(props, Property.Comparator)
    this.comparatorSource = options.comparator !== undefined ? 'stated' : recorded !== undefined ? 'recorded' : 'assumed'
    this.comparatorName = options.comparator ?? recorded ?? 'leveldb.BytewiseComparator'
    this.userComparator = userComparatorByName(this.comparatorName)
    if (options.comparator !== undefined && !this.userComparator) throw new UsageError(`unknown comparator "${options.comparator}"`)
    const user = this.userComparator ?? bytewiseComparator
    this.compareInternal = this.keyFormat === 'raw' ? user : internalKeyComparator(user)
    this.globalSeqno = computeGlobalSeqno(props)
    this.dataRestartInterval = propertyNumber(props, Property.DataBlockRestartInterval) ?? 0
  }

  static open(source: ByteSource, options: OpenTableOptions = {}): Table {
    const verify = options.verifyChecksums ?? true
    const maxBlockBytes = options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES
    const tailLength = Math.min(FOOTER_BYTES, source.size)
    const tail = source.read(source.size - tailLength, tailLength)
    const footer = decodeFooter(tail, source.size)
    if (verify && footer.checksumType > ChecksumType.XXH3) {
      // Nothing this file's blocks claim can be checked: refuse here, with the footer's offset.
      throw new CorruptionError(`unknown checksum type ${footer.checksumType} in the footer`, footer.offset)
    }
    const ctx: ChecksumContext = {
      checksumType: footer.checksumType,
      formatVersion: footer.formatVersion,
      baseContextChecksum: footer.baseContextChecksum ?? 0,
    }
    if (footer.formatVersion >= 6 && verify) verifyFooterChecksum(footer, tail.subarray(tail.length - FOOTER_BYTES), ctx)

    /** `heldAt`: the file offset of the structure holding the handle, where an impossible handle is reported. */
    const readMeta = (handle: BlockHandle, what: string, heldAt: number, allowSeqnoRetry = false): { data: Uint8Array; seqnoZeroed: boolean } => {
      let raw: RawBlock
      let seqnoZeroed = false
      checkHandle(handle, what, footer.offset, maxBlockBytes, heldAt)
      try {
        raw = readRawBlock(source, handle, ctx, { what, verifyChecksum: verify, limit: footer.offset, maxBlockBytes })
      } catch (e) {
        if (!(allowSeqnoRetry && e instanceof ChecksumMismatchError)) throw e
        raw = readRawBlock(source, handle, ctx, { what, verifyChecksum: false, limit: footer.offset, maxBlockBytes })
        if (!propertiesChecksumWithSeqnoZeroed(raw, ctx)) throw e
        seqnoZeroed = true
      }
      return { data: decompressRawBlock(raw, footer.formatVersion, what), seqnoZeroed }
    }

    const metaindex = decodeMetaindex(readMeta(footer.metaindexHandle, 'metaindex block', footer.offset).data, footer.metaindexHandle.offset)
    const find = (name: string) => metaindex.find((e) => e.name === name)?.handle ?? null
    const propertiesHandle = find(PROPERTIES_BLOCK) ?? find(LEGACY_PROPERTIES_BLOCK)
    let properties: TableProperties = { known: new Map(), user: new Map(), raw: [] }
    let propertiesSeqnoZeroed = false
    if (propertiesHandle) {
      const r = readMeta(propertiesHandle, 'properties block', footer.metaindexHandle.offset, true)
      properties = decodeProperties(r.data, propertiesHandle.offset)
      propertiesSeqnoZeroed = r.seqnoZeroed
    }
    let indexHandle = footer.indexHandle
    if (footer.formatVersion >= 6) {
      indexHandle = find(INDEX_BLOCK)
      if (!indexHandle)
        throw new CorruptionError(`format_version ${footer.formatVersion} file has no "${INDEX_BLOCK}" entry in its metaindex`, footer.metaindexHandle.offset)
    }
    if (!indexHandle || isNullHandle(indexHandle)) throw new CorruptionError('the file has no index block', footer.offset)
    // Refuse an impossible index handle now (without reading it), so that a damaged
    // footer or metaindex fails the open instead of surfacing on first use.
    checkHandle(indexHandle, 'index block', footer.offset, maxBlockBytes, footer.formatVersion >= 6 ? footer.metaindexHandle.offset : footer.offset)
    const init = { metaindex, properties, propertiesHandle, indexHandle, propertiesSeqnoZeroed, keyFormat: 'internal' as KeyFormat }
    const keyFormat = options.keyFormat ?? 'auto'
    if (keyFormat !== 'auto') return new Table(source, footer, { ...init, keyFormat }, options)
    const table = new Table(source, footer, init, options)
    // RocksDB always writes properties and internal keys; a table without them may be LevelDB's raw-key kind.
    return !propertiesHandle && looksRaw(table) ? new Table(source, footer, { ...init, keyFormat: 'raw' }, options) : table
  }

  /** Whether the comparator sstkit orders keys with is known to be the file's (recorded or stated, and implemented). */
  get comparatorKnown(): boolean {
    return this.userComparator !== null && this.comparatorSource !== 'assumed'
  }

  /** The user key of a stored key: all of a raw key, an internal key without its trailer. */
  userKeyOf(key: Uint8Array, offset?: number): Uint8Array {
    return this.keyFormat === 'raw' ? key : parseInternalKey(key, offset).userKey
  }

  get formatVersion(): number {
    return this.footer.formatVersion
  }

  get fileSize(): number {
    return this.source.size
  }

  metaBlock(name: string): BlockHandle | null {
    return this.metaindexEntries.find((e) => e.name === name)?.handle ?? null
  }

  /** Read, verify and return a block's raw form (no decompression). */
  readRaw(handle: BlockHandle, what: string, verifyChecksum = this.verifyChecksums): RawBlock {
    return readRawBlock(this.source, handle, this.checksum, { what, verifyChecksum, limit: this.footer.offset, maxBlockBytes: this.maxBlockBytes })
  }

  /** Read, verify and decompress a block. Data blocks use the compression dictionary. */
  readBlock(handle: BlockHandle, what: string, isDataBlock = false, verifyChecksum = this.verifyChecksums): Uint8Array {
    const raw = this.readRaw(handle, what, verifyChecksum)
    return decompressRawBlock(raw, this.formatVersion, what, isDataBlock && raw.compressionType !== 0 ? (this.dictionary() ?? undefined) : undefined)
  }

  /**
   * Read, verify and decompress a data block for a sequential reader: reading
   * through `reuse.window` and decoding into `reuse.scratch` where the codec
   * allows, so the result is valid only until the next call with them.
   */
  readDataBlock(handle: BlockHandle, reuse: DataBlockReuse = {}): Uint8Array {
    const raw = readRawBlock(this.source, handle, this.checksum, {
      what: 'data block',
      verifyChecksum: this.verifyChecksums,
      limit: this.footer.offset,
      maxBlockBytes: this.maxBlockBytes,
      window: reuse.window,
    })
    if (reuse.tally) tallyBlock(reuse.tally, handle, raw.compressionType)
    const data =
      raw.compressionType === 0 ? raw.payload : decompressRawBlock(raw, this.formatVersion, 'data block', this.dictionary() ?? undefined, reuse.scratch)
    reuse.observe?.(raw, data)
    return data
  }

  /** The compression dictionary (raw bytes), or null. Read once, then cached. */
  dictionary(): Uint8Array | null {
    if (this.dictionaryCache === undefined) {
      const h = this.metaBlock(COMPRESSION_DICT_BLOCK)
      this.dictionaryCache = h && h.size > 0 ? this.readBlock(h, 'compression dictionary block').slice() : null
    }
    return this.dictionaryCache
  }

  /** Range tombstones as stored; the global seqno of an ingested file is applied unless asked not to. */
  rangeTombstones(opts: { applyGlobalSeqno?: boolean } = {}): RangeTombstone[] {
    const h = this.metaBlock(RANGE_DEL_BLOCK)
    if (!h) return []
    const tombstones = decodeRangeDeletions(this.readBlock(h, 'range deletion block'), h.offset)
    if (this.globalSeqno === DISABLED_GLOBAL_SEQNO || opts.applyGlobalSeqno === false) return tombstones
    return tombstones.map((t) => ({ ...t, seq: this.globalSeqno }))
  }

  /** Top-level index iterator. */
  topIndex(): IndexBlockIter {
    const block = this.topIndexBlock ?? this.readBlock(this.indexHandle, 'index block')
    return new IndexBlockIter(block, this.indexHandle.offset, this.indexEncoding, 'index block')
  }

  /** Iterator over an index partition. */
  indexPartition(handle: BlockHandle): IndexBlockIter {
    const block = this.readBlock(handle, 'index partition')
    return new IndexBlockIter(block, handle.offset, this.indexEncoding, 'index partition')
  }

  get isPartitionedIndex(): boolean {
    return this.indexType === IndexType.TwoLevelIndexSearch
  }

  /** Every data block, in index order. */
  *dataBlocks(): Generator<DataBlockRef> {
    const top = this.topIndex()
    for (top.seekToFirst(); top.valid; top.next()) {
      if (!this.isPartitionedIndex) {
        yield { handle: top.handle, indexKey: top.key.slice(), firstKey: top.firstKey?.slice() ?? null, partition: null }
        continue
      }
      const partition = top.handle
      const it = this.indexPartition(partition)
      for (it.seekToFirst(); it.valid; it.next()) {
        yield { handle: it.handle, indexKey: it.key.slice(), firstKey: it.firstKey?.slice() ?? null, partition }
      }
    }
  }

  /** Every data block's handle, in index order: dataBlocks() without the copies of its keys. */
  *dataHandles(): Generator<BlockHandle> {
    const top = this.topIndex()
    for (top.seekToFirst(); top.valid; top.next()) {
      if (!this.isPartitionedIndex) {
        yield top.handle
        continue
      }
      const it = this.indexPartition(top.handle)
      for (it.seekToFirst(); it.valid; it.next()) yield it.handle
    }
  }

  /**
   * The data blocks that may hold user keys >= `userKey`, in index order: from
   * the first block whose index key is not below it (a seek through the index).
   */
  dataBlocksFrom(key: Uint8Array | string): Generator<DataBlockRef> {
    const userKey = userKeyBytes(key, 'dataBlocksFrom: the key')
    const user = this.seekComparator()
    const target = this.seekKey(userKey)
    return this.dataBlocksAtOrAfter(this.indexEncoding.keyIsUserKey ? (a) => user(a, userKey) : (a) => this.compareInternal(a, target))
  }

  /**
   * The comparator to seek with: only one known to be the file's, since seeking under another
   * returns wrong entries without a sign of it.
   */
  seekComparator(): UserComparator {
    if (this.comparatorKnown) return this.userComparator!
    if (this.comparatorSource === 'assumed') {
      throw new UsageError('cannot seek: the table records no comparator (a LevelDB table); state it with --comparator NAME')
    }
    throw new UsageError(`cannot seek without the file's comparator "${this.comparatorName}", which sstkit does not implement`)
  }

  /** The stored key a seek for `userKey` looks for: the first entry of that user key. */
  seekKey(userKey: Uint8Array): Uint8Array {
    return this.keyFormat === 'raw' ? userKey : seekTarget(userKey)
  }

  /**
   * The data blocks from the first whose index key is not below a target (a seek through the
   * index): `cmp` compares an index key, in the index's key form, with that target.
   */
  *dataBlocksAtOrAfter(cmp: (indexKey: Uint8Array) => number): Generator<DataBlockRef> {
    const top = this.topIndex()
    const ikCompare = (a: Uint8Array, _b: Uint8Array) => cmp(a)
    top.seek(new Uint8Array(0), ikCompare)
    let firstPartition = true
    for (; top.valid; top.next()) {
      if (!this.isPartitionedIndex) {
        yield { handle: top.handle, indexKey: top.key.slice(), firstKey: top.firstKey?.slice() ?? null, partition: null }
        continue
      }
      const it = this.indexPartition(top.handle)
      if (firstPartition) {
        it.seek(new Uint8Array(0), ikCompare)
        firstPartition = false
      } else it.seekToFirst()
      for (; it.valid; it.next()) {
        yield { handle: it.handle, indexKey: it.key.slice(), firstKey: it.firstKey?.slice() ?? null, partition: top.handle }
      }
    }
  }

  /**
   * Iterator over point entries (range tombstones excluded: see rangeTombstones()).
   * Keys carry the global seqno of an ingested file, as RocksDB reads them, unless
   * `applyGlobalSeqno: false` asks for the keys exactly as stored.
   */
  iterator(opts: { applyGlobalSeqno?: boolean } = {}): TableIterator {
    return new TableIterator(this, opts.applyGlobalSeqno ?? true)
  }

  close(): void {
    this.source.close()
  }
}

/**
 * Fail with a NotSupportedError (closing `table`) where its data blocks hold plain user keys (a table
 * LevelDB's TableBuilder wrote outside a database): writing a table of its entries (`what`: rewrite,
 * recompress's evaluation) needs each key's sequence number and type, which such keys do not have.
 */
export function requireInternalKeys(table: Table, what: string): void {
  if (table.keyFormat !== 'raw') return
  table.close()
  throw new NotSupportedError(
    `the data blocks hold plain user keys, not internal keys (a table LevelDB's TableBuilder wrote outside a database): ${what} needs a table of a database`,
  )
}

/** Open an SST from a path or a ByteSource. */
export function openTable(file: string | ByteSource, options: OpenTableOptions = {}): Table {
  const source = typeof file === 'string' ? new FileByteSource(file, { readahead: options.readahead }) : file
  try {
    return Table.open(source, options)
  } catch (e) {
    if (typeof file === 'string') source.close()
    throw e
  }
}

export function verifyFooterChecksum(footer: Footer, footerBytes: Uint8Array, ctx: ChecksumContext): void {
  const copy = footerBytes.slice()
  copy.fill(0, FOOTER_CHECKSUM_OFFSET, FOOTER_CHECKSUM_OFFSET + 4)
  const computed = computeStoredChecksum(ctx, copy, footer.offset)
  if (computed !== footer.footerChecksum) {
    throw new CorruptionError(
      `footer checksum mismatch: stored 0x${hex32(footer.footerChecksum ?? 0)}, computed 0x${hex32(computed)}`,
      footer.offset + FOOTER_CHECKSUM_OFFSET,
    )
  }
}

/**
 * RocksDB rewrites the global seqno of an ingested file in place without
 * updating the properties checksum, so it re-checks with that value zeroed.
 */
export function propertiesChecksumWithSeqnoZeroed(raw: RawBlock, ctx: ChecksumContext): boolean {
  if (raw.compressionType !== 0) return false
  let props: TableProperties
  try {
    props = decodeProperties(raw.payload, raw.handle.offset)
  } catch {
    return false
  }
  const entry = props.raw.find((p) => p.name === GLOBAL_SEQNO_PROPERTY)
  if (entry?.value.length !== 8) return false
  const bytes = new Uint8Array(raw.payload.length + 1)
  bytes.set(raw.payload)
  bytes[raw.payload.length] = raw.compressionType
  bytes.fill(0, entry.valueOffset - raw.handle.offset, entry.valueOffset - raw.handle.offset + 8)
  return computeStoredChecksum(ctx, bytes, raw.handle.offset) === raw.storedChecksum
}

/** How many keys of the first data block decide the key format. */
const KEY_FORMAT_SAMPLE = 16

/**
 * Whether the first data block's first keys are raw user keys: one is shorter than an internal
 * key's trailer, or its trailer's type byte is neither of LevelDB's (0 deletion, 1 value).
 * A table damaged before this point is taken as internal (reading it then reports the damage);
 * any other failure is the open's.
 */
function looksRaw(table: Table): boolean {
  try {
    const first = table.dataBlocks().next()
    if (first.done) return false
    const it = new BlockIter(table.readBlock(first.value.handle, 'data block', true), first.value.handle.offset, 'data block')
    let n = 0
    for (it.seekToFirst(); it.valid && n < KEY_FORMAT_SAMPLE; it.next(), n++) {
      const k = it.key
      if (k.length < INTERNAL_KEY_TRAILER_BYTES || k[k.length - INTERNAL_KEY_TRAILER_BYTES] > 1) return true
    }
    return false
  } catch (e) {
    const code = errorCode(e)
    if (code === 'corruption' || code === 'not-supported') return false
    throw e
  }
}

/** As RocksDB `GetGlobalSequenceNumber` with an unknown largest seqno (as sst_dump opens files). */
function computeGlobalSeqno(props: TableProperties): number {
  const versionBytes = props.user.get(EXTERNAL_SST_VERSION_PROPERTY)
  const seqnoBytes = props.user.get(GLOBAL_SEQNO_PROPERTY)
  if (!versionBytes) {
    if (seqnoBytes) throw new CorruptionError('a non-external SST file has a global seqno property')
    return DISABLED_GLOBAL_SEQNO
  }
  if (versionBytes.length < 4) throw new CorruptionError('external SST file version property is malformed')
  const version = readFixed32(versionBytes, 0)
  if (version !== 2) {
    if (version !== 1) throw new CorruptionError(`an external SST file has corrupted version ${version}`)
    if (seqnoBytes) throw new CorruptionError('an external SST file with version 1 has a global seqno property')
    return DISABLED_GLOBAL_SEQNO
  }
  if (!seqnoBytes) return 0
  if (seqnoBytes.length !== 8) throw new CorruptionError('global seqno property is not 8 bytes')
  const v = new Cursor(seqnoBytes).fixed64()
  if (v > (1n << 56n) - 1n) throw new CorruptionError(`global seqno ${v} is greater than kMaxSequenceNumber`)
  return Number(v)
}

/**
 * Iterates point entries across data blocks in key order, with seek through the
 * index. `key` is the internal key (a view valid until the iterator moves).
 */
export class TableIterator {
  valid = false
  /** Internal key as stored, with the global seqno applied when the file has one. */
  key: Uint8Array = new Uint8Array(0)
  value: Uint8Array = new Uint8Array(0)
  /** Handle of the data block holding the current entry. */
  blockHandle: BlockHandle | null = null

  private blocks: Iterator<DataBlockRef> | null = null
  private block: BlockIter | null = null
  private readonly globalSeqno: GlobalSeqnoPatch | null

  constructor(
    readonly table: Table,
    applyGlobalSeqno = true,
  ) {
    this.globalSeqno = table.globalSeqno >= 0 && applyGlobalSeqno ? new GlobalSeqnoPatch(table.globalSeqno) : null
  }

  seekToFirst(): void {
    this.blocks = this.table.dataBlocks()
    this.block = null
    this.advanceBlock()
  }

  /** Position at the first entry whose user key is >= `userKey` (bytes, or a string as its UTF-8 bytes). */
  seek(key: Uint8Array | string): void {
    const userKey = userKeyBytes(key, 'seek: the key')
    this.blocks = this.table.dataBlocksFrom(userKey)
    this.block = null
    this.advanceBlock(this.table.seekKey(userKey))
  }

  next(): boolean {
    if (!this.block) return (this.valid = false)
    if (this.block.next()) {
      this.setCurrent()
      return true
    }
    this.advanceBlock()
    return this.valid
  }

  private advanceBlock(seekTarget?: Uint8Array): void {
    const t = this.table
    for (;;) {
      const r = this.blocks!.next()
      if (r.done) {
        this.block = null
        this.valid = false
        return
      }
      const handle = r.value.handle
      const data = t.readBlock(handle, 'data block', true)
      this.blockHandle = handle
      this.block = new BlockIter(data, handle.offset, 'data block', t.dataRestartInterval)
      if (seekTarget) {
        this.block.seek(seekTarget, (a, b) => t.compareInternal(this.withGlobalSeq(a), b))
        seekTarget = undefined
      } else this.block.seekToFirst()
      if (this.block.valid) {
        this.setCurrent()
        return
      }
    }
  }

  private withGlobalSeq(k: Uint8Array): Uint8Array {
    return this.globalSeqno ? this.globalSeqno.apply(k) : k
  }

  private setCurrent(): void {
    const b = this.block!
    this.key = this.globalSeqno ? this.globalSeqno.apply(b.key) : b.key
    this.value = b.value
    this.valid = true
  }
}
