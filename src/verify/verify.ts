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
import { errorCode, NotSupportedError, SstkitError } from '../errors.js'
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
  type AcrossState,
  type BlockSummary,
  BlockSummarizer,
  canUseVerifyWorkers,
  type CleanRun,
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
  /** A format or codec sstkit does not read (a NotSupportedError), not damage: absent otherwise. */
  readonly unsupported?: true
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
  /** false: no block checker (block-checker.ts), every block in JavaScript (the reference the checkers are tested against). */
  wasm?: boolean
  /**
   * false: no native kernel (native/verify-kernel.c) on this thread, the portable checker alone
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

/**
 * Check `table`: its footer, its meta blocks (index, filters and their partitions), every data
 * block and entry, the checks across blocks, the entry count. Problems are collected, not thrown.
 */
export function verifyTable(table: Table, options: VerifyOptions = {}): VerifyResult {
  const findings = new Findings(table)
  if (table.footer.checksumType > ChecksumType.XXH3) {
    // No block's checksum can be computed: say so once rather than once per block.
    findings.add('footer', table.footer.offset, `unknown checksum type ${table.footer.checksumType} in the footer: no block can be checked`)
    return findings.result({ blocksChecked: 1, dataBlocks: 0, entries: 0, rangeDeletions: 0 })
  }
  // Read before the block checks take it (and reported where a serial run reports it): one read, one report.
  const dictionary = readDictionary(table)
  // Workers start first, so that their start overlaps the meta blocks' checks and this thread's own set-up.
  const checks = startBlockChecks(table, findings.policy, options)
  try {
    checkFooter(table, findings)
    const metaBlocks = checkMetaBlocks(table, findings)
    if (dictionary.problem) findings.add('compression dictionary', dictionary.problem.offset, dictionary.problem.message)
    const data = new DataBlockWalk(table, findings, checks, dictionary.bytes)
    data.run()
    const rangeDeletions = countRangeDeletions(table, findings)
    checkEntryCount(table, findings, data.entries, rangeDeletions)
    // The footer counts as a block, as layout counts it.
    return findings.result({ blocksChecked: 1 + metaBlocks + data.blocks, dataBlocks: data.blocks, entries: data.entries, rangeDeletions })
  } finally {
    checks.parallel?.close()
  }
}

/** What verifyTable found so far: problems (at most MAX_PROBLEMS), notes, and how key order counts (orderPolicy). */
class Findings {
  readonly problems: VerifyProblem[] = []
  readonly notes: VerifyProblem[] = []
  readonly policy: OrderPolicy
  private violations = 0

  constructor(private readonly table: Table) {
    this.policy = orderPolicy(table)
  }

  /** The damaged index block (or partition) data block handles were read from, if any: a data block's problem may be its handle's. */
  damagedIndex: { kind: string; offset: number } | null = null

  add(block: string, offset: number | null, message: string, unsupported = false): void {
    if (block === 'data block' && this.damagedIndex)
      message += ` (its handle was read from the damaged ${this.damagedIndex.kind} block at offset ${this.damagedIndex.offset})`
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(unsupported ? { block, offset, message, unsupported } : { block, offset, message })
  }

  /** An error while reading the structure at `offset`: a problem there (or where the error says); one sstkit cannot read, so marked. */
  addError(block: string, offset: number | null, e: unknown, prefix = ''): void {
    const p = problemOf(e, offset)
    this.add(block, p.offset, prefix + p.message, e instanceof NotSupportedError)
  }

  /** A key or separator out of order: a problem, or under an assumed comparator one summarising note. */
  outOfOrder(block: string, offset: number, message: string): void {
    if (this.policy.mode === 'problem') this.add(block, offset, message)
    else if (this.violations++ === 0) this.notes.push({ block, offset, message: 'not in bytewise order: the table may use a custom comparator' })
  }

  result(counts: { blocksChecked: number; dataBlocks: number; entries: number; rangeDeletions: number }): VerifyResult {
    const notes = this.notes
    if (this.violations > 1) notes[0] = { ...notes[0], message: `${notes[0].message} (${this.violations} places, the first here)` }
    const table = this.table
    return {
      ok: this.problems.length === 0,
      ...counts,
      problems: this.problems,
      comparator: table.comparatorName,
      comparatorSource: table.comparatorSource,
      keyFormat: table.keyFormat,
      orderChecked: this.policy.mode === 'problem',
      ...(this.policy.reason ? { orderSkippedReason: this.policy.reason } : {}),
      notes,
    }
  }
}

/** Footer: openTable parsed and checked it (magic, handles); from format_version 6 it has a checksum too. */
function checkFooter(table: Table, findings: Findings): void {
  if (table.formatVersion < 6) return
  try {
    const tail = table.source.read(table.footer.offset, FOOTER_BYTES)
    verifyFooterChecksum(table.footer, tail, table.checksum)
  } catch (e) {
    findings.addError('footer', table.footer.offset, e)
  }
}

/** Meta blocks, index (and partitions), filters (and partitions), as layout walks them; returns how many. */
function checkMetaBlocks(table: Table, findings: Findings): number {
  let checked = 0
  for (const b of tableLayout(table, { dataBlocks: false }).blocks) {
    if (b.kind === 'footer' || b.kind === 'gap') continue
    checked++
    if (!b.problem) continue
    // A block whose handle points outside the file is reported where the handle is stored (its message gives the handle).
    const at = inFile(table, b) ? b.offset : handleHolder(table, b.kind)
    if ((b.kind === 'index' || b.kind === 'index partition') && !b.unsupported) findings.damagedIndex ??= { kind: b.kind, offset: b.offset }
    findings.add(blockLabel(b.kind, b.name), at, at === null ? b.problem : withoutOffset(b.problem, at), b.unsupported === true)
  }
  return checked
}

/** The range deletions (their block reported once: the layout walk may have found it bad already). */
function countRangeDeletions(table: Table, findings: Findings): number {
  try {
    return table.rangeTombstones().length
  } catch (e) {
    const at = metaBlockAt(table, RANGE_DEL_BLOCK)
    if (!findings.problems.some((p) => p.offset === at)) findings.addError('range deletion block', at, e)
    return 0
  }
}

/** The entries found against rocksdb.num.entries (only in an otherwise clean table: damage explains a difference). */
function checkEntryCount(table: Table, findings: Findings, entries: number, rangeDeletions: number): void {
  const expected = propertyNumber(table.properties, Property.NumEntries)
  if (expected !== undefined && findings.problems.length === 0 && entries + rangeDeletions !== expected) {
    findings.add(
      'table',
      null,
      `entry count mismatch: found ${entries} point entries + ${rangeDeletions} range deletions = ${entries + rangeDeletions}, properties say rocksdb.num.entries = ${expected}`,
    )
  }
}

/**
 * How data blocks' context-free checks run: by chunks (`parallel`: on workers too, or on this
 * thread through the native kernel), or block by block through `fast` (the portable checker),
 * or neither (JavaScript alone).
 */
interface BlockChecks {
  readonly parallel: ParallelBlockChecks | null
  readonly fast: BlockSummarizer | null
}

function startBlockChecks(table: Table, policy: OrderPolicy, options: VerifyOptions): BlockChecks {
  // Whole blocks are order-checked in WebAssembly where internal keys are under the bytewise comparator
  // known to be the file's; any block it does not pass is checked again in JavaScript, which words the problem.
  const bytewise = policy.mode === 'problem' && table.keyFormat === 'internal' && table.comparatorName === 'leveldb.BytewiseComparator'
  if (options.wasm === false || !bytewise || !BlockSummarizer.available) return { parallel: null, fast: null }
  const native = options.native !== false
  const parallel = startParallel(table, () => BlockSummarizer.create(table, native) as BlockSummarizer, options)
  return { parallel, fast: parallel ? parallel.summarizer : BlockSummarizer.create(table, native) }
}

/**
 * verifyTable's walk of the data blocks in index order: each block's own checks (taken from a
 * checker's summary where it passed, else done here in JavaScript, which words the problem) and
 * the checks across blocks (key order from block to block, index separators against keys).
 */
class DataBlockWalk {
  blocks = 0
  /** Point entries decoded. */
  entries = 0
  /** The last key so far: a view of the reused prevKeyBuf (not a fresh copy per entry). */
  private prevKey: Uint8Array | null = null
  private prevKeyBuf = new Uint8Array(64)
  private prevIndexKey: Uint8Array | null = null
  private readonly compare: ((a: Uint8Array, b: Uint8Array) => number) | null
  private readonly internal: boolean
  private readonly window: ReadWindow
  private readonly scratch = newScratch()
  /** What parallel.ts reads when a chunk starts (acrossState). */
  private readonly state: AcrossState = { prevKey: null, prevIndexKey: null }

  constructor(
    private readonly table: Table,
    private readonly findings: Findings,
    private readonly checks: BlockChecks,
    private readonly dict: Uint8Array | undefined,
  ) {
    this.compare = findings.policy.mode === 'off' ? null : table.compareInternal
    this.internal = table.keyFormat === 'internal'
    this.window = new ReadWindow(table.source)
  }

  run(): void {
    const refs = this.refs()
    for (;;) {
      let r: IteratorResult<VerifyBlockRef>
      try {
        r = refs.next()
      } catch (e) {
        this.findings.addError('index block', this.table.indexHandle.offset, e, 'cannot continue through the index: ')
        return
      }
      if (r.done) return
      if (r.value.run) this.takeRun(r.value.run, r.value.indexKey)
      else this.checkBlock(r.value)
    }
  }

  /** The data blocks in index order (an index that cannot be read is reported, and has none). */
  private refs(): Iterator<VerifyBlockRef> {
    const table = this.table
    let index: Iterator<DataBlockRef>
    try {
      index = table.dataBlocks()
    } catch (e) {
      this.findings.addError('index block', table.indexHandle.offset, e)
      index = [][Symbol.iterator]()
    }
    const parallel = this.checks.parallel
    if (!parallel) return index
    // A one-block index without first keys is walked by the native kernel where it loads (parallel.ts).
    const binaryIndex = !table.isPartitionedIndex && !table.indexEncoding.hasFirstKey ? () => table.topIndex() : undefined
    return parallel.wrap(index, this.acrossState, binaryIndex)
  }

  /** Defined once, not per chunk: the bundle names every closure it creates (esbuild keepNames). */
  private readonly acrossState = (): AcrossState => {
    this.state.prevKey = this.prevKey
    this.state.prevIndexKey = this.prevIndexKey
    return this.state
  }

  /** A chunk whose every check, within its blocks and across them, passed (parallel.ts). */
  private takeRun(run: CleanRun, indexKey: Uint8Array): void {
    this.blocks += run.blocks
    this.entries += run.entries
    if (run.lastKey) this.remember(run.lastKey)
    this.prevIndexKey = indexKey
  }

  /** One data block: its own checks (a checker's summary, or its entries here), then its separator. */
  private checkBlock(ref: VerifyBlockRef): void {
    this.blocks++
    const where = ref.handle.offset
    // A failed read of the chunk from here on (its blocks are read again one by one below).
    if (ref.readError) this.findings.addError('data block', where, ref.readError.error)
    const parallel = this.checks.parallel
    // A block a worker passed, when its first key follows the previous block.
    let summary = parallel ? this.follows(parallel.summary()) : null
    let contents: Uint8Array = EMPTY
    try {
      if (!parallel) summary = this.serialSummary(ref)
      if (!summary) contents = this.readBlock(ref)
    } catch (e) {
      // An index handle to nowhere is the index's problem, at its file offset, not at the offset the handle claims.
      if (inFile(this.table, ref.handle)) this.findings.addError('data block', where, e)
      else this.findings.addError('index block', ref.partition?.offset ?? this.table.indexHandle.offset, e)
      this.prevKey = null
      return
    }
    try {
      if (summary) this.takeSummary(summary, where)
      else this.walkEntries(contents, where)
      if (this.compare && this.prevKey && indexCompare(this.table, ref.indexKey, this.prevKey) < 0) {
        this.findings.outOfOrder('index block', where, 'index separator sorts before the last key of its data block')
      }
      this.prevIndexKey = ref.indexKey
    } catch (e) {
      this.findings.addError('data block', where, e)
      this.prevKey = null
    }
  }

  /**
   * Serially, the block checked as a worker checks one, in place in the window: its summary where
   * the checker passes it and its first key follows the previous block, else null (check it here).
   */
  private serialSummary(ref: VerifyBlockRef): BlockSummary | null {
    const fast = this.checks.fast
    if (!fast || ref.handle.size > this.table.maxBlockBytes || !inFile(this.table, ref.handle)) return null
    return this.follows(fast.summarizeIn(this.window, ref.handle.offset, ref.handle.size))
  }

  /** `summary`, when its first key follows the previous block's last key (else null: check the block in JavaScript). */
  private follows(summary: BlockSummary | null): BlockSummary | null {
    const { compare, prevKey } = this
    return summary && summary.entries > 0 && compare && prevKey && compare(prevKey, summary.firstKey) >= 0 ? null : summary
  }

  /** The block's contents: read through a private window, checksummed, decompressed into a reused buffer (checked before the next read). */
  private readBlock(ref: VerifyBlockRef): Uint8Array {
    const table = this.table
    const raw = readRawBlock(table.source, ref.handle, table.checksum, {
      what: 'data block',
      verifyChecksum: false,
      limit: table.footer.offset,
      maxBlockBytes: table.maxBlockBytes,
      window: this.window,
    })
    const computed = blockChecksumOf(table, raw)
    if (computed !== raw.storedChecksum) {
      this.findings.add('data block', ref.handle.offset, `data block checksum mismatch: stored 0x${hex32(raw.storedChecksum)}, computed 0x${hex32(computed)}`)
    }
    return decompressRawBlock(raw, table.formatVersion, 'data block', raw.compressionType !== 0 ? this.dict : undefined, this.scratch)
  }

  /** A block a checker passed: its entries counted, its first key against the previous separator, its last key kept. */
  private takeSummary(summary: BlockSummary, where: number): void {
    if (summary.entries <= 0) return
    this.entries += summary.entries
    this.firstKeyCheck(summary.firstKey, where)
    this.remember(summary.lastKey)
  }

  /** Every entry of a block, in JavaScript: each key's form and order. */
  private walkEntries(contents: Uint8Array, where: number): void {
    const { compare, internal, findings } = this
    const it = new BlockIter(contents, where, 'data block', this.table.dataRestartInterval)
    let firstInBlock = true
    for (it.seekToFirst(); it.valid; it.next()) {
      this.entries++
      const key = it.key
      if (internal && key.length < 8) {
        findings.add('data block', where, `entry ${this.entries} has a ${key.length}-byte key, shorter than the 8-byte internal key trailer`)
        continue
      }
      if (compare && this.prevKey && compare(this.prevKey, key) >= 0) {
        findings.outOfOrder('data block', where, `keys out of order: entry ${this.entries} does not sort after the previous key`)
      }
      if (firstInBlock) this.firstKeyCheck(key, where)
      firstInBlock = false
      this.remember(key)
    }
  }

  /** A block's first key against the previous index separator. */
  private firstKeyCheck(key: Uint8Array, where: number): void {
    if (this.compare && this.prevIndexKey && indexCompare(this.table, this.prevIndexKey, key) >= 0) {
      this.findings.outOfOrder('data block', where, 'first key of the block does not sort after the previous index separator')
    }
  }

  /** prevKey = a copy of `key`, in the reused buffer. */
  private remember(key: Uint8Array): void {
    let prevKey = this.prevKey
    if (prevKey === null || prevKey.length !== key.length) {
      if (this.prevKeyBuf.length < key.length) this.prevKeyBuf = new Uint8Array(key.length * 2)
      prevKey = this.prevKey = this.prevKeyBuf.subarray(0, key.length)
    }
    prevKey.set(key)
  }
}

/** Whether a block (payload and trailer) lies in the file before the footer. */
function inFile(table: Table, h: { offset: number; size: number }): boolean {
  return h.offset + h.size + BLOCK_TRAILER_BYTES <= table.footer.offset
}

/**
 * Where a problem of the meta block `name` is reported: at the block, or, where its handle points
 * outside the file, at the metaindex that holds the handle (as the layout walk reports it).
 */
function metaBlockAt(table: Table, name: string): number | null {
  const h = table.metaBlock(name)
  if (!h) return null
  return inFile(table, h) ? h.offset : handleHolder(table, 'meta block')
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

/** VerifyOptions.parallelThreshold's default (bin/run.js starts a worker early from it, through the build). */
export const WORKERS_FROM_BYTES = 64 * 1024 * 1024

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
    return { bytes: undefined, problem: problemOf(e, metaBlockAt(table, COMPRESSION_DICT_BLOCK)) }
  }
}

/** Compare an index separator with a stored key, in the index's key form. */
function indexCompare(table: Table, indexKey: Uint8Array, key: Uint8Array): number {
  const user = table.userComparator ?? bytewiseComparator
  if (table.indexEncoding.keyIsUserKey) return table.keyFormat === 'raw' ? user(indexKey, key) : compareUserToInternal(user, indexKey, key)
  return table.compareInternal(indexKey, key)
}
