/** Live comparison with the installed sst_dump (7.8.3), when there is one. */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, SST_DUMP, toolPresent } from '../helpers.js'
import { normalize, runIn } from './harness.js'

function real(cwd: string, args: string[]): { code: number; stdout: Buffer; stderr: Buffer } {
  const r = spawnSync(SST_DUMP!, args, { cwd, maxBuffer: 256 * 1024 * 1024 })
  return { code: r.status ?? -1, stdout: normalize(r.stdout), stderr: r.stderr }
}

const CASES: string[][] = [
  ['--file=test/fixtures/real/entry-types.sst', '--command=scan', '--from=item0010', '--to=item0100'],
  ['--file=test/fixtures/real/index-partitioned.sst', '--command=scan', '--output_hex', '--read_num=50', '--from=key000200'],
  ['--file=test/fixtures/real/filter-prefix.sst', '--show_properties'],
  ['--file=test/fixtures/real/ingested-global-seqno.sst', '--command=scan', '--prefix=ext0001'],
  ['--file=test/fixtures/real/zstd-dict-trained.sst', '--command=verify'],
  ['--file=test/fixtures/bad/trailer-type-flip.sst', '--command=scan', '--verify_checksum', '--output_hex'],
  ['--file=test/fixtures/bad/synthetic-shared-too-long.sst', '--command=scan'],
  ['--file=test/fixtures/bad/metaindex-flip.sst', '--show_properties'],
  ['--file=test/fixtures/real/fv0-zlib.sst', '--command=identify'],
  ['--parse_internal_key=0x6B65790100000000000000'],
]

describe.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))('live: sstkit sst-dump vs the installed sst_dump', () => {
  it.each(CASES.map((c) => [c.join(' '), c] as const))('%s', async (_n, args) => {
    const want = real(ROOT, args)
    const got = await runIn(ROOT, args)
    const unordered = false
    const text = (b: Buffer): string => (unordered ? b.toString('latin1').split('\n').sort().join('\n') : b.toString('latin1'))
    expect(text(normalize(got.stdout))).toBe(text(want.stdout))
    expect(text(got.stderr)).toBe(text(want.stderr))
    expect(got.code).toBe(want.code)
  })

  it('raw: the same _dump.txt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sstkit-live-raw-'))
    try {
      for (const who of ['real', 'ours']) {
        cpSync(join(ROOT, 'test/fixtures/real/index-partitioned.sst'), join(dir, `${who}.sst`))
      }
      const r = real(dir, ['--file=real.sst', '--command=raw'])
      expect(r.code).toBe(0)
      const o = await runIn(dir, ['--file=ours.sst', '--command=raw'])
      expect(o.code).toBe(0)
      expect(readFileSync(join(dir, 'ours_dump.txt')).equals(readFileSync(join(dir, 'real_dump.txt')))).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
