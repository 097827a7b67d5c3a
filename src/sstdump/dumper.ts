/**
 * One file as sst_dump's `SstFileDumper` sees it (RocksDB 7.8.3,
 * table/sst_file_dumper.cc): opening (with the exact messages and the order in
 * which 7.8.3 checks things), reading blocks the way its BlockBasedTable does
 * (which checksums are verified when, when the compression type byte is
 * ignored), and the sequential read behind `check` and `scan`.
 *
 * Files 7.8.3 refuses because of their format_version (6 and 7) are opened
 * with sstkit's reader and printed as the newest sst_dump prints them
 * (`latest`).
 */
import { closeSync, fstatSync, openSync } from 'node:fs'
import { decompressBlock } from '../codec/compression.js'
import { unmaskCrc32c } from '../codec/checksum.js'
import { ChecksumType } from '../format/checksum-type.js'
import type { BlockHandle } from '../format/block-handle.js'
import type { BlockIter } from '../format/block.js'
import { encodeInternalKey, GlobalSeqnoPatch, MAX_SEQUENCE_NUMBER } from '../format/internal-key.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import {
  BLOCK_BASED_TABLE_MAGIC,
  decodeFooter,
  type Footer,
  FOOTER_BYTES,
  LEGACY_BLOCK_BASED_TABLE_MAGIC,
  LEGACY_FOOTER_BYTES,
  LEGACY_PLAIN_TABLE_MAGIC,
  PLAIN_TABLE_MAGIC,
} from '../format/footer.js'
import {
  COMPRESSION_DICT_BLOCK,
  decodeMetaindex,
  INDEX_BLOCK,
  LEGACY_PROPERTIES_BLOCK,
  type MetaindexEntry,
  PROPERTIES_BLOCK,
  RANGE_DEL_BLOCK,
} from '../format/metaindex.js'
import { Property, type TableProperties } from '../format/properties.js'
import { FileByteSource, ReadWindow } from '../io/byte-source.js'
import { ChecksumMismatchError } from '../table/block-reader.js'
import { propertiesChecksumWithSeqnoZeroed, Table, verifyFooterChecksum } from '../table/reader.js'
import { decodeBlobIndex } from '../format/blob-index.js'
import { decodeWideColumns } from '../format/wide-columns.js'
import { splitValuePreferredSeqno } from '../format/preferred-seqno.js'
import { type ByteSink, cString, hexUpper } from './sink.js'
import { corruption, SstDumpStatus, stripOffset, toStatus } from './status.js'
import { type SstDumpProperties, sstDumpProperties } from './properties.js'
import { newScratch, type Scratch } from '../codec/output.js'
import {
  firstEntry,
  advance,
  startsWith,
  validType,
  parseIkey783,
  UNREACHABLE_READ_NUM,
  QUOTE,
  SEQ,
  TYPE,
  ARROW,
  NEWLINE,
  debugString,
  compressionName783,
} from './entry-text.js'
import { fastDataHandleBatches, fastDataHandles } from '../verify/native.js'
import { formatBlobIndex, formatWideColumns, DEBIAN_ROCKSDB, LATEST_ROCKSDB } from '../report/sst-dump-text.js'
import { readTail, ctxOf, rawRead, decodePropertiesStatus } from './reads.js'

export interface DumperOptions {
  verifyChecksum: boolean
  outputHex: boolean
  decodeBlobIndex: boolean
  /** --strict: verify also decompresses and parses every data block (sst_dump only checks checksums). */
  strict?: boolean
  /** Keep the index block read at open for the table's walks (default true; a worker, given handles, walks none). */
  keepIndex?: boolean
}

export type BlockKind = 'data' | 'index' | 'meta'

/**
 * Where a block read for immediate use may go: `window` reads ahead (the
 * result is valid until the next read through it), `scratch` receives the
 * decompressed block.
 */
export interface BlockBuffers {
  window?: ReadWindow
  scratch?: Scratch
}

/** Whether ReadSequential reads whole files: no entry count, key range or prefix to stop at (its readAll path). */
export function readsWholeFiles(readNum: bigint, hasFrom: boolean, hasTo: boolean, usePrefix: boolean): boolean {
  return (readNum === 0n || readNum >= UNREACHABLE_READ_NUM) && !hasFrom && !hasTo && !usePrefix
}

/** What `SstFileDumper` prints and keeps for one file. */
export class Dumper {
  /** `init_result_`: null when the table reader opened. */
  status: SstDumpStatus | null = null
  table: Table | null = null
  /** Properties as read at open (`table_properties_`), or null. */
  props: SstDumpProperties | null = null
  /** Print as the newest sst_dump (format_version >= 6 files). */
  latest = false
  /** 7.8.3 `blocks_maybe_compressed`: false when the file's compression name is NoCompression. */
  blocksMaybeCompressed = true
  /** Entries read by the last sequential read (`read_num_`). */
  readNum = 0n
  metaindex: MetaindexEntry[] = []
  footer: Footer | null = null
  fileSize = 0
  private dict: Uint8Array | null | undefined

  private constructor(
    readonly path: string,
    readonly fsPath: string,
    readonly opts: DumperOptions,
  ) {}

  /** Open as the SstFileDumper constructor does: prints `Process <path>` and the table kind to `out`. */
  static open(path: string, fsPath: string, out: ByteSink, opts: DumperOptions): Dumper {
    const d = new Dumper(path, fsPath, opts)
    out.text(`Process ${path}\n`)
    try {
      d.init(out)
    } catch (e) {
      d.status = toStatus(e)
      d.table?.close()
      d.table = null
    }
    return d
  }

  close(): void {
    this.table?.close()
  }

  private init(out: ByteSink): void {
    let fd: number
    try {
      fd = openSync(this.fsPath, 'r')
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      throw SstDumpStatus.of('IOError', `While open a file for random read: ${this.path}: ${err.code === 'EISDIR' ? 'Is a directory' : err.message}`)
    }
    let tail: Uint8Array
    try {
      this.fileSize = fstatSync(fd).size
      if (this.fileSize === 0) throw SstDumpStatus.of('Aborted', this.path, 'Empty file')
      tail = readTail(fd, this.fileSize, FOOTER_BYTES)
    } finally {
      closeSync(fd)
    }
    const size = this.fileSize
    // ReadFooterFromFile + Footer::DecodeFrom (7.8.3): any magic decodes.
    if (size < LEGACY_FOOTER_BYTES) throw corruption(`file is too short (${size} bytes) to be an sstable: ${this.path}`)
    const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength)
    const magic = view.getBigUint64(tail.length - 8, true)
    const legacy = magic === LEGACY_BLOCK_BASED_TABLE_MAGIC || magic === LEGACY_PLAIN_TABLE_MAGIC
    let formatVersion = 0
    if (!legacy) {
      formatVersion = view.getUint32(tail.length - 12, true)
      const newer = (formatVersion === 6 || formatVersion === 7) && magic === BLOCK_BASED_TABLE_MAGIC
      if (formatVersion > 5 && !newer) throw corruption(`Corrupt or unsupported format_version: ${formatVersion}`)
      if (tail.length < FOOTER_BYTES) throw corruption('Input is too short to be an SST file')
      const checksumType = tail[tail.length - FOOTER_BYTES]
      if (checksumType > 4) throw corruption(`Corrupt or unsupported checksum type: ${checksumType}`)
      this.latest = newer
    }
    const isBbt = magic === BLOCK_BASED_TABLE_MAGIC || magic === LEGACY_BLOCK_BASED_TABLE_MAGIC
    const isPlain = magic === PLAIN_TABLE_MAGIC || magic === LEGACY_PLAIN_TABLE_MAGIC
    if (!isBbt) {
      if (isPlain) {
        // 7.8.3 switches to mmap reads for plain tables and then fails to read through them.
        out.text('Sst file format: plain table\n')
        throw SstDumpStatus.of('IOError', `While pread offset 0 len ${size}: ${this.path}: Bad address`)
      }
      throw SstDumpStatus.of('InvalidArgument', `Unsupported table magic number --- ${magic.toString(16)}`)
    }

    const source = new FileByteSource(this.fsPath)
    try {
      const footer = decodeFooter(tail, size)
      this.footer = footer
      if (footer.formatVersion >= 6) {
        try {
          verifyFooterChecksum(footer, tail.subarray(tail.length - FOOTER_BYTES), {
            checksumType: footer.checksumType,
            formatVersion: footer.formatVersion,
            baseContextChecksum: footer.baseContextChecksum ?? 0,
          })
        } catch (e) {
          throw corruption(stripOffset((e as Error).message))
        }
      }
      // ReadTableProperties: metaindex and properties, checksums verified.
      let props: TableProperties | null = null
      try {
        const meta = this.readBlockFrom(source, footer, footer.metaindexHandle, 'meta', true, false)
        this.metaindex = decodeMetaindex(meta, footer.metaindexHandle.offset)
        const ph = this.metaindex.find((e) => e.name === PROPERTIES_BLOCK)?.handle ?? this.metaindex.find((e) => e.name === LEGACY_PROPERTIES_BLOCK)?.handle
        if (!ph) throw SstDumpStatus.of('NotFound', 'Cannot find the meta block', PROPERTIES_BLOCK)
        props = this.readProperties(source, footer, ph)
      } catch (e) {
        out.text('Not able to read table properties\n')
        out.text('Sst file format: block-based(old version)\n')
        throw toStatus(e)
      }
      out.text('Sst file format: block-based\n')
      this.props = sstDumpProperties(props, this.latest)
      if (!this.latest) this.blocksMaybeCompressed = this.propText(Property.Compression) !== 'NoCompression'

      // BlockBasedTable::Open: the index (top level) and the range deletions are read now, checksums verified.
      const indexHandle = footer.formatVersion >= 6 ? this.metaindex.find((e) => e.name === INDEX_BLOCK)?.handle : footer.indexHandle
      if (!indexHandle) throw corruption('Missing index block handle')
      const index = this.readBlockFrom(source, footer, indexHandle, 'index', true, true)
      const rd = this.metaindex.find((e) => e.name === RANGE_DEL_BLOCK)?.handle
      if (rd) this.readBlockFrom(source, footer, rd, 'meta', true, true)
      this.table = Table.open(source, { verifyChecksums: false, topIndexBlock: this.opts.keepIndex === false ? undefined : index })
    } catch (e) {
      source.close()
      throw e
    }
  }

  propText(name: string): string {
    const v = this.props?.str.get(name)
    return v ? Buffer.from(v).toString('latin1') : ''
  }

  private readProperties(source: FileByteSource, footer: Footer, h: BlockHandle): TableProperties {
    this.checkBounds(h)
    const raw = rawRead(source, footer, h, false)
    const data = this.decompress(raw.payload, raw.compressionType, h, footer, false, true)
    const props = decodePropertiesStatus(data, h.offset)
    if (footer.checksumType !== 0 || footer.formatVersion >= 6) {
      try {
        rawRead(source, footer, h, true)
      } catch (e) {
        if (!(e instanceof ChecksumMismatchError)) throw toStatus(e)
        if (!propertiesChecksumWithSeqnoZeroed(raw, ctxOf(footer))) throw this.checksumStatus(e)
      }
    }
    return props
  }

  checksumStatus(e: ChecksumMismatchError): SstDumpStatus {
    const ct = this.footer?.checksumType ?? 1
    // RocksDB unmasks CRC32c values in this message "for people who might look for reference crc value".
    const shown = (v: number): number => (ct === ChecksumType.CRC32c ? unmaskCrc32c(v >>> 0) : v >>> 0)
    return corruption(
      `block checksum mismatch: stored = ${shown(e.stored)}, computed = ${shown(e.computed)}, type = ${ct}  in ${this.path} offset ${e.handle.offset} size ${e.handle.size}`,
    )
  }

  private checkBounds(h: BlockHandle): void {
    const need = h.size + BLOCK_TRAILER_BYTES
    if (h.offset + need > this.fileSize) {
      const got = Math.max(0, Math.min(need, this.fileSize - h.offset))
      throw corruption(`truncated block read from ${this.path} offset ${h.offset}, expected ${need} bytes, got ${got}`)
    }
  }

  private readBlockFrom(
    source: FileByteSource,
    footer: Footer,
    h: BlockHandle,
    kind: BlockKind,
    verify: boolean,
    decompress: boolean,
    into: BlockBuffers = {},
  ): Uint8Array {
    this.checkBounds(h)
    let raw: ReturnType<typeof rawRead>
    try {
      raw = rawRead(source, footer, h, verify, into.window)
    } catch (e) {
      if (e instanceof ChecksumMismatchError) throw this.checksumStatus(e)
      throw toStatus(e)
    }
    if (!decompress) return raw.payload
    return this.decompress(raw.payload, raw.compressionType, h, footer, kind === 'data', kind !== 'meta' || true, into.scratch)
  }

  /** Whether a block's type byte says how it is compressed (7.8.3 ignores it when the file says NoCompression; --strict does not). */
  get decompressesByType(): boolean {
    return this.latest || this.blocksMaybeCompressed || this.opts.strict === true
  }

  private decompress(payload: Uint8Array, type: number, h: BlockHandle, footer: Footer, isData: boolean, maybe: boolean, scratch?: Scratch): Uint8Array {
    if (type === 0 || !maybe || !this.decompressesByType) return payload
    const name = compressionName783(type)
    if (![1, 2, 3, 4, 5, 7, 0x40].includes(type)) throw SstDumpStatus.of('NotSupported', 'Unsupported compression method for this build', name)
    try {
      return decompressBlock(type, payload, {
        formatVersion: footer.formatVersion,
        dictionary: isData ? (this.dictionary() ?? undefined) : undefined,
        offset: h.offset,
        scratch,
      })
    } catch (e) {
      if (e instanceof SstDumpStatus) throw e
      throw corruption('Corrupted compressed block contents', name)
    }
  }

  /** The raw compression dictionary (read unverified, as 7.8.3's DumpTable does), or null. */
  dictionary(): Uint8Array | null {
    if (this.dict !== undefined) return this.dict
    this.dict = null
    const h = this.metaindex.find((e) => e.name === COMPRESSION_DICT_BLOCK)?.handle
    if (h && h.size > 0 && this.table) {
      const raw = rawRead(this.table.source as FileByteSource, this.footer!, h, false)
      // the dictionary block itself is never compressed with a dictionary
      this.dict = raw.compressionType === 0 ? raw.payload.slice() : this.decompress(raw.payload, raw.compressionType, h, this.footer!, false, true).slice()
    }
    return this.dict
  }

  /** Read a block as the table reader does; errors are 7.8.3 statuses. */
  readBlock(h: BlockHandle, kind: BlockKind, verify: boolean, decompress = true, into: BlockBuffers = {}): Uint8Array {
    return this.readBlockFrom(this.table!.source as FileByteSource, this.footer!, h, kind, verify, decompress, into)
  }

  /** The user-key timestamp size ReadSequential prints (`|timestamp:N`): 8 for the newest release's `.u64ts` comparators. */
  get timestampSize(): number {
    return this.latest && this.table?.comparatorName.endsWith('.u64ts') ? 8 : 0
  }

  /** Data block handles in index order (the index iterator), with their index keys. */
  blockHandles(): Generator<{ handle: BlockHandle; indexKey: Uint8Array; firstKey: Uint8Array | null }> {
    return this.indexWalk(this.table!.dataBlocks())
  }

  /** Data block handles in index order, without their keys (a one-block index walked by verify's native kernel where it loads). */
  dataHandles(): Generator<BlockHandle> {
    return this.indexWalk(fastDataHandles(this.table!))
  }

  /** dataHandles() in batches of [offset, size, ...] pairs (each valid until the next): no object per block. */
  dataHandleBatches(): Generator<Float64Array> {
    return this.indexWalk(fastDataHandleBatches(this.table!))
  }

  /** A walk of the index, its errors as the index iterator's statuses. */
  private *indexWalk<T>(walk: Generator<T>): Generator<T> {
    try {
      yield* walk
    } catch (e) {
      if (e instanceof SstDumpStatus) throw e
      if (e instanceof ChecksumMismatchError) throw this.checksumStatus(e)
      throw toStatus(e)
    }
  }

  /**
   * Point entries in order, from the first whose user key >= `from` (Seek to
   * the smallest internal key of `from`). Keys carry the global seqno of an
   * ingested file. Throws a status on the first error (after yielding what
   * came before it, as the iterator does).
   */
  *entries(from: Uint8Array | null, verify: boolean): Generator<{ key: Uint8Array; value: Uint8Array }> {
    const t = this.table!
    const global = t.globalSeqno >= 0 ? new GlobalSeqnoPatch(t.globalSeqno) : null
    for (const { it } of this.entryBlocks(from, verify)) {
      while (it.valid) {
        yield { key: global ? global.copy(it.key) : it.key, value: it.value }
        if (!advance(it)) break
      }
    }
  }

  /**
   * The data blocks of a sequential read from the first entry whose user key >= `from` (or the
   * first entry): each block with its iterator at its first entry to read (`first`, its index),
   * blocks with no such entry left out. A block is valid until the next is read.
   */
  *entryBlocks(
    from: Uint8Array | null,
    verify: boolean,
    buffers: BlockBuffers = { window: new ReadWindow(this.table!.source), scratch: newScratch() },
  ): Generator<{ data: Uint8Array; offset: number; it: BlockIter; first: number }> {
    const t = this.table!
    const ucmp = t.userComparator ?? ((a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b))
    const target = from ? encodeInternalKey(from, MAX_SEQUENCE_NUMBER, 0xff) : null
    let seeking = from !== null
    // Seek: the index's binary search, as the table iterator's Seek
    const blocks =
      from && target
        ? this.indexWalk(t.dataBlocksAtOrAfter(t.indexEncoding.keyIsUserKey ? (k) => ucmp(k, from) : (k) => t.compareInternal(k, target)))
        : this.blockHandles()
    for (const ref of blocks) {
      const offset = ref.handle.offset
      const data = this.readBlock(ref.handle, 'data', verify, true, buffers)
      const it = firstEntry(data, offset, t.dataRestartInterval)
      let first = 0
      // keys before `from` (user key part; a key too short for a trailer ends the seek)
      while (seeking && it.valid && it.key.length >= 8 && ucmp(it.key.subarray(0, it.key.length - 8), from!) < 0) {
        first++
        advance(it)
      }
      if (!it.valid) continue
      seeking = false
      yield { data, offset, it, first }
    }
  }

  /** `ReadSequential`: check (print nothing) or scan; returns the iterator status. */
  readSequential(
    printKv: boolean,
    readNum: bigint,
    hasFrom: boolean,
    fromKey: Uint8Array,
    hasTo: boolean,
    toKey: Uint8Array,
    usePrefix: boolean,
    out: ByteSink,
    err: ByteSink,
    /** The whole-file reader (sequential.ts, which the caller imports only for this). */
    readAll?: (printKv: boolean) => { entries: number; status: SstDumpStatus | null },
    /** The block-at-a-time reader from a key or for a number of entries (sequential.ts too). */
    readFrom?: (printKv: boolean, from: Uint8Array | null, readNum: bigint) => { entries: bigint; status: SstDumpStatus | null },
  ): SstDumpStatus | null {
    if (!this.table) return this.status
    let i = 0n
    let status: SstDumpStatus | null = null
    const tsSize = this.timestampSize
    if (readAll && readsWholeFiles(readNum, hasFrom, hasTo, usePrefix) && tsSize === 0) {
      // The whole file, nothing to compare: whole blocks at once, in WebAssembly and on every core.
      const r = readAll(printKv)
      i = BigInt(r.entries)
      status = r.status
    } else if (readFrom && !hasTo && !usePrefix && tsSize === 0) {
      // No key to compare past the seek: whole blocks at once, as many entries as --read_num asks.
      const r = readFrom(printKv, hasFrom ? fromKey : null, readNum)
      i = r.entries
      status = r.status
    } else {
      try {
        for (const { key, value } of this.entries(hasFrom ? fromKey : null, this.opts.verifyChecksum)) {
          i++
          if (readNum > 0n && i > readNum) break
          if (usePrefix || hasTo) {
            const parsed = parseIkey783(key, this.latest)
            if (parsed.ok) {
              if (usePrefix && !startsWith(parsed.userKey, fromKey)) break
              if (hasTo && Buffer.compare(parsed.userKey, toKey) >= 0) break
            }
          }
          this.printEntry(key, value, printKv, tsSize, out, err)
        }
      } catch (e) {
        status = toStatus(e)
      }
    }
    this.readNum += i
    if (this.latest && status === null && (readNum === 0n || readNum === (1n << 64n) - 1n) && !hasFrom && !hasTo && this.props) {
      const expect = (this.props.num.get(Property.NumEntries) ?? 0n) - (this.props.num.get(Property.NumRangeDeletions) ?? 0n)
      if (i !== expect) {
        status = corruption(`Table property expects ${expect} entries when excluding range deletions, but scanning the table returned ${i} entries`)
      }
    }
    return status
  }

  /**
   * One entry of ReadSequential past its range checks: its line (printKv) to
   * `out`, or, for a key ParseInternalKey rejects, the status to `err`.
   */
  printEntry(key: Uint8Array, value: Uint8Array, printKv: boolean, tsSize: number, out: ByteSink, err: ByteSink): void {
    const hex = this.opts.outputHex
    if (printKv && tsSize === 0 && this.printPlainLine(key, value, hex, out)) return
    const parsed = parseIkey783(key, this.latest)
    if (!parsed.ok) {
      err.flush()
      err.bytes(parsed.state)
      err.text('\n')
      err.flush()
      return
    }
    if (!printKv) return
    const { userKey, seq, type } = parsed
    const debug = debugString(userKey, seq, type, hex, tsSize)
    if (this.opts.decodeBlobIndex && type === 0x11) {
      let text: string
      try {
        text = formatBlobIndex(decodeBlobIndex(value), { hex, rocksdb: this.latest ? LATEST_ROCKSDB : DEBIAN_ROCKSDB })
      } catch {
        err.bytes(cString(debug))
        err.text(' => error decoding blob index\n')
        err.flush()
        return
      }
      out.bytes(cString(debug))
      out.text(` => ${text}\n`)
      return
    }
    if (this.latest && type === 0x16) {
      let text: string
      try {
        text = formatWideColumns(decodeWideColumns(value), { hex, rocksdb: LATEST_ROCKSDB })
      } catch {
        err.bytes(cString(debug))
        err.text(' => error deserializing wide columns\n')
        err.flush()
        return
      }
      out.bytes(cString(debug))
      out.text(' => ')
      out.bytes(cString(Buffer.from(text, 'utf8')))
      out.text('\n')
      return
    }
    if (this.latest && type === 0x18 && value.length >= 8) {
      const v = splitValuePreferredSeqno(value)
      out.bytes(cString(debug))
      out.text(' => ')
      out.bytes(hex ? Buffer.from(hexUpper(v.value), 'latin1') : cString(v.value))
      out.text(`, ${v.preferredSeqno}\n`)
      return
    }
    out.bytes(cString(debug))
    out.text(' => ')
    if (hex) out.text(hexUpper(value))
    else out.bytes(cString(value))
    out.text('\n')
  }

  /**
   * Types whose entries printEntry prints as a plain line
   * (`'KEY' seq:N, type:T => VALUE`) with these options: every type
   * ParseInternalKey accepts, less those it decodes.
   */
  plainLineTypes(): number[] {
    const types: number[] = []
    for (let t = 0; t < 256; t++) {
      if (!validType(t, this.latest)) continue
      if (this.opts.decodeBlobIndex && t === 0x11) continue
      if (this.latest && (t === 0x16 || t === 0x18)) continue
      types.push(t)
    }
    return types
  }

  /** Types ParseInternalKey accepts (check mode decodes no value). */
  validTypes(): number[] {
    const types: number[] = []
    for (let t = 0; t < 256; t++) if (validType(t, this.latest)) types.push(t)
    return types
  }

  /**
   * The scan line of an entry of a plain type (value, deletion, merge, single
   * deletion) written straight to `out`, as the general path below prints it:
   * `'KEY' seq:N, type:T => VALUE`, cut at the first NUL of the key and of the
   * value (printf's %s) unless hex. False for anything else (other types, keys
   * without a trailer, sequence numbers past 2^53): the general path prints it.
   */
  private printPlainLine(key: Uint8Array, value: Uint8Array, hex: boolean, out: ByteSink): boolean {
    const n = key.length - 8
    if (n < 0) return false
    const type = key[n]
    if (type > 2 && type !== 7) return false
    // seq = trailer >> 8: bytes n+1..n+7, little-endian; exact as a double below 2^53.
    const high = key[n + 4] | (key[n + 5] << 8) | (key[n + 6] << 16) | (key[n + 7] << 24)
    if (high < 0 || high >= 1 << 29) return false
    const seq = (key[n + 1] | (key[n + 2] << 8) | (key[n + 3] << 16)) + high * 2 ** 24
    const userKey = key.subarray(0, n)
    out.bytes(QUOTE)
    if (hex) out.hex(userKey)
    else {
      const nul = userKey.indexOf(0)
      if (nul >= 0) {
        out.bytes(userKey.subarray(0, nul))
        out.bytes(ARROW)
        out.bytes(cString(value))
        out.bytes(NEWLINE)
        return true
      }
      out.bytes(userKey)
    }
    out.bytes(SEQ)
    out.decimal(seq)
    out.bytes(TYPE)
    out.decimal(type)
    out.bytes(ARROW)
    if (hex) out.hex(value)
    else out.bytes(cString(value))
    out.bytes(NEWLINE)
    return true
  }

  /**
   * The data blocks of VerifyChecksumInBlocks without --verify_checksum: each block with its
   * trailer read, nothing checked but that it is all there. Runs of adjacent blocks are read in
   * chunks on libuv's threads while this thread walks the index, so that the copies from the page
   * cache (most of the work) overlap the walk and each other. Throws the first failure in index
   * order, as the serial reads meet them; a chunk whose read fails is read again here, to fail
   * with the serial read's error.
   */
  private async readDataBlocks(source: FileByteSource): Promise<void> {
    const reads: { offset: number; target: Uint8Array; done: Promise<unknown> }[] = []
    const spare: Uint8Array[] = []
    const none = Symbol('none')
    let readError: unknown = none
    const settle = async (r: (typeof reads)[number]): Promise<void> => {
      const e = await r.done
      spare.push(r.target)
      if (e === null || readError !== none) return
      try {
        source.readInto(r.offset, r.target)
      } catch (again) {
        readError = again
      }
    }
    let start = -1
    let end = -1
    const issue = async (): Promise<void> => {
      if (start < 0) return
      if (reads.length >= READS_IN_FLIGHT) await settle(reads.shift()!)
      const length = end - start
      const buf = spare.pop()
      const target =
        buf && buf.buffer.byteLength >= length ? new Uint8Array(buf.buffer, 0, length) : new Uint8Array(Math.max(length, READ_CHUNK)).subarray(0, length)
      reads.push({
        offset: start,
        target,
        done: source.readIntoAsync(start, target).then(
          () => null,
          (e: unknown) => e ?? 'failed',
        ),
      })
      start = -1
    }
    let walkError: unknown = none
    try {
      for (const h of this.dataHandles()) {
        this.checkBounds(h)
        const blockEnd = h.offset + h.size + BLOCK_TRAILER_BYTES
        if (start >= 0 && h.offset >= start && h.offset <= end && Math.max(end, blockEnd) - start <= READ_CHUNK) {
          end = Math.max(end, blockEnd)
          continue
        }
        await issue()
        if (readError !== none) break
        start = h.offset
        end = blockEnd
      }
      if (readError === none) await issue()
    } catch (e) {
      walkError = e
    }
    // Every read ends before the file may close; a read's failure precedes the walk's (its blocks come first).
    while (reads.length > 0) await settle(reads.shift()!)
    if (readError !== none) throw readError
    if (walkError !== none) throw walkError
  }

  /**
   * `BlockBasedTable::VerifyChecksum`: meta blocks (always checksummed), then
   * data blocks via the index (`dataBlocks`, sequential.ts's parallel reader,
   * when the caller gives it; --strict reads them here).
   */
  async verifyChecksum(dataBlocks?: () => SstDumpStatus | null): Promise<SstDumpStatus | null> {
    if (!this.table) return this.status
    try {
      const source = this.table.source as FileByteSource
      const footer = this.footer!
      const meta = this.readBlockFrom(source, footer, footer.metaindexHandle, 'meta', true, false)
      const entries = decodeMetaindex(meta, footer.metaindexHandle.offset)
      for (const e of entries) {
        if (e.name === PROPERTIES_BLOCK) this.readProperties(source, footer, e.handle)
        else this.readBlockFrom(source, footer, e.handle, 'meta', true, false)
      }
      if (dataBlocks && !this.opts.strict) return dataBlocks()
      const window = new ReadWindow(source)
      if (!this.opts.strict) {
        // VerifyChecksumInBlocks: each block and its trailer read, checksummed only with --verify_checksum.
        if (!this.opts.verifyChecksum) {
          await this.readDataBlocks(source)
          return null
        }
        for (const h of this.dataHandles()) this.readBlock(h, 'data', true, false, { window })
        return null
      }
      for (const ref of this.blockHandles()) {
        const data = this.readBlock(ref.handle, 'data', true)
        const it = firstEntry(data, ref.handle.offset, this.table.dataRestartInterval)
        while (it.valid) advance(it)
      }
      return null
    } catch (e) {
      return toStatus(e)
    }
  }
}

/** Bytes of adjacent data blocks read at once by readDataBlocks, and how many such reads are in flight. */
const READ_CHUNK = 1 << 20
const READS_IN_FLIGHT = 2
