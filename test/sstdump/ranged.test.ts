/**
 * Ranged scans of the drop-in (--from, --read_num): the seek goes through the
 * index's binary search (not a walk of every index entry), and the output is
 * that of the entry-by-entry path (the goldens and live tests compare it with
 * sst_dump itself).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { IndexBlockIter } from '../../src/format/index-block.js'
import { ROOT } from '../helpers.js'
import { runIn } from './harness.js'

const PARTITIONED = '--file=test/fixtures/real/index-partitioned.sst' // 400 entries, 40 data blocks, a partitioned index

afterEach(() => {
  vi.restoreAllMocks()
})

describe('sst-dump --from', () => {
  it('seeks: near the end of the file, a few index entries are visited, not every one before it', async () => {
    const next = vi.spyOn(IndexBlockIter.prototype, 'next')
    const r = await runIn(ROOT, [PARTITIONED, '--command=scan', '--from=key00000395', '--read_num=2'])
    expect(r.code).toBe(0)
    expect(r.stdout.toString()).toContain("'key00000395' seq:396, type:1 => ")
    expect(r.stdout.toString()).toContain("'key00000396' seq:397, type:1 => ")
    expect(next.mock.calls.length).toBeLessThan(8)
  })

  it('past the last key: nothing printed, no error', async () => {
    const r = await runIn(ROOT, [PARTITIONED, '--command=scan', '--from=zzz'])
    expect(r.code).toBe(0)
    expect(r.stderr.length).toBe(0)
    expect(r.stdout.toString().split('\n').at(-2)).toBe('from [7A7A7A] to []')
  })
})
