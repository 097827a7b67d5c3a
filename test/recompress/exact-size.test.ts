/**
 * recompress reports the exact size of the file rewrite writes with the same
 * settings: both drive the same table writer.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sstkit } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-exact-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('recompress sizes equal rewrite sizes', () => {
  const cases: { name: string; recompress: string[]; rewrite: string[] }[] = [
    { name: 'zstd 3, own blocks', recompress: ['--levels', '3', '--dict', 'none', '--checksum', 'off'], rewrite: ['--level', '3', '--keep-blocks'] },
    {
      name: 'zstd 19 + train dictionary + checksum, 8 KiB blocks',
      recompress: ['--levels', '19', '--dict', 'train', '--checksum', 'on', '--block-size', '8192'],
      rewrite: ['--level', '19', '--dict', 'train', '--checksum', 'on', '--block-size', '8192'],
    },
    {
      name: 'zstd 1 + finalize, own blocks',
      recompress: ['--levels', '1', '--dict', 'finalize', '--checksum', 'off'],
      rewrite: ['--level', '1', '--dict', 'finalize', '--keep-blocks'],
    },
    {
      name: 'lz4 + raw dictionary, 4 KiB blocks',
      recompress: ['--types', 'lz4', '--dict', 'raw', '--block-size', '4096'],
      rewrite: ['--compression', 'lz4', '--dict', 'raw', '--block-size', '4096'],
    },
    { name: 'snappy, own blocks', recompress: ['--types', 'snappy'], rewrite: ['--compression', 'snappy', '--keep-blocks'] },
  ]
  it.each(cases)('$name', ({ name, recompress, rewrite }) => {
    const r = sstkit(['recompress', 'examples/sample.sst', ...recompress, '--json', '--jobs', '1'])
    expect(r.status, r.stderr).toBe(0)
    const results = JSON.parse(r.stdout).results
    expect(results.length).toBe(1)
    const out = join(dir, `${name.replace(/\W+/g, '-')}.sst`)
    const w = sstkit(['rewrite', 'examples/sample.sst', '-o', out, ...rewrite, '--json'])
    expect(w.status, w.stderr).toBe(0)
    expect(results[0].fileBytes).toBe(statSync(out).size)
    expect(results[0].dataBytes).toBe(JSON.parse(w.stdout).dataBytes)
  })
})
