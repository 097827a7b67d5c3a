/**
 * Ranged scans of the drop-in (--from, --read_num): the seek goes through the
 * index's binary search (not a walk of every index entry), and whole blocks are
 * printed at once (readEntriesFrom) unless --to or --prefix needs each key
 * compared. Output, statuses and the --read_num count across files are those of
 * the entry-by-entry path (which the goldens and live tests hold to sst_dump).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { IndexBlockIter } from '../../src/format/index-block.js'
import { ROOT } from '../helpers.js'
import { runIn } from './harness.js'

const PARTITIONED = '--file=test/fixtures/real/index-partitioned.sst' // 400 entries, 40 data blocks, a partitioned index

afterEach(() => {
  vi.restoreAllMocks()
})

/** A --to past every key (keys in hex): the same entries, through the entry-by-entry path. */
const PAST_ALL = ['--input_key_hex', `--to=0x${'FF'.repeat(4096)}`]
const hexFrom = (args: readonly string[]): string[] =>
  args.map((a) => (a.startsWith('--from=') ? `--from=0x${Buffer.from(a.slice(7)).toString('hex').toUpperCase()}` : a))

const FILES = [
  'real/index-partitioned.sst',
  'real/entry-types.sst',
  'real/ingested-global-seqno.sst',
  'real/binary-keys.sst',
  'real/fv5-none.sst',
  'bad/synthetic-shared-too-long.sst',
  'bad/trailer-type-flip.sst',
  'bad/data-flip-none.sst',
]
const RANGES = [
  ['--read_num=1'],
  ['--read_num=10'],
  ['--read_num=15'],
  ['--from=key00000100', '--read_num=33'],
  ['--from=item0010'],
  ['--from=a', '--read_num=7'],
]

/** Output without the `from [..] to [..]` line, which shows the --to. */
const body = (b: Buffer): string =>
  b
    .toString('latin1')
    .split('\n')
    .filter((l) => !l.startsWith('from ['))
    .join('\n')

describe('sst-dump ranged scans: block at a time = entry by entry', () => {
  const cases = FILES.flatMap((f) =>
    RANGES.flatMap((r) =>
      [
        ['--command=scan', ...r],
        ['--command=scan', '--output_hex', ...r],
        ['--command=check', ...r],
      ].map((a) => [f, a] as const),
    ),
  )
  it.each(cases)('%s %j', async (file, args) => {
    const fast = await runIn(ROOT, [`--file=test/fixtures/${file}`, ...args])
    const slow = await runIn(ROOT, [`--file=test/fixtures/${file}`, ...hexFrom(args), ...PAST_ALL])
    expect(body(fast.stdout)).toBe(body(slow.stdout))
    expect(fast.stderr.toString('latin1')).toBe(slow.stderr.toString('latin1'))
    expect(fast.code).toBe(slow.code)
  })

  it('--read_num counts on across the files of a directory as the entry path does', async () => {
    for (const n of ['1', '5', '400', '401', '405']) {
      const args = ['--file=test/fixtures/real/index-partitioned.sst', '--file=test/fixtures/real/fv5-none.sst', '--command=scan', `--read_num=${n}`]
      const fast = await runIn(ROOT, args)
      const slow = await runIn(ROOT, [...args, ...PAST_ALL])
      expect(body(fast.stdout)).toBe(body(slow.stdout))
    }
  })
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
