/**
 * A written database checked against its source by reading both again (database.ts, unless
 * --no-verify): each table of the output, found through the new MANIFEST, is verified as `sstkit
 * verify` does, then its entries are streamed beside a second read of the source table of the same
 * number: the same internal keys in the same order, the same values, the same range tombstones. A
 * blob index is compared by what it points at: both values read from their blob files (record
 * header, key and CRC checked, decompressed), so a blob file written again under another
 * compression, and the indexes moved with it, are checked end to end. Blob files and logs copied as
 * they are are compared byte for byte. One block of each table and one blob at a time are held.
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { type BlobFile, openBlobFile, readBlob } from '../blob/reader.js'
import { decodeBlobIndex } from '../format/blob-index.js'
import { equalBytes } from '../format/coding.js'
import { ValueType } from '../format/value-type.js'
import { FileByteSource } from '../io/byte-source.js'
import { openTable, type Table } from '../table/reader.js'
import { verifyTable } from '../verify/verify.js'
import type { Entry } from './ingestible.js'
import { RewriteError } from './rewrite.js'
import { newSalvageLog, salvagedEntries, salvagedTombstones, storedEntries } from './salvage.js'

export interface TablePair {
  /** How the table is named in errors: its column family, level and number. */
  label: string
  source: string
  output: string
  /** The source was salvaged: it is read again as salvage read it (its damaged blocks left out). */
  salvaged: boolean
  /** Blob file number → path, in the source and in the output. */
  sourceBlobs: Record<number, string>
  outputBlobs: Record<number, string>
}

export interface TableCompared {
  entries: number
  tombstones: number
  /** Blob index entries whose values were read from both blob files and found equal. */
  blobValues: number
}

const fail = (what: string): never => {
  throw new RewriteError('corruption', `verification of the written database failed: ${what}`)
}

/** Read the output table and the source table again and compare them (see the file comment). */
export function compareTables(p: TablePair): TableCompared {
  const source = openTable(p.source)
  let output: Table | null = null
  const blobs = new BlobFiles()
  try {
    output = openTable(p.output, { verifyChecksums: true })
    // One thread: tables are checked --jobs at a time already, and verify's own workers would add an isolate each (~40 MB).
    const v = verifyTable(output, { jobs: 1 })
    if (!v.ok) {
      const x = v.problems[0]
      fail(`${p.label}: ${x.block}${x.offset !== null ? ` at offset ${x.offset}` : ''}: ${x.message}`)
    }
    const log = newSalvageLog()
    const theirs: Iterator<Entry> = p.salvaged ? salvagedEntries(source, log) : storedEntries(source)
    const ours = storedEntries(output)
    const counts: TableCompared = { entries: 0, tombstones: 0, blobValues: 0 }
    for (;;) {
      const a = theirs.next()
      const b = ours.next()
      if (a.done || b.done) {
        if (!a.done || !b.done) fail(`${p.label}: the written table has ${b.done ? 'fewer' : 'more'} entries than the source's ${counts.entries}+`)
        break
      }
      const key = a.value.key
      if (!equalBytes(key, b.value.key)) fail(`${p.label}: entry ${counts.entries}: the key differs from the source's`)
      if (key.length >= 8 && key[key.length - 8] === ValueType.BlobIndex) {
        if (sameBlob(key.subarray(0, key.length - 8), a.value.value, b.value.value, p, blobs, counts.entries)) counts.blobValues++
      } else if (!equalBytes(a.value.value, b.value.value)) fail(`${p.label}: entry ${counts.entries}: the value differs from the source's`)
      counts.entries++
    }
    const want = p.salvaged ? salvagedTombstones(source, log) : source.rangeTombstones({ applyGlobalSeqno: false })
    const got = output.rangeTombstones({ applyGlobalSeqno: false })
    if (want.length !== got.length) fail(`${p.label}: ${got.length} range tombstones, the source has ${want.length}`)
    want.forEach((t, i) => {
      if (!equalBytes(t.internalKey, got[i].internalKey) || !equalBytes(t.end, got[i].end)) fail(`${p.label}: range tombstone ${i} differs from the source's`)
    })
    counts.tombstones = want.length
    return counts
  } finally {
    blobs.close()
    output?.close()
    source.close()
  }
}

/**
 * Whether two blob indexes of one entry point at equal values (true), or are equal bytes that point
 * into no blob file (false: an inlined TTL value or a blob in the table itself). Fails otherwise.
 */
function sameBlob(userKey: Uint8Array, a: Uint8Array, b: Uint8Array, p: TablePair, blobs: BlobFiles, at: number): boolean {
  const x = decodeBlobIndex(a)
  const y = decodeBlobIndex(b)
  if (x.kind === 'inlinedTtl' || y.kind === 'inlinedTtl' || Number(x.fileNumber) === 0 || Number(y.fileNumber) === 0) {
    if (!equalBytes(a, b)) fail(`${p.label}: entry ${at}: the blob index differs from the source's`)
    return false
  }
  if (x.kind !== y.kind || x.fileNumber !== y.fileNumber) fail(`${p.label}: entry ${at}: the blob index points into another blob file than the source's`)
  const n = Number(x.fileNumber)
  const want = readBlob(blobs.open(p.sourceBlobs[n], n, p.label), userKey, Number(x.offset), Number(x.size), x.compression)
  const got = readBlob(blobs.open(p.outputBlobs[n], n, p.label), userKey, Number(y.offset), Number(y.size), y.compression)
  if (!equalBytes(want, got)) fail(`${p.label}: entry ${at}: the value in blob file #${n} differs from the source's`)
  return true
}

/** The blob files a table's indexes point into, opened once each. */
class BlobFiles {
  private readonly open_ = new Map<string, BlobFile>()

  open(path: string | undefined, fileNumber: number, label: string): BlobFile {
    if (path === undefined) return fail(`${label}: a blob index points into blob file #${fileNumber}, which is not live`)
    let f = this.open_.get(path)
    if (!f) {
      f = openBlobFile(new FileByteSource(path))
      this.open_.set(path, f)
    }
    return f
  }

  close(): void {
    for (const f of this.open_.values()) f.close()
  }
}

const CHUNK = 1 << 20

/**
 * Whether `copy` holds the first bytes of `original` (all of them, or, `prefix`, as many as the copy
 * has: a log a live database still appends to). Fails naming the copy where they differ.
 */
export function compareBytes(original: string, copy: string, label: string, prefix = false): number {
  const a = openSync(original, 'r')
  const b = openSync(copy, 'r')
  try {
    const x = Buffer.allocUnsafe(CHUNK)
    const y = Buffer.allocUnsafe(CHUNK)
    let at = 0
    for (;;) {
      const m = readSync(b, y, 0, CHUNK, at)
      const n = readSync(a, x, 0, prefix ? m : CHUNK, at)
      if (m !== n || !x.subarray(0, n).equals(y.subarray(0, m))) fail(`${label} differs from the source's at or after byte ${at}`)
      if (m === 0) return at
      at += m
    }
  } finally {
    closeSync(a)
    closeSync(b)
  }
}
