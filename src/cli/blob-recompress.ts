/**
 * `recompress FILE.blob`: the recompress flags read for a blob file (types at the library's default
 * level unless --levels is given, no dictionary, the zstd checksum only when asked) and one file's
 * matrix measured (`recompress/blob-matrix.ts`). Flags that describe SST blocks are a usage error.
 */
import { dirname } from 'node:path'
import { type BlobFile, openBlobFile } from '../blob/reader.js'
import { WRITABLE_TYPES } from '../codec/setting.js'
import { readNewestOptions } from '../db/options.js'
import { writerRelease } from '../db/rocksdb-version.js'
import { FileByteSource } from '../io/byte-source.js'
import { type BlobMatrixContext, type BlobMatrixReport, type BlobSetting, blobMatrixReport, lz4OneShotFor, sampleBlobFile } from '../recompress/blob-matrix.js'
import { buildMatrix, MatrixError, matrixNoteText, parseChecksums, parseDicts, parseLevels, parseTypes } from '../recompress/config.js'

/** Flags of recompress that have no meaning for a blob file's records. */
const SST_ONLY_FLAGS = [
  'block-size',
  'restart-interval',
  'index-compression',
  'format-version',
  'dict-file',
  'auto-skip',
  'max-dict-bytes',
  'train-bytes',
  'max-dict-buffer-bytes',
  'max-compressed-bytes-per-kb',
]

export interface BlobFlagValues {
  types?: string
  levels?: string
  dict?: string
  checksum?: string
  sample?: number
  repeat: number
}

/** The settings the flags ask for on a blob file; `given` holds the flags on the command line. Throws MatrixError. */
export function blobSettings(flags: BlobFlagValues, given: ReadonlySet<string>): { settings: BlobSetting[]; notes: string[] } {
  if (given.has('compression-strategy'))
    throw new MatrixError("--compression-strategy is a table's CompressionOptions::strategy: a blob file has blob_compression_type and no compression options")
  for (const f of SST_ONLY_FLAGS)
    if (given.has(f)) throw new MatrixError(`--${f} describes SST data blocks: it does not apply to a blob file, whose values are compressed one by one`)
  if (given.has('dict') && parseDicts(flags.dict ?? 'none').some((d) => d !== 'none'))
    throw new MatrixError('RocksDB compresses blobs without a dictionary: --dict takes only none for a blob file')
  const types = given.has('types') ? parseTypes(flags.types ?? 'zstd') : [...WRITABLE_TYPES]
  const matrix = buildMatrix({
    types,
    levels: given.has('levels') ? parseLevels(flags.levels ?? 'default') : [null],
    dicts: ['none'],
    checksums: given.has('checksum') ? parseChecksums(flags.checksum ?? 'off') : [false],
  })
  return { settings: matrix.configs.map((c) => ({ type: c.type, level: c.level, checksum: c.checksum })), notes: matrix.notes.map(matrixNoteText) }
}

/** The release that wrote the database a blob file is in (its OPTIONS or LOG), or null. */
export function blobFileRelease(file: string): { release: string | null; lz4OneShot: boolean } {
  let release: string | null = null
  try {
    const dir = dirname(file)
    release = writerRelease(dir, readNewestOptions(dir))?.version ?? null
  } catch {
    // An unreadable OPTIONS file says nothing about the blob file; the older LZ4 form is assumed.
    release = null
  }
  const m = release ? /^(\d+)\.(\d+)/.exec(release) : null
  return { release, lz4OneShot: lz4OneShotFor(m ? [Number(m[1]), Number(m[2])] : null) }
}

/** Open a blob file for its matrix: throws when it is not one (bad magic, legacy TTL file, unreadable). */
export function openBlobForMatrix(file: string): BlobFile {
  return openBlobFile(new FileByteSource(file))
}

/** One opened blob file's matrix (closes it). Throws a CorruptionError naming the offset of a damaged record. */
export function measureBlobFile(
  file: string,
  blob: BlobFile,
  settings: BlobSetting[],
  flags: BlobFlagValues,
): { report: BlobMatrixReport; ctx: BlobMatrixContext } {
  const ctx = blobFileRelease(file)
  try {
    const sample = sampleBlobFile(blob, settings, {
      rate: flags.sample !== undefined ? flags.sample / 100 : undefined,
      repeat: flags.repeat,
      lz4OneShot: ctx.lz4OneShot,
    })
    return { report: blobMatrixReport(blob, settings, sample), ctx }
  } finally {
    blob.close()
  }
}
