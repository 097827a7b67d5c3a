/**
 * Full verification of a table: every block's checksum (data, index and
 * partitions, filter and partitions, meta blocks, footer for format_version >= 6),
 * every block decompressed, every entry decoded, keys in strictly increasing
 * internal-key order, index separators consistent with their blocks, and the
 * entry count equal to `rocksdb.num.entries`.
 *
 * Key order is checked only under a comparator known to be the file's (see
 * orderPolicy): a file under a comparator sstkit does not implement is never
 * called corrupt for its order, and a LevelDB table (which records none) gets
 * a note, not a problem, when its keys are not in bytewise order.
 *
 * Problems are collected, not thrown: one bad block does not hide the rest, and
 * an unexpected failure anywhere becomes a problem of that file, never a throw.
 * Each data block is read once, checksummed once and decompressed once.
 */
import { BlockIter } from '../format/block.js'
import { ChecksumType } from '../format/checksum-type.js'
import { errorCode, SstkitError } from '../errors.js'
import { decodeFooter, FOOTER_BYTES } from '../format/footer.js'
import { bytewiseComparator, compareUserToInternal } from '../format/internal-key.js'
import { COMPRESSION_DICT_BLOCK, RANGE_DEL_BLOCK } from '../format/metaindex.js'
import { Property, propertyNumber } from '../format/properties.js'
import { newScratch } from '../codec/output.js'
import { availableParallelism } from 'node:os'
import { FileByteSource, ReadWindow, type ByteSource } from '../io/byte-source.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { blockChecksumOf, decompressRawBlock, hex32, readRawBlock } from '../table/block-reader.js'
import { nativeVerifyAbilities } from './native.js'
import { messageOf, tableLayout } from '../table/layout.js'
import { type ComparatorSource, type DataBlockRef, type KeyFormat, type OpenTableOptions, Table, verifyFooterChecksum } from '../table/reader.js'
import {
  type BlockSummary,
  BlockSummarizer,
  canUseVerifyWorkers,
  ParallelBlockChecks,
  VERIFY_CHUNK_BYTES,
  type VerifyBlockRef,
  type VerifyStats,
} from './parallel.js'

export type { VerifyStats } from './parallel.js'

export interface VerifyProblem {
  /** Block kind and name ("data block", "properties", "footer", "table"). */
  readonly block: string
  readonly offset: number | null
  readonly message: string
}

export interface VerifyResult {
  readonly ok: boolean
  readonly blocksChecked: number
  readonly dataBlocks: number
  /** Point entries decoded. */
  readonly entries: number
  readonly rangeDeletions: number
  readonly problems: VerifyProblem[]
  /** The comparator keys were ordered by, and where its name comes from. */
  readonly comparator: string
  readonly comparatorSource: ComparatorSource
  readonly keyFormat: KeyFormat
  /** Whether an out-of-order key counts as a problem (the comparator is known to be the file's). */
  readonly orderChecked: boolean
  /** Why order was not checked, or only checked as a note. */
  readonly orderSkippedReason?: string
  /** What is worth knowing but not damage: order violations under an assumed comparator. */
  readonly notes: VerifyProblem[]
}

/** Stop collecting after this many problems: a badly damaged file should not flood the output. */
export const MAX_PROBLEMS = 1000

export interface VerifyOptions {
  /** false: check every block in JavaScript (the reference the WebAssembly path is tested against). */
  wasm?: boolean
  /**
   * false: no native kernel (native/verify-kernel.c) on this thread, the WebAssembly path alone
   * (tests hold the two to the same findings); workers use the kernel where it loads.
   */
  native?: boolean
  /** Threads to use (default: all cores). 1 = serial. The findings are the same for any value. */
  jobs?: number
  /** Bytes of data blocks per parallel chunk (default 512 KiB). */
  chunkBytes?: number
  /**
   * Check on workers too only when the data blocks total at least this many bytes (default
   * 64 MiB: the native kernel checks ~500 MB/s on one thread and a worker takes ~0.1 s to start;
   * measured, a 60 MB file took as long with one job as with two, a 120 MB one 0.31 s against 0.26 s).
   */
  parallelThreshold?: number
  /** Wait for the workers to start before checking (tests: so that workers take chunks of a small file). */
  awaitWorkers?: boolean
  /** Filled in with how the work was split (tests and benchmarks). */
  stats?: VerifyStats
}

/** verifyFile's options: how to open the table (comparator, key format), and the source to read (tests inject failing ones). */
export interface VerifyFileOptions extends VerifyOptions, Pick<OpenTableOptions, 'comparator' | 'keyFormat'> {
  openSource?: (file: string) => ByteSource
}

/**
 * What verifying one file found: clean, findings (a damaged table, its
 * problems listed), or not an SST that can be opened at all (no readable
 * footer, an unsupported kind or feature, a missing file).
 */
export type VerifyOutcome =
  | ({ readonly kind: 'ok' | 'findings'; readonly file: string } & VerifyResult)
  | { readonly kind: 'unopenable'; readonly file: string; readonly error: unknown }

/**
 * Verify the table at `file`; never throws for what the file holds, nor for a failure of sstkit
 * while reading it (that becomes a problem of this file).
 */
export function verifyFile(file: string, options: VerifyFileOptions = {}): VerifyOutcome {
  let source: ByteSource
  try {
    source = options.openSource ? options.openSource(file) : new FileByteSource(file)
  } catch (error) {
    return { kind: 'unopenable', file, error }
  }
  try {
    let table: Table
    try {
      // Open without checksum verification so that a damaged meta block is
      // reported as a finding alongside everything else, not as a failure to open.
      table = Table.open(source, { verifyChecksums: false, comparator: options.comparator, keyFormat: options.keyFormat })
    } catch (error) {
      // A readable footer makes this an SST whose insides are damaged (or whose reading failed): a finding.
      const code = errorCode(error)
      if ((code === 'corruption' || code === 'internal') && footerDecodes(source)) {
        const { offset, message } = problemOf(error, null)
        return { kind: 'findings', file, ...emptyResult(options), problems: [{ block: 'table', offset, message }] }
      }
      return { kind: 'unopenable', file, error }
    }
    let result: VerifyResult
    try {
      result = verifyTable(table, options)
    } catch (error) {
      // verifyTable collects what it finds; an escape is a failure of sstkit itself, reported against this file.
      const { offset, message } = problemOf(error, null)
      result = { ...emptyResult(options), problems: [{ block: 'table', offset, message }] }
    }
    return { kind: result.ok ? 'ok' : 'findings', file, ...result }
  } finally {
    source.close()
  }
}

function emptyResult(options: VerifyFileOptions): VerifyResult {
  return {
    ok: false,
    blocksChecked: 0,
    dataBlocks: 0,
    entries: 0,
    rangeDeletions: 0,
    problems: [],
    comparator: options.comparator ?? '',
    comparatorSource: options.comparator !== undefined ? 'stated' : 'assumed',
    keyFormat: options.keyFormat === 'raw' ? 'raw' : 'internal',
    orderChecked: false,
    orderSkippedReason: 'the table could not be read far enough',
    notes: [],
  }
}

/**
 * A problem's file offset and message from an error met while reading the structure at `at`
 * (null: unknown, then the error's own offset). The message keeps the error's "(at offset N)"
 * only where N says more (a position inside the structure); a failure of sstkit itself says so.
 */
export function problemOf(e: unknown, at: number | null): { offset: number | null; message: string } {
  const message = messageOf(e)
  const own = e instanceof SstkitError && e.offset !== undefined ? e.offset : null
  const offset = at ?? own
  return { offset, message: offset !== null && own === offset ? withoutOffset(message, offset) : message }
}

/**
 * How key order is checked: as problems under a comparator known to be the file's; as notes
 * under the bytewise comparator a LevelDB table (which records none) most likely uses; not at all
 * under a comparator sstkit does not implement.
 */
interface OrderPolicy {
  readonly mode: 'problem' | 'note' | 'off'
  readonly reason?: string
}

function orderPolicy(table: Table): OrderPolicy {
  if (table.comparatorKnown) return { mode: 'problem' }
  if (table.comparatorSource === 'assumed') {
    return { mode: 'note', reason: 'the table records no comparator: keys were compared bytewise, and a violation is a note, not damage' }
  }
  return {
    mode: 'off',
    reason: `the file's comparator "${table.comparatorName}" is not one sstkit implements (state one with --comparator NAME to check order)`,
  }
}

/** Whether the footer decodes (magic, format_version, handles), whatever the rest holds. */
function footerDecodes(source: ByteSource): boolean {
  try {
    const n = Math.min(FOOTER_BYTES, source.size)
    decodeFooter(source.read(source.size - n, n), source.size)
    return true
  } catch {
    return false
  }
}

export function verifyTable(table: Table, options: VerifyOptions = {}): VerifyResult {
  const problems: VerifyProblem[] = []
  const add = (block: string, offset: number | null, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ block, offset, message })
  }
  /** An error while reading the structure at `offset`: a problem there (or where the error says). */
  const addError = (block: string, offset: number | null, e: unknown, prefix = '') => {
    const p = problemOf(e, offset)
    add(block, p.offset, prefix + p.message)
  }
  const policy = orderPolicy(table)
  const notes: VerifyProblem[] = []
  let violations = 0
  /** A key or separator out of order: a problem, or under an assumed comparator one summarising note. */
  const outOfOrder = (block: string, offset: number, message: string) => {
    if (policy.mode === 'problem') add(block, offset, message)
    else if (violations++ === 0) notes.push({ block, offset, message: 'not in bytewise order: the table may use a custom comparator' })
  }
  const finish = (counts: { blocksChecked: number; dataBlocks: number; entries: number; rangeDeletions: number }): VerifyResult => {
    if (violations > 1) notes[0] = { ...notes[0], message: `${notes[0].message} (${violations} places, the first here)` }
    return {
      ok: problems.length === 0,
      ...counts,
      problems,
      comparator: table.comparatorName,
      comparatorSource: table.comparatorSource,
      keyFormat: table.keyFormat,
      orderChecked: policy.mode === 'problem',
      ...(policy.reason ? { orderSkippedReason: policy.reason } : {}),
      notes,
    }
  }
  let blocksChecked = 0

  if (table.footer.checksumType > ChecksumType.XXH3) {
    // No block's checksum can be computed: say so once rather than once per block.
    add('footer', table.footer.offset, `unknown checksum type ${table.footer.checksumType} in the footer: no block can be checked`)
    return finish({ blocksChecked: 1, dataBlocks: 0, entries: 0, rangeDeletions: 0 })
  }

  const internal = table.keyFormat === 'internal'
  // Whole blocks are order-checked in WebAssembly where internal keys are under the bytewise comparator
  // known to be the file's; any block it does not pass is checked again below in JavaScript, which words the problem.
  const wasmApplies = policy.mode === 'problem' && internal && table.comparatorName === 'leveldb.BytewiseComparator'
  // Read before the summarizer takes it (and reported where a serial run reports it): one read, one report.
  const dictionary = readDictionary(table)
  // The context-free checks of one block (checksum, decompression, order within it), as the workers do them.
  const summarizes = options.wasm !== false && wasmApplies && BlockSummarizer.available
  const native = options.native !== false
  // Workers do each block's own checks (parallel.ts); the checks across blocks stay here. They
  // start first, so that their start overlaps the meta blocks' checks and this thread's own set-up.
  const parallel = summarizes ? startParallel(table, () => BlockSummarizer.create(table, native) as BlockSummarizer, options) : null
  const fast = parallel ? parallel.summarizer : summarizes ? BlockSummarizer.create(table, native) : null
  try {
    // The footer counts as a block, as layout counts it: openTable parsed and checked it (magic, handles);
    // from format_version 6 it has a checksum too.
    blocksChecked++
    if (table.formatVersion >= 6) {
      try {
        const tail = table.source.read(table.footer.offset, FOOTER_BYTES)
        verifyFooterChecksum(table.footer, tail, table.checksum)
      } catch (e) {
        addError('footer', table.footer.offset, e)
      }
    }

    // Meta blocks, index (and partitions), filters (and partitions).
    const layout = tableLayout(table, { dataBlocks: false })
    for (const b of layout.blocks) {
      if (b.kind === 'footer' || b.kind === 'gap') continue
      blocksChecked++
      if (!b.problem) continue
      // A block whose handle points outside the file is reported where the handle is stored (its message gives the handle).
      const at = inFile(table, b) ? b.offset : handleHolder(table, b.kind)
      add(blockLabel(b.kind, b.name), at, at === null ? b.problem : withoutOffset(b.problem, at))
    }

    // Data blocks and entries.
    let dataBlocks = 0
    let entries = 0
    let prevKey: Uint8Array | null = null
    // prevKey is a view of this reused buffer (not a fresh copy per entry).
    let prevKeyBuf = new Uint8Array(64)
    let prevIndexKey: Uint8Array | null = null
    /** prevKey = a copy of `key`, in the reused buffer. */
    const remember = (key: Uint8Array) => {
      if (prevKey === null || prevKey.length !== key.length) {
        if (prevKeyBuf.length < key.length) prevKeyBuf = new Uint8Array(key.length * 2)
        prevKey = prevKeyBuf.subarray(0, key.length)
      }
      prevKey.set(key)
    }
    const compare = policy.mode === 'off' ? null : table.compareInternal
    /** A block's summary, when its first key follows the previous block's last key (else null: check the block in JavaScript). */
    const follows = (summary: BlockSummary | null) =>
      summary && summary.entries > 0 && compare && prevKey && compare(prevKey, summary.firstKey) >= 0 ? null : summary
    // Defined once, not per block: the bundle names every closure it creates (esbuild keepNames).
    const firstKeyCheck = (key: Uint8Array, where: number) => {
      if (compare && prevIndexKey && indexCompare(table, prevIndexKey, key) >= 0) {
        outOfOrder('data block', where, 'first key of the block does not sort after the previous index separator')
      }
    }
    if (dictionary.problem) add('compression dictionary', dictionary.problem.offset, dictionary.problem.message)
    const dict = dictionary.bytes
    const window = new ReadWindow(table.source)
    const scratch = newScratch()
    let index: Iterator<DataBlockRef>
    try {
      index = table.dataBlocks()
    } catch (e) {
      addError('index block', table.indexHandle.offset, e)
      index = [][Symbol.iterator]()
    }
    const state = { prevKey: null as Uint8Array | null, prevIndexKey: null as Uint8Array | null }
    // A one-block index without first keys is walked by the native kernel where it loads (parallel.ts).
    const binaryIndex = !table.isPartitionedIndex && !table.indexEncoding.hasFirstKey ? () => table.topIndex() : undefined
    const refs: Iterator<VerifyBlockRef> = parallel
      ? parallel.wrap(
          index,
          () => {
            state.prevKey = prevKey
            state.prevIndexKey = prevIndexKey
            return state
          },
          binaryIndex,
        )
      : index
    for (;;) {
      let r: IteratorResult<VerifyBlockRef>
      try {
        r = refs.next()
      } catch (e) {
        addError('index block', table.indexHandle.offset, e, 'cannot continue through the index: ')
        break
      }
      if (r.done) break
      const ref = r.value
      if (ref.run) {
        // A chunk whose every check, within its blocks and across them, passed (parallel.ts).
        dataBlocks += ref.run.blocks
        blocksChecked += ref.run.blocks
        entries += ref.run.entries
        if (ref.run.lastKey) remember(ref.run.lastKey)
        prevIndexKey = ref.indexKey
        continue
      }
      dataBlocks++
      blocksChecked++
      const where = ref.handle.offset
      // A failed read of the chunk from here on (its blocks are read again one by one below).
      if (ref.readError) addError('data block', where, ref.readError.error)
      // A block a worker passed, when its first key follows the previous block.
      let summary = follows(parallel?.summary() ?? null)
      let contents: Uint8Array = EMPTY
      try {
        // Serially, a block is first checked as a worker checks one, in place in the window; JavaScript below
        // checks what that does not pass, reading the block again from the same window.
        if (fast && !parallel && ref.handle.size <= table.maxBlockBytes && inFile(table, ref.handle)) {
          summary = follows(fast.summarizeIn(window, where, ref.handle.size))
        }
        // Through a private window and into a reused buffer: each block is checked before the next read.
        const raw = summary
          ? null
          : readRawBlock(table.source, ref.handle, table.checksum, {
              what: 'data block',
              verifyChecksum: false,
              limit: table.footer.offset,
              maxBlockBytes: table.maxBlockBytes,
              window,
            })
        if (raw && !summary) {
          const computed = blockChecksumOf(table, raw)
          if (computed !== raw.storedChecksum) {
            add('data block', where, `data block checksum mismatch: stored 0x${hex32(raw.storedChecksum)}, computed 0x${hex32(computed)}`)
          }
          contents = decompressRawBlock(raw, table.formatVersion, 'data block', raw.compressionType !== 0 ? dict : undefined, scratch)
        }
      } catch (e) {
        // An index handle to nowhere is the index's problem, at its file offset, not at the offset the handle claims.
        if (inFile(table, ref.handle)) addError('data block', where, e)
        else addError('index block', ref.partition?.offset ?? table.indexHandle.offset, e)
        prevKey = null
        continue
      }
      try {
        if (summary) {
          if (summary.entries > 0) {
            entries += summary.entries
            firstKeyCheck(summary.firstKey, where)
            remember(summary.lastKey)
          }
        } else {
          const it = new BlockIter(contents, where, 'data block', table.dataRestartInterval)
          let firstInBlock = true
          for (it.seekToFirst(); it.valid; it.next()) {
            entries++
            const key = it.key
            if (internal && key.length < 8) {
              add('data block', where, `entry ${entries} has a ${key.length}-byte key, shorter than the 8-byte internal key trailer`)
              continue
            }
            if (compare && prevKey && compare(prevKey, key) >= 0) {
              outOfOrder('data block', where, `keys out of order: entry ${entries} does not sort after the previous key`)
            }
            if (firstInBlock) firstKeyCheck(key, where)
            firstInBlock = false
            remember(key)
          }
        }
        if (compare && prevKey && indexCompare(table, ref.indexKey, prevKey) < 0) {
          outOfOrder('index block', where, 'index separator sorts before the last key of its data block')
        }
        prevIndexKey = ref.indexKey
      } catch (e) {
        addError('data block', where, e)
        prevKey = null
      }
    }
    let rangeDeletions = 0
    try {
      rangeDeletions = table.rangeTombstones().length
    } catch (e) {
      // Reported once: the layout walk may have found this block bad already.
      const at = table.metaBlock(RANGE_DEL_BLOCK)?.offset ?? null
      if (!problems.some((p) => p.offset === at)) addError('range deletion block', at, e)
    }

    const expected = propertyNumber(table.properties, Property.NumEntries)
    if (expected !== undefined && problems.length === 0 && entries + rangeDeletions !== expected) {
      add(
        'table',
        null,
        `entry count mismatch: found ${entries} point entries + ${rangeDeletions} range deletions = ${entries + rangeDeletions}, properties say rocksdb.num.entries = ${expected}`,
      )
    }
    return finish({ blocksChecked, dataBlocks, entries, rangeDeletions })
  } finally {
    parallel?.close()
  }
}

/** Whether a block (payload and trailer) lies in the file before the footer. */
function inFile(table: Table, h: { offset: number; size: number }): boolean {
  return h.offset + h.size + BLOCK_TRAILER_BYTES <= table.footer.offset
}

/** Where the handle of a block of this kind is stored, when one block holds it: the metaindex, or the index. */
function handleHolder(table: Table, kind: string): number | null {
  if (kind === 'index partition') return table.indexHandle.offset
  if (kind === 'filter partition') return null
  if (kind === 'index') return table.formatVersion >= 6 ? table.footer.metaindexHandle.offset : table.footer.offset
  return table.footer.metaindexHandle.offset
}

/** A message without the "(at offset N)" that repeats the problem's own offset. */
function withoutOffset(message: string, offset: number): string {
  const suffix = ` (at offset ${offset})`
  return message.endsWith(suffix) ? message.slice(0, -suffix.length) : message
}

const EMPTY = new Uint8Array(0)

/** VerifyOptions.parallelThreshold's default. */
const WORKERS_FROM_BYTES = 64 * 1024 * 1024

/**
 * The checks of data blocks by chunks: on workers too for a large table read from a file
 * (jobs > 1), on this thread alone otherwise where the native kernel loads; null: block by block.
 */
function startParallel(table: Table, makeLocal: () => BlockSummarizer, options: VerifyOptions): ParallelBlockChecks | null {
  const jobs = Math.max(1, Math.floor(options.jobs ?? availableParallelism()))
  const dataBytes = Number(table.properties.known.get(Property.DataSize) ?? 0)
  const path = table.source instanceof FileByteSource ? table.source.name : null
  const workers = jobs < 2 || !canUseVerifyWorkers || path === null || dataBytes < (options.parallelThreshold ?? WORKERS_FROM_BYTES) ? 0 : jobs - 1
  // Without workers the chunks still pay where the native kernel checks them (one call per chunk, and
  // per chunk across its blocks and for the index, not one per block); else block by block, in verify.ts.
  if (workers === 0 && (options.native === false || !nativeVerifyAbilities())) return null
  const chunkBytes = Math.max(1, options.chunkBytes ?? VERIFY_CHUNK_BYTES)
  const p = new ParallelBlockChecks(table, makeLocal, path ?? '', workers, chunkBytes, options.stats, options.native !== false)
  if (options.awaitWorkers) p.awaitWorkers()
  return p
}

function blockLabel(kind: string, name: string): string {
  return name ? `${kind} (${name})` : kind
}

/** The table's compression dictionary, or the problem reading it. */
function readDictionary(table: Table): { bytes: Uint8Array | undefined; problem?: { offset: number | null; message: string } } {
  try {
    return { bytes: table.dictionary() ?? undefined }
  } catch (e) {
    return { bytes: undefined, problem: problemOf(e, table.metaBlock(COMPRESSION_DICT_BLOCK)?.offset ?? null) }
  }
}

/** Compare an index separator with a stored key, in the index's key form. */
function indexCompare(table: Table, indexKey: Uint8Array, key: Uint8Array): number {
  const user = table.userComparator ?? bytewiseComparator
  if (table.indexEncoding.keyIsUserKey) return table.keyFormat === 'raw' ? user(indexKey, key) : compareUserToInternal(user, indexKey, key)
  return table.compareInternal(indexKey, key)
}
