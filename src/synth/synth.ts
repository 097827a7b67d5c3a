/**
 * Synthetic SST files with a controlled mix of compressible and incompressible
 * values, written by the real table writer (so RocksDB reads them like any
 * other file). For evaluating auto-skip regimes and for large benchmark files.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { encodeInternalKey } from '../format/internal-key.js'
import { ValueType } from '../format/value-type.js'
import { FileSink, plainWriterOptions, TableWriter, type WriteSummary } from '../table/writer.js'
import { prng } from '../util/prng.js'
import { clearStaleTemporaries, runStart, temporaryPath } from '../util/temp-file.js'
import { Property } from '../format/properties.js'

export interface SynthOptions {
  /** Approximate total value bytes. */
  sizeBytes: number
  valueSize: number
  /** Share of compressible values, 0..1. */
  compressibleFraction: number
  /** Values per region: 1 = each value drawn independently; larger = alternating regions. */
  runLength: number
  /** What a compressible value compresses to (zstd): the share of it that is random bytes, 0..1. */
  compressibleRatio: number
  seed: number
  compressionType: number
  blockSize?: number
}

const TEXT = new TextEncoder().encode('the quick brown fox jumps over the lazy dog while the storage engine flushes its memtable into a sorted string table; ')

function fillRandom(b: Uint8Array, random: () => number): void {
  for (let i = 0; i < b.length; i += 4) {
    const v = Math.floor(random() * 4294967296)
    b[i] = v & 0xff
    if (i + 1 < b.length) b[i + 1] = (v >>> 8) & 0xff
    if (i + 2 < b.length) b[i + 2] = (v >>> 16) & 0xff
    if (i + 3 < b.length) b[i + 3] = v >>> 24
  }
}

/** The i-th value: compressible values are `ratio` random bytes followed by repeated text. */
export function* synthValues(o: SynthOptions): Generator<Uint8Array> {
  const random = prng(o.seed)
  const regionRandom = prng(o.seed ^ 0x5bd1e995)
  const count = Math.max(1, Math.ceil(o.sizeBytes / o.valueSize))
  let compressible = false
  for (let i = 0; i < count; i++) {
    if (i % Math.max(1, o.runLength) === 0) compressible = regionRandom() < o.compressibleFraction
    const v = new Uint8Array(o.valueSize)
    if (!compressible) fillRandom(v, random)
    else {
      const randomBytes = Math.round(o.valueSize * o.compressibleRatio)
      fillRandom(v.subarray(0, randomBytes), random)
      for (let p = randomBytes; p < v.length; p++) v[p] = TEXT[(p - randomBytes) % TEXT.length]
    }
    yield v
  }
}

/** Write the synthetic table to `output` atomically (temp file + rename). */
export function writeSynth(output: string, o: SynthOptions): WriteSummary {
  clearStaleTemporaries(dirname(output), runStart)
  const tmp = temporaryPath(output)
  const fd = openSync(tmp, 'wx')
  try {
    const props = new Map<string, Uint8Array>([
      [Property.Comparator, new TextEncoder().encode('leveldb.BytewiseComparator')],
      [Property.ColumnFamilyName, new TextEncoder().encode('default')],
      [Property.CreatingHostIdentity, new TextEncoder().encode('sstkit synth')],
    ])
    const w = new TableWriter(
      new FileSink(fd),
      plainWriterOptions({ compressionType: o.compressionType, blockSize: o.blockSize ?? o.valueSize, baseProperties: props }),
    )
    let i = 0
    for (const v of synthValues(o)) {
      const key = new TextEncoder().encode(`synth:${String(i).padStart(12, '0')}`)
      w.add(encodeInternalKey(key, i + 1, ValueType.Value), v)
      i++
    }
    const summary = w.finish()
    fsyncSync(fd)
    closeSync(fd)
    renameSync(tmp, output)
    return summary
  } catch (e) {
    try {
      closeSync(fd)
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true })
    throw e
  }
}
