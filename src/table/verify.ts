/**
 * Full verification of a table: every block's checksum (data, index and
 * partitions, filter and partitions, meta blocks, footer for format_version >= 6),
 * every block decompressed, every entry decoded, keys in strictly increasing
 * internal-key order, index separators consistent with their blocks, and the
 * entry count equal to `rocksdb.num.entries`.
 *
 * Problems are collected, not thrown: one bad block does not hide the rest.
 * Each data block is read once, checksummed once and decompressed once.
 */
import { BlockIter, decodeBlockLayout } from '../format/block.js'
import { readFixed32 } from '../format/coding.js'
import { CorruptionError } from '../format/errors.js'
import { decodeFooter, FOOTER_BYTES } from '../format/footer.js'
import { parseInternalKey } from '../format/internal-key.js'
import { Property, propertyNumber } from '../format/properties.js'
import { newScratch } from '../codec/output.js'
import { FileByteSource, ReadWindow, type ByteSource } from '../io/byte-source.js'
import { blockChecksumOf, decompressRawBlock, hex32, readRawBlock } from './block-reader.js'
import { messageOf, tableLayout } from './layout.js'
import { WasmOrderChecker } from './verify-wasm.js'
import { type DataBlockRef, Table, verifyFooterChecksum } from './reader.js'

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
}

/** Stop collecting after this many problems: a badly damaged file should not flood the output. */
export const MAX_PROBLEMS = 1000

export interface VerifyOptions {
  /** false: check every block in JavaScript (the reference the WebAssembly path is tested against). */
  wasm?: boolean
}

/**
 * What verifying one file found: clean, findings (a damaged table, its
 * problems listed), or not an SST that can be opened at all (no readable
 * footer, an unsupported kind or feature, a missing file).
 */
export type VerifyOutcome =
  | ({ readonly kind: 'ok' | 'findings'; readonly file: string } & VerifyResult)
  | { readonly kind: 'unopenable'; readonly file: string; readonly error: unknown }

/** Verify the table at `file`; never throws for what the file holds. */
export function verifyFile(file: string, options: VerifyOptions = {}): VerifyOutcome {
  let source: FileByteSource
  try {
    source = new FileByteSource(file)
  } catch (error) {
    return { kind: 'unopenable', file, error }
  }
  try {
    let table: Table
    try {
      // Open without checksum verification so that a damaged meta block is
      // reported as a finding alongside everything else, not as a failure to open.
      table = Table.open(source, { verifyChecksums: false })
    } catch (error) {
      // A readable footer makes this an SST whose insides are damaged: a finding.
      if (error instanceof CorruptionError && footerDecodes(source)) {
        const problems = [{ block: 'table', offset: error.offset ?? null, message: error.message }]
        return { kind: 'findings', file, ok: false, blocksChecked: 0, dataBlocks: 0, entries: 0, rangeDeletions: 0, problems }
      }
      return { kind: 'unopenable', file, error }
    }
    const result = verifyTable(table, options)
    return { kind: result.ok ? 'ok' : 'findings', file, ...result }
  } finally {
    source.close()
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
  let blocksChecked = 0

  // The footer counts as a block, as layout counts it: openTable parsed and checked it (magic, handles);
  // from format_version 6 it has a checksum too.
  blocksChecked++
  if (table.formatVersion >= 6) {
    try {
      const tail = table.source.read(table.footer.offset, FOOTER_BYTES)
      verifyFooterChecksum(table.footer, tail, table.checksum)
    } catch (e) {
      add('footer', table.footer.offset, messageOf(e))
    }
  }

  // Meta blocks, index (and partitions), filters (and partitions).
  const layout = tableLayout(table, { dataBlocks: false })
  for (const b of layout.blocks) {
    if (b.kind === 'footer' || b.kind === 'gap') continue
    blocksChecked++
    if (b.problem) add(blockLabel(b.kind, b.name), b.offset, b.problem)
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
  const compare = table.compareInternal
  const user = table.userComparator
  const dict = safeDictionary(table, add)
  const window = new ReadWindow(table.source)
  // Whole blocks are order-checked in WebAssembly where the comparator is bytewise; any block it
  // does not pass is checked again below in JavaScript, which words the problem.
  const checker = options.wasm !== false && table.comparatorName === 'leveldb.BytewiseComparator' ? WasmOrderChecker.create() : null
  const scratch = checker?.scratch ?? newScratch()
  let refs: Iterator<DataBlockRef>
  try {
    refs = table.dataBlocks()
  } catch (e) {
    add('index block', table.indexHandle.offset, messageOf(e))
    refs = [][Symbol.iterator]()
  }
  for (;;) {
    let r: IteratorResult<DataBlockRef>
    try {
      r = refs.next()
    } catch (e) {
      add('index block', table.indexHandle.offset, `cannot continue through the index: ${messageOf(e)}`)
      break
    }
    if (r.done) break
    const ref = r.value
    dataBlocks++
    blocksChecked++
    const where = ref.handle.offset
    let contents: Uint8Array
    try {
      // Through a private window and into a reused buffer: each block is checked before the next read.
      const raw = readRawBlock(table.source, ref.handle, table.checksum, {
        what: 'data block',
        verifyChecksum: false,
        limit: table.footer.offset,
        maxBlockBytes: table.maxBlockBytes,
        window,
      })
      const computed = blockChecksumOf(table, raw)
      if (computed !== raw.storedChecksum) {
        add('data block', where, `data block checksum mismatch: stored 0x${hex32(raw.storedChecksum)}, computed 0x${hex32(computed)}`)
      }
      contents = decompressRawBlock(raw, table.formatVersion, 'data block', raw.compressionType !== 0 ? dict : undefined, scratch)
    } catch (e) {
      add('data block', where, messageOf(e))
      prevKey = null
      continue
    }
    try {
      const firstKeyCheck = (key: Uint8Array) => {
        if (prevIndexKey && indexCompare(table, prevIndexKey, key, user) >= 0) {
          add('data block', where, 'first key of the block does not sort after the previous index separator')
        }
      }
      let checkedInWasm = false
      if (checker) {
        const layout = decodeBlockLayout(contents, where, 'data block')
        // As BlockIter: entries start at restart point 0 (RocksDB always writes 0 there).
        const n =
          !layout.separatedKV && layout.numRestarts > 0 && readFixed32(contents, layout.restartsOffset) === 0
            ? checker.check(contents, layout.entriesEnd, prevKey)
            : -1
        if (n > 0) {
          entries += n
          firstKeyCheck(checker.firstKey())
          remember(checker.lastKey())
        }
        checkedInWasm = n >= 0
      }
      if (!checkedInWasm) {
        const it = new BlockIter(contents, where, 'data block', table.dataRestartInterval)
        let firstInBlock = true
        for (it.seekToFirst(); it.valid; it.next()) {
          entries++
          const key = it.key
          if (key.length < 8) {
            add('data block', where, `entry ${entries} has a ${key.length}-byte key, shorter than the 8-byte internal key trailer`)
            continue
          }
          if (prevKey && compare(prevKey, key) >= 0) {
            add('data block', where, `keys out of order: entry ${entries} does not sort after the previous key`)
          }
          if (firstInBlock) firstKeyCheck(key)
          firstInBlock = false
          remember(key)
        }
      }
      if (prevKey && indexCompare(table, ref.indexKey, prevKey, user) < 0) {
        add('index block', where, 'index separator sorts before the last key of its data block')
      }
      prevIndexKey = ref.indexKey
    } catch (e) {
      add('data block', where, messageOf(e))
      prevKey = null
    }
  }

  let rangeDeletions = 0
  try {
    rangeDeletions = table.rangeTombstones().length
  } catch {
    // already reported by the layout walk
  }

  const expected = propertyNumber(table.properties, Property.NumEntries)
  if (expected !== undefined && problems.length === 0 && entries + rangeDeletions !== expected) {
    add(
      'table',
      null,
      `entry count mismatch: found ${entries} point entries + ${rangeDeletions} range deletions = ${entries + rangeDeletions}, properties say rocksdb.num.entries = ${expected}`,
    )
  }
  return { ok: problems.length === 0, blocksChecked, dataBlocks, entries, rangeDeletions, problems }
}

function blockLabel(kind: string, name: string): string {
  return name ? `${kind} (${name})` : kind
}

function safeDictionary(table: Table, add: (b: string, o: number | null, m: string) => void): Uint8Array | undefined {
  try {
    return table.dictionary() ?? undefined
  } catch (e) {
    add('compression dictionary', null, messageOf(e))
    return undefined
  }
}

/** Compare an index separator with an internal key, in the index's key form. */
function indexCompare(table: Table, indexKey: Uint8Array, internalKey: Uint8Array, user: ((a: Uint8Array, b: Uint8Array) => number) | null): number {
  if (!user) return 0
  if (table.indexEncoding.keyIsUserKey) return user(indexKey, parseInternalKey(internalKey).userKey)
  return table.compareInternal(indexKey, internalKey)
}
