/**
 * sst-dump's --command=check through verify's native kernel (src/sstdump/sequential.ts
 * countInBatches) prints, reports and exits exactly as without it: on the real fixtures, the
 * corrupt ones, and synthetic tables with damaged blocks (checksums fixed up and not), with and
 * without --verify_checksum. The entry-by-entry path is held to the real sst_dump elsewhere
 * (goldens.test.ts, live.test.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ChecksumType } from '../../src/codec/checksum.js'
import { CompressionType } from '../../src/codec/compression.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { nativeVerifyAbilities } from '../../src/verify/native.js'
import { plainWriterOptions } from '../../src/table/writer.js'
import { BAD, REAL, ROOT } from '../helpers.js'
import { damagedCopy, writeSyntheticTableWith } from '../synthetic.js'
import { runIn } from './harness.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-native-check-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The drop-in's check of `file`, with the kernel and without (SSTKIT_NO_NATIVE_VERIFY). */
async function bothWays(file: string, verify: boolean) {
  const args = [`--file=${file}`, '--command=check', ...(verify ? ['--verify_checksum'] : [])]
  const native = await runIn(ROOT, args)
  process.env.SSTKIT_NO_NATIVE_VERIFY = '1'
  try {
    const plain = await runIn(ROOT, args)
    expect(native.stdout.toString('latin1')).toBe(plain.stdout.toString('latin1'))
    expect(native.stderr.toString('latin1')).toBe(plain.stderr.toString('latin1'))
    expect(native.code).toBe(plain.code)
  } finally {
    delete process.env.SSTKIT_NO_NATIVE_VERIFY
  }
  return native
}

const enc = (s: string) => new TextEncoder().encode(s)
const entries = Array.from({ length: 1500 }, (_, i) => {
  const type = i % 5 === 0 ? ValueType.Deletion : ValueType.Value
  return [encodeInternalKey(enc(`key${String(i).padStart(6, '0')}`), 100_000 - i, type), enc(`value ${i} `.repeat(1 + (i % 9)))] as [Uint8Array, Uint8Array]
})

describe('sst-dump --command=check: the native kernel changes nothing but the time', () => {
  it('the kernel is available here, so these tests exercise it', () => {
    expect(nativeVerifyAbilities()).not.toBeNull()
  })

  it.each(readdirSync(REAL).filter((f) => f.endsWith('.sst')))('real/%s', async (name) => {
    for (const verify of [true, false]) await bothWays(join(REAL, name), verify)
  })

  it.each(readdirSync(BAD).filter((f) => f.endsWith('.sst')))('bad/%s', async (name) => {
    for (const verify of [true, false]) await bothWays(join(BAD, name), verify)
  })

  it('entry types ParseInternalKey rejects (3..6, 0x19, 0x1f: reported on stderr) among ones it accepts (0x0f, 0x18)', async () => {
    const types = [ValueType.Value, 3, 4, 5, 6, 0x0f, 0x18, 0x19, 0x1f, ValueType.Deletion]
    const mixed = entries.slice(0, 600).map(([k, v], i) => {
      const key = k.slice()
      if (i % 37 === 5) key[key.length - 8] = types[i % types.length]
      return [key, v] as [Uint8Array, Uint8Array]
    })
    for (const compression of [CompressionType.None, CompressionType.Snappy]) {
      const options = plainWriterOptions({ compressionType: compression, blockSize: 1024 })
      const path = writeSyntheticTableWith(join(dir, `synthetic-types-${compression}.sst`), mixed, options)
      const r = await bothWays(path, true)
      expect(r.stderr.toString('latin1')).toMatch(/^Corrupted Key: /m)
    }
  })

  it.each([CompressionType.None, CompressionType.Snappy])('damaged synthetic tables (compression %i)', async (compression) => {
    const options = plainWriterOptions({ compressionType: compression, checksumType: ChecksumType.CRC32c, blockSize: 1024, restartInterval: 4 })
    const clean = writeSyntheticTableWith(join(dir, `synthetic-clean-${compression}.sst`), entries, options)
    const r = await bothWays(clean, true)
    expect(r.code).toBe(0)
    let reported = 0
    for (let seed = 1; seed <= 24; seed++) {
      const path = damagedCopy(clean, join(dir, `synthetic-damaged-${compression}-${seed}.sst`), seed, 1 + (seed % 2), seed % 4 !== 0)
      for (const verify of [true, false]) if ((await bothWays(path, verify)).stderr.length > 0) reported++
    }
    expect(reported).toBeGreaterThan(10)
  })
})
