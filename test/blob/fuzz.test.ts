/**
 * Mutants of the real blob files (fixed seeds, synthetic damage), as the SST fuzzer does for
 * tables: in process, every mutant is read by props' walk, scan's and verify's without a crash (an
 * error that is not an SstkitError) and in bounded reads; damage to bytes a CRC covers (everything
 * after the 30-byte header) is always found by verify; a few go through the built CLI for the
 * exit code and the one-line rule.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { blobFileStats, verifyBlobFile } from '../../src/blob/inspect.js'
import { blobRecords, decompressBlobValue, openBlobFile } from '../../src/blob/reader.js'
import { SstkitError } from '../../src/errors.js'
import { BLOB_HEADER_SIZE } from '../../src/format/blob-file.js'
import { BufferByteSource } from '../../src/io/byte-source.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { defaultBlobSettings, sampleBlobFile } from '../../src/recompress/blob-matrix.js'
import { prng } from '../../src/util/prng.js'
import { ROOT, sstkit } from '../helpers.js'
import { blobFixtureFiles } from './ldb-dump.js'

const PER_FILE = 60
const SEED = 0xb10b_0000

type Kind = 'bit' | 'byte' | 'truncate' | 'length' | 'zero-run'
interface Mutant {
  name: string
  bytes: Uint8Array
  /** Whether every changed byte lies where a CRC covers it (after the header) and the file keeps its size. */
  covered: boolean
}

function mutate(original: Uint8Array, seed: number): Mutant {
  const rand = prng(seed)
  const bytes = Uint8Array.from(original)
  const kinds: Kind[] = ['bit', 'byte', 'truncate', 'length', 'zero-run']
  const kind = kinds[Math.floor(rand() * kinds.length)]
  const at = Math.floor(rand() * bytes.length)
  switch (kind) {
    case 'bit':
      bytes[at] ^= 1 << Math.floor(rand() * 8)
      return { name: `bit@${at}`, bytes, covered: at >= BLOB_HEADER_SIZE }
    case 'byte': {
      const v = (bytes[at] + 1 + Math.floor(rand() * 255)) & 0xff
      bytes[at] = v
      return { name: `byte@${at}`, bytes, covered: at >= BLOB_HEADER_SIZE }
    }
    case 'truncate':
      return { name: `truncate@${at}`, bytes: bytes.subarray(0, at), covered: false }
    case 'length': {
      // A record's length field at a guessed place, set huge: under a stale header CRC.
      const view = new DataView(bytes.buffer)
      const pos = Math.min(bytes.length - 8, BLOB_HEADER_SIZE + Math.floor(rand() * 16))
      view.setBigUint64(pos, BigInt(Math.floor(rand() * 2 ** 52)) << 10n, true)
      return { name: `length@${pos}`, bytes, covered: pos >= BLOB_HEADER_SIZE && !original.subarray(pos, pos + 8).every((b, i) => b === bytes[pos + i]) }
    }
    case 'zero-run': {
      const n = 1 + Math.floor(rand() * 64)
      const end = Math.min(bytes.length, at + n)
      const changed = !original.subarray(at, end).every((b) => b === 0)
      bytes.fill(0, at, end)
      return { name: `zero[${at},${end})`, bytes, covered: changed && at >= BLOB_HEADER_SIZE }
    }
  }
}

/** Reads through `read`, remembering the largest asked for. */
function source(bytes: Uint8Array): { src: BufferByteSource; largest: () => number } {
  const src = new BufferByteSource(bytes, 'synthetic-mutant.blob')
  let largest = 0
  const read = src.read.bind(src)
  src.read = (offset: number, length: number) => {
    largest = Math.max(largest, length)
    return read(offset, length)
  }
  return { src, largest: () => largest }
}

const files = blobFixtureFiles()
const mutants = files.flatMap((file, f) => {
  const original = Uint8Array.from(readFileSync(join(ROOT, file)))
  return Array.from({ length: PER_FILE }, (_, i) => ({ file, original, seed: SEED + 1000 * f + i, ...mutate(original, SEED + 1000 * f + i) }))
})

/** Run every reader over a mutant: its verdict, or the SstkitError that stopped opening it. Anything else is thrown (a crash). */
function readAll(bytes: Uint8Array): { opened: boolean; ok: boolean; largestRead: number } {
  const { src, largest } = source(bytes)
  let blob: ReturnType<typeof openBlobFile>
  try {
    blob = openBlobFile(src)
  } catch (e) {
    if (!(e instanceof SstkitError)) throw e
    expect(e.message).not.toContain('\n')
    return { opened: false, ok: false, largestRead: largest() }
  }
  blobFileStats(blob)
  try {
    for (const r of blobRecords(blob)) if (!r.blobCrcError) decompressBlobValue(blob.header.compression, r.value, r.valueOffset)
  } catch (e) {
    if (!(e instanceof SstkitError)) throw e
  }
  // recompress's walk: records measured under two settings, or one SstkitError naming the damage.
  try {
    sampleBlobFile(blob, defaultBlobSettings([CompressionType.LZ4, CompressionType.ZSTD]))
  } catch (e) {
    if (!(e instanceof SstkitError)) throw e
    expect(e.message).not.toContain('\n')
  }
  const v = verifyBlobFile(blob)
  for (const p of v.problems) expect(p.message).not.toContain('\n')
  return { opened: true, ok: v.ok, largestRead: largest() }
}

describe('fuzz: mutants of real blob files, in process', () => {
  it(`${mutants.length} mutants: no crash, no read past the file, every CRC-covered change found`, () => {
    const missed: string[] = []
    let covered = 0
    for (const m of mutants) {
      const r = readAll(m.bytes)
      expect(r.largestRead, `${m.file}:${m.seed} ${m.name}`).toBeLessThanOrEqual(m.bytes.length)
      const changed = m.bytes.length !== m.original.length || m.bytes.some((b, i) => b !== m.original[i])
      if (m.covered && changed) covered++
      if (m.covered && changed && r.opened && r.ok) missed.push(`${m.file}:${m.seed} ${m.name}`)
    }
    expect(missed).toEqual([])
    expect(covered).toBeGreaterThan(mutants.length / 2)
  })

  it('every single-bit flip after the header of one file is found', () => {
    const original = Uint8Array.from(readFileSync(join(ROOT, 'test/fixtures/blob/v11/000013.blob')))
    const missed: number[] = []
    for (let at = BLOB_HEADER_SIZE; at < original.length; at += 7) {
      const bytes = Uint8Array.from(original)
      bytes[at] ^= 0x04
      const r = readAll(bytes)
      if (r.opened && r.ok) missed.push(at)
    }
    expect(missed).toEqual([])
  })
})

describe('fuzz: mutants of real blob files, through the CLI', () => {
  const work = mkdtempSync(join(tmpdir(), 'sstkit-blob-fuzz-'))
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it('verify: exit 0, 1 or 2 as the library decides, one line per error, never a stack trace', () => {
    const picked = mutants.filter((_, i) => i % 23 === 0)
    const paths = picked.map((m, i) => {
      const path = join(work, `synthetic-mutant-${i}.blob`)
      writeFileSync(path, m.bytes)
      return path
    })
    const r = sstkit(['verify', ...paths, '--json'])
    const results = JSON.parse(r.stdout) as { file: string; ok?: boolean; error?: { exitCode: number } }[]
    expect(results).toHaveLength(paths.length)
    picked.forEach((m, i) => {
      const lib = readAll(m.bytes)
      const got = results[i]
      if (!lib.opened) expect(got.error?.exitCode, `${m.seed} ${m.name}`).toBe(2)
      else expect(got.ok, `${m.seed} ${m.name}`).toBe(lib.ok)
    })
    const expected = Math.max(...picked.map((m) => readAll(m.bytes)).map((x) => (!x.opened ? 2 : x.ok ? 0 : 1)))
    expect(r.status).toBe(expected)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    for (const line of r.stderr.split('\n').filter(Boolean)) expect(line).toMatch(/^sstkit: /)
  })
})
