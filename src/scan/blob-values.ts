/**
 * The values behind an SST's blob indexes (kTypeBlobIndex entries of the integrated BlobDB), read
 * from the blob files of a directory (`NNNNNN.blob` by the index's file number) as `ldb scan`
 * resolves them: the record's header CRC, key and blob CRC checked, the value decompressed. Blob
 * files are opened on first use and kept open (a few: an SST references the blob files its
 * flush or compaction wrote) until `close`.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { type BlobFile, openBlobFile, readBlob } from '../blob/reader.js'
import { SstkitError } from '../errors.js'
import { decodeBlobIndex } from '../format/blob-index.js'
import { FileByteSource } from '../io/byte-source.js'

/** A resolved value, or why the index could not be resolved (one line). */
export type BlobValue = { value: Uint8Array } | { error: string }

/** Blob files kept open at once; more are closed oldest first. */
const MAX_OPEN = 16

export class BlobValues {
  private readonly open = new Map<number, BlobFile | SstkitError>()
  /** Indexes that could not be resolved, and the first reason. */
  unresolved = 0
  firstError: string | null = null

  /**
   * `required`: a referenced blob file missing from `dir` is an error (--blob-dir); otherwise such
   * an index is left as it is stored (the SST's own directory need not hold every blob file).
   */
  constructor(
    readonly dir: string,
    readonly required: boolean,
  ) {}

  /** The directory's blob files resolve an SST's indexes when it holds any (`scan` without --blob-dir). */
  static holdsBlobFiles(dir: string): boolean {
    try {
      return readdirSync(dir).some((n) => n.endsWith('.blob'))
    } catch {
      return false
    }
  }

  /** The value behind the kTypeBlobIndex value `index` of the entry with user key `userKey`; undefined for a form it does not resolve (inlined, TTL, same-file). */
  resolve(userKey: Uint8Array, index: Uint8Array): BlobValue | undefined {
    let idx: ReturnType<typeof decodeBlobIndex>
    try {
      idx = decodeBlobIndex(index)
    } catch {
      return undefined
    }
    if (idx.kind !== 'blob' || Number(idx.fileNumber) === 0) return undefined
    const name = `${String(idx.fileNumber).padStart(6, '0')}.blob`
    if (!this.required && !this.open.has(Number(idx.fileNumber)) && !existsSync(join(this.dir, name))) return undefined
    try {
      const file = this.file(Number(idx.fileNumber), name)
      return { value: readBlob(file, userKey, Number(idx.offset), Number(idx.size), idx.compression) }
    } catch (e) {
      if (!(e instanceof SstkitError)) throw e
      const error = `${name}: ${e.message}`
      this.unresolved++
      this.firstError ??= error
      return { error }
    }
  }

  private file(number: number, name: string): BlobFile {
    const known = this.open.get(number)
    if (known instanceof SstkitError) throw known
    if (known) return known
    const path = join(this.dir, name)
    let file: BlobFile
    try {
      if (!existsSync(path)) throw new SstkitError('io', 'the blob file is not in the directory')
      file = openBlobFile(new FileByteSource(path, { readahead: 64 * 1024 }))
    } catch (e) {
      const error = e instanceof SstkitError ? e : new SstkitError('io', (e as Error).message)
      this.open.set(number, error)
      throw error
    }
    if (this.open.size >= MAX_OPEN) {
      for (const [n, f] of this.open) {
        if (f instanceof SstkitError) continue
        f.close()
        this.open.delete(n)
        break
      }
    }
    this.open.set(number, file)
    return file
  }

  close(): void {
    for (const f of this.open.values()) if (!(f instanceof SstkitError)) f.close()
    this.open.clear()
  }
}
