/**
 * sst_dump's scan lines, written by the fast path for plain entry types
 * (dumper.ts printPlainLine, sink.ts hex), against the installed sst_dump
 * 7.8.3 on a synthetic table made for the edges: NUL bytes in keys and values
 * (printf's %s stops there), every plain type, sequence numbers past 2^53
 * (printed by the general path), keys and values of every length around the
 * 16-byte SIMD step of the hex kernel.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { SST_DUMP, toolPresent } from '../helpers.js'
import { type Entry, writeSyntheticTable } from '../synthetic.js'
import { normalize, runIn } from './harness.js'

describe.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))('sst-dump scan lines = the installed sst_dump (synthetic)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-scan-lines-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'synthetic-scan-lines.sst')
  const entries: Entry[] = []
  const seqs = [0, 1, 255, 2 ** 24 - 1, 2 ** 24, 2 ** 32 + 7, 2 ** 53 - 1, 2 ** 53 + 2, 2 ** 56 - 2]
  const types = [1, 0, 2, 7]
  for (let i = 0; i < 120; i++) {
    const key = Buffer.from(`k${String(i).padStart(4, '0')}`.padEnd(5 + (i % 37), 'x'))
    if (i % 11 === 3) key[2] = 0
    const value = Buffer.alloc(i % 41, 0x41 + (i % 26))
    if (i % 7 === 2 && value.length > 3) value[value.length >> 1] = 0
    const seq = seqs[i % seqs.length]
    entries.push([encodeInternalKey(key, BigInt(seq), types[i % types.length]), value])
  }
  writeSyntheticTable(file, entries, { blockSize: 512 })

  it.each([[[]], [['--output_hex']]])('%s', async (extra: string[]) => {
    const args = [`--file=${file}`, '--command=scan', ...extra]
    const want = spawnSync(SST_DUMP as string, args, { maxBuffer: 64 << 20 })
    const got = await runIn(dir, args)
    expect(want.status).toBe(0)
    expect(normalize(got.stdout).toString('latin1')).toBe(normalize(want.stdout).toString('latin1'))
    expect(got.stderr.toString()).toBe(want.stderr.toString())
    expect(normalize(got.stdout).toString('latin1')).toContain('seq:9007199254740994')
  })
})
