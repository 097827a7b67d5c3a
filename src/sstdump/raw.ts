/**
 * `--command=raw`: the `<file>_dump.txt` text of `BlockBasedTable::DumpTable`
 * (RocksDB 7.8.3, table/block_based/block_based_table_reader.cc): footer,
 * metaindex, properties, index, compression dictionary, fragmented range
 * deletions, every data block, and a data-block summary.
 */
import { BlockIter } from '../format/block.js'
import { COMPRESSION_DICT_BLOCK, PROPERTIES_BLOCK, RANGE_DEL_BLOCK } from '../format/metaindex.js'
import { encodeVarint } from '../format/coding.js'
import type { BlockBuffers, Dumper } from './dumper.js'
import { toStatus } from './status.js'
import { handleHex } from './entry-text.js'
import { ReadWindow } from '../io/byte-source.js'
import { newScratch } from '../codec/output.js'
import { SstDumpMode, WasmBlockPrinter } from '../scan/wasm-printer.js'
import { propertiesToString } from './properties.js'
import { type ByteSink, hexUpper } from './sink.js'
import type { SstDumpStatus } from './status.js'

const RULE = '--------------------------------------\n'
const BBT_MAGIC_DECIMAL = '9863518390377041911'

/** The dump, written as it is made (latin1 = bytes): memory does not grow with the file. */
class Text {
  private spacedBuf = Buffer.allocUnsafe(1024)
  /** A block handle's varints (at most 2 × 10 bytes), encoded here rather than in new arrays per block. */
  private readonly handleBuf = new Uint8Array(20)
  constructor(private readonly out: ByteSink) {}
  s(str: string): void {
    this.out.latin1(str)
  }
  /** Constant text, encoded once. */
  b(bytes: Uint8Array): void {
    this.out.bytes(bytes)
  }
  hex(bytes: Uint8Array): void {
    this.out.hex(bytes)
  }
  /** `BlockHandle::EncodeTo` in hex (`handleHex`), without allocating. */
  handle(h: { offset: number; size: number }): void {
    const end = putVarint(this.handleBuf, putVarint(this.handleBuf, 0, h.offset), h.size)
    this.out.hex(this.handleBuf.subarray(0, end))
  }
  /** Each byte followed by a space; NUL as `\0` when `escapeNul`. */
  spaced(bytes: Uint8Array, escapeNul: boolean): void {
    if (this.spacedBuf.length < bytes.length * 3) this.spacedBuf = Buffer.allocUnsafe(bytes.length * 3)
    const b = this.spacedBuf
    let n = 0
    for (const c of bytes) {
      if (c === 0 && escapeNul) {
        b[n++] = 0x5c
        b[n++] = 0x30
      } else b[n++] = c
      b[n++] = 0x20
    }
    this.out.bytes(b.subarray(0, n))
  }
}

/** A varint of `v` (below 2^53) at `at`; returns where it ends. */
function putVarint(buf: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    buf[at++] = (v % 0x80) | 0x80
    v = Math.floor(v / 0x80)
  }
  buf[at++] = v
  return at
}

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1')
const HEX_PREFIX = latin1('  HEX    ')
const COLON = latin1(': ')
const ASCII_PREFIX = latin1('\n  ASCII  ')
const ENTRY_END = latin1('\n  ------\n')
const BLOCK_PREFIX = latin1('Data Block # ')
const AT = latin1(' @ ')
const BLOCK_RULE = latin1(`\n${RULE}`)
const NEWLINE = latin1('\n')

function keyValue(t: Text, userKey: Uint8Array, value: Uint8Array): void {
  t.b(HEX_PREFIX)
  t.hex(userKey)
  t.b(COLON)
  t.hex(value)
  t.b(ASCII_PREFIX)
  t.spaced(userKey, true)
  t.b(COLON)
  t.spaced(value, true)
  t.b(ENTRY_END)
}

export interface Fragment {
  start: Uint8Array
  end: Uint8Array
  seqs: bigint[]
}

/** `FragmentedRangeTombstoneList` for reads: non-overlapping fragments, every seqno kept (descending). */
export function fragmentTombstones(tombstones: { start: Uint8Array; end: Uint8Array; seq: bigint }[]): Fragment[] {
  const sorted = tombstones.slice().sort((x, y) => Buffer.compare(x.start, y.start) || (x.seq > y.seq ? -1 : x.seq < y.seq ? 1 : 0))
  const out: Fragment[] = []
  // active: tombstones (end, seq) with start <= cur, deduplicated like a std::set of (end, seq)
  let active: { end: Uint8Array; seq: bigint }[] = []
  let cur: Uint8Array | null = null
  const flush = (next: Uint8Array | null): void => {
    active.sort((x, y) => Buffer.compare(x.end, y.end) || (x.seq > y.seq ? -1 : x.seq < y.seq ? 1 : 0))
    let i = 0
    while (i < active.length && cur !== null) {
      let end = active[i].end
      if (Buffer.compare(cur, end) === 0) {
        i++
        continue
      }
      let reached = false
      if (next !== null && Buffer.compare(next, end) <= 0) {
        reached = true
        end = next
      }
      const seqs = active
        .slice(i)
        .map((a) => a.seq)
        .sort((x, y) => (x > y ? -1 : x < y ? 1 : 0))
      out.push({ start: cur, end, seqs })
      cur = end
      if (reached) {
        active = active.slice(i)
        return
      }
      i++
    }
    active = []
  }
  for (const t of sorted) {
    if (active.length > 0 && cur !== null && Buffer.compare(cur, t.start) !== 0) flush(t.start)
    cur = t.start
    if (!active.some((a) => a.seq === t.seq && Buffer.compare(a.end, t.end) === 0)) active.push({ end: t.end, seq: t.seq })
  }
  if (active.length > 0) {
    const last = active.reduce((m, a) => (Buffer.compare(a.end, m) > 0 ? a.end : m), active[0].end)
    flush(last)
  }
  return out
}

/** Write the dump to `out`; returns the status that ended it early, or null. */
export function dumpTable(d: Dumper, out: ByteSink): SstDumpStatus | null {
  const t = new Text(out)
  const table = d.table!
  const footer = d.footer!
  t.s(`Footer Details:\n${RULE}`)
  const indexHandle = footer.indexHandle ?? { offset: 0, size: 0 }
  t.s(
    `  metaindex handle: ${handleHex(footer.metaindexHandle)}\n  index handle: ${handleHex(indexHandle)}\n  table_magic_number: ${BBT_MAGIC_DECIMAL}\n  format version: ${footer.formatVersion}\n  \n`,
  )
  t.s(`Metaindex Details:\n${RULE}`)
  for (const e of d.metaindex) {
    const h = handleHex(e.handle)
    if (e.name === PROPERTIES_BLOCK) t.s(`  Properties block handle: ${h}\n`)
    else if (e.name === COMPRESSION_DICT_BLOCK) t.s(`  Compression dictionary block handle: ${h}\n`)
    else if (e.name.includes('filter.rocksdb.')) t.s(`  Filter block handle: ${h}\n`)
    else if (e.name === RANGE_DEL_BLOCK) t.s(`  Range deletion block handle: ${h}\n`)
  }
  t.s('\n')
  if (d.props) {
    t.s(`Table Properties:\n${RULE}`)
    t.s(`  ${propertiesToString(d.props)}\n`)
  }

  // Index
  t.s(`Index Details:\n${RULE}`)
  t.s('  Block key hex dump: Data block handle\n  Block key ascii\n\n')
  const hasFirstKey = table.indexEncoding.hasFirstKey
  const userKeyOf = (k: Uint8Array): Uint8Array => (table.indexEncoding.keyIsUserKey ? k : k.subarray(0, Math.max(0, k.length - 8)))
  const handles: { offset: number; size: number }[] = []
  try {
    for (const ref of d.blockHandles()) {
      handles.push(ref.handle)
      const uk = userKeyOf(ref.indexKey)
      t.b(HEX_PREFIX)
      t.hex(uk)
      t.b(COLON)
      // the index value: the handle, then (kBinarySearchWithFirstKey) the first key with its length
      t.handle(ref.handle)
      if (hasFirstKey) {
        const fk = ref.firstKey ?? new Uint8Array(0)
        t.hex(encodeVarint(fk.length))
        t.hex(fk)
      }
      t.b(ASCII_PREFIX)
      t.spaced(uk, false)
      t.b(ENTRY_END)
    }
  } catch (e) {
    return toStatus(e)
  }
  t.s('\n')

  // Compression dictionary
  if (d.metaindex.some((e) => e.name === COMPRESSION_DICT_BLOCK)) {
    let dict: Uint8Array | null
    try {
      dict = d.dictionary()
    } catch (e) {
      return toStatus(e)
    }
    const raw = dict ?? new Uint8Array(0)
    t.s(`Compression Dictionary:\n${RULE}`)
    t.s(`  size (bytes): ${raw.length}\n\n`)
    t.s(`  HEX    ${hexUpper(raw)}\n\n`)
  }

  // Range deletions (fragmented, as the table reader's tombstone iterator returns them)
  let tombstones: { start: Uint8Array; end: Uint8Array; seq: bigint }[] = []
  try {
    tombstones = table.rangeTombstones().map((r) => ({ start: r.start, end: r.end, seq: BigInt(r.seq) }))
  } catch {
    tombstones = []
  }
  const frags = fragmentTombstones(tombstones)
  if (frags.length > 0) {
    t.s(`Range deletions:\n${RULE}`)
    for (const f of frags) for (let i = 0; i < f.seqs.length; i++) keyValue(t, f.start, f.end)
    t.s('\n')
  }

  // Data blocks
  let min = Number.MAX_SAFE_INTEGER
  let max = 0
  let sum = 0
  let id = 0
  // The entry lines in WebAssembly where the module takes the block; each block is dumped
  // before the next is read: one window and one scratch buffer serve them all.
  const wasm = WasmBlockPrinter.create()
  const buffers: BlockBuffers = { window: new ReadWindow(table.source), scratch: wasm ? wasm.scratch : newScratch() }
  const wasmOut = { write: (b: Uint8Array) => out.bytes(b) }
  for (const handle of handles) {
    id++
    min = Math.min(min, handle.size)
    max = Math.max(max, handle.size)
    sum += handle.size
    t.b(BLOCK_PREFIX)
    t.s(String(id))
    t.b(AT)
    t.handle(handle)
    t.b(BLOCK_RULE)
    let it: BlockIter
    let from = 0
    try {
      const data = d.readBlock(handle, 'data', true, true, buffers)
      if (wasm) {
        from = wasm.printSstDumpData(data, handle.offset, SstDumpMode.Raw, -1, Number.POSITIVE_INFINITY, wasmOut)
        wasm.flush(wasmOut)
        if (from < 0) {
          t.b(NEWLINE)
          continue
        }
      }
      it = new BlockIter(data, handle.offset, 'data block', table.dataRestartInterval)
      // sst_dump's raw dump reads data blocks by linear iteration, which never looks at the restart points.
      it.checkRestarts = false
    } catch {
      t.s('Error reading the block - Skipped \n\n')
      continue
    }
    try {
      // From the entry the module stopped at. A bad first entry leaves the iterator invalid: an empty block in the dump.
      it.seekToFirst()
      for (let i = 0; it.valid; i++) {
        if (i >= from) {
          const k = it.key
          keyValue(t, k.subarray(0, Math.max(0, k.length - 8)), it.value)
        }
        it.next()
      }
    } catch {
      // an undecodable entry ends the block (the iterator turns invalid)
    }
    t.b(NEWLINE)
  }
  if (id > 0) {
    t.s(`Data Block Summary:\n${RULE}`)
    t.s(`  # data blocks: ${id}\n  min data block size: ${min}\n  max data block size: ${max}\n  avg data block size: ${(sum / id).toFixed(6)}\n`)
  }
  return null
}
