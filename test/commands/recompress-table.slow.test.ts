/**
 * The `recompress` table a storage engineer reads, end to end through the CLI:
 * 100 columns by default, every column under --wide, exact bytes with --bytes
 * (equal to the JSON's), signed changes, timing noise marked and never ranked
 * on, and a verdict naming a setting of the table.
 */
import { describe, expect, it } from 'vitest'
import { fixturePath, sstkit } from '../helpers.js'

const SAMPLE = 'examples/sample.sst'
/** A small real file: every timing on it is far under 50 ms. */
const SMALL = fixturePath('fv5-zstd')
/** Labels as long as the matrix makes them: zstd's extreme levels, every dictionary, +checksum, three codecs. */
const LONG = ['--types', 'zstd,lz4hc,zlib', '--levels', '-131072,22,default', '--dict', 'none,raw,finalize']

function run(args: string[]) {
  const r = sstkit(['recompress', ...args, '--jobs', '2'])
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

const lines = (out: string) => out.split('\n').filter((l) => l !== '')
/** The body rows of a box table: cells between the vertical bars, trimmed. */
const rows = (out: string) =>
  lines(out)
    .filter((l) => l.startsWith('│'))
    .map((l) =>
      l
        .slice(1, -1)
        .split('│')
        .map((c) => c.trim()),
    )
/** Rows by their first cell, the header rows left out. */
const bySetting = (out: string) =>
  new Map(
    rows(out)
      .slice(2)
      .map((r) => [r[0], r]),
  )
const verdictOf = (out: string) => lines(out).find((l) => l.startsWith('verdict: '))

/** The --wide table's columns; CSV has them and the noise flags. */
const WIDE_COLUMNS = [
  'Type',
  'Level',
  'Dict',
  'Checksum',
  'Data bytes',
  'Dict bytes',
  'File bytes',
  'Ratio',
  'vs stored',
  'Compressed',
  'Rejected',
  'Comp MB/s',
  'Decomp MB/s',
  'Dict ms',
  'Write CPU ms',
  'Read CPU ms',
  'Write wall ms',
  'Read wall ms',
  'Marks',
]
const WALL_COLUMNS = ['Write wall ms', 'Read wall ms']

describe('recompress table: 100 columns by default', () => {
  it('the default matrix on the sample: every line fits, one Setting column, human sizes, signed changes, a verdict', () => {
    const out = run([SAMPLE])
    for (const l of lines(out)) expect(l.length, l).toBeLessThanOrEqual(100)
    const head = rows(out)[0]
    expect(head).toEqual(['Setting', 'Data +', 'vs', 'Ratio', 'Comp', 'Decomp', 'Marks'])
    const table = bySetting(out)
    expect(table.size).toBe(1 + 7 * 4 * 2)
    expect(table.get('stored (ZSTD)')![1]).toBe('53.8 KiB')
    for (const r of [...table.values()].slice(1)) expect(r[1]).toMatch(/^\d+(\.\d+)? KiB$/)
    // Both signs, as the issue writes them: zstd 1 without a dictionary grows the file, zstd 19 shrinks it.
    expect(table.get('zstd 1')![2]).toMatch(/^\+\d+\.\d%$/)
    expect(table.get('zstd 19 dict=finalize')![2]).toMatch(/^-\d+\.\d%$/)
    expect(table.get('zstd 19 dict=finalize')![6]).toContain('smallest')
    const verdict = verdictOf(out)
    expect(verdict).toBeDefined()
    const named = /^verdict: (.+?) — /.exec(verdict!)![1]
    expect(table.has(named)).toBe(true)
  })

  it('long labels: every line still fits and every setting keeps its whole label', () => {
    const out = run([SAMPLE, ...LONG])
    for (const l of lines(out)) expect(l.length, l).toBeLessThanOrEqual(100)
    const table = bySetting(out)
    for (const label of ['zstd -131072 dict=finalize +checksum', 'zstd 22 dict=raw +checksum', 'zstd dict=finalize', 'lz4hc dict=raw', 'zlib'])
      expect(table.has(label), label).toBe(true)
    const named = /^verdict: (.+?) — /.exec(verdictOf(out)!)![1]
    expect(table.has(named)).toBe(true)
  })

  it('--wide has every column, the default only the compact ones', () => {
    const args = [SAMPLE, '--levels', '3', '--dict', 'none,raw', '--checksum', 'off']
    const wide = rows(run([...args, '--wide']))[0]
    expect(wide).toEqual(WIDE_COLUMNS)
    const narrow = run(args)
    for (const h of ['Dict bytes', 'File bytes', 'Compressed', 'Rejected', 'Dict ms']) expect(narrow).not.toContain(h)
    expect(bySetting(narrow).has('zstd 3 dict=raw')).toBe(true)
  })

  it('--bytes prints the exact byte counts of the JSON, in the default and the wide table', () => {
    const args = [SAMPLE, '--levels', '1,19', '--dict', 'none,finalize', '--checksum', 'off']
    const json = JSON.parse(run([...args, '--json']))
    const table = bySetting(run([...args, '--bytes']))
    expect(table.get('stored (ZSTD)')![1]).toBe(String(json.stored.dataBytes + json.stored.dictBytes))
    const wide = rows(run([...args, '--bytes', '--wide'])).slice(1)
    for (const r of json.results) {
      const label = `zstd ${r.level}${r.dict === 'none' ? '' : ` dict=${r.dict}`}`
      expect(table.get(label)![1], label).toBe(String(r.dataBytes + r.dictBytes))
      const w = wide.find((c) => c[1] === String(r.level) && c[2] === r.dict)!
      expect(w.slice(4, 7)).toEqual([String(r.dataBytes), String(r.dictBytes), String(r.fileBytes)])
    }
  })

  it('--sample takes 10 or 10%, the same share (as advise does)', () => {
    const args = [SAMPLE, '--levels', '3', '--dict', 'none', '--checksum', 'off', '--json']
    const bare = JSON.parse(run([...args, '--sample', '10']))
    const pct = JSON.parse(run([...args, '--sample', '10%']))
    expect(pct.samplePercent).toBe(10)
    expect(pct.stored.dataBytes).toBe(bare.stored.dataBytes)
    expect(pct.results.map((r: { dataBytes: number }) => r.dataBytes)).toEqual(bare.results.map((r: { dataBytes: number }) => r.dataBytes))
  })

  it('CSV keeps every column with exact numbers, the noise flags as columns', () => {
    const args = [SAMPLE, '--levels', '3', '--dict', 'none,finalize', '--checksum', 'off']
    const json = JSON.parse(run([...args, '--json']))
    const csv = lines(run([...args, '--format', 'csv'])).map((l) => l.split(','))
    expect(csv[0]).toEqual([
      ...WIDE_COLUMNS.filter((c) => !WALL_COLUMNS.includes(c)),
      'Comp noisy',
      'Decomp noisy',
      'Decomp MB/s low',
      'Decomp MB/s high',
      'Round-trip blocks',
      'Block size',
      'Restart interval',
      'Values',
      'Index compression',
      'Format version',
      'Strategy',
      // Appended last: every older column keeps its position.
      ...WALL_COLUMNS,
    ])
    const finalize = csv.find((c) => c[2] === 'finalize')!
    const r = json.results.find((x: { dict: string }) => x.dict === 'finalize')
    expect(finalize.slice(4, 7)).toEqual([String(r.dataBytes), String(r.dictBytes), String(r.fileBytes)])
    // Noise flags come from each run's own timings, so two runs may differ: each is a boolean column.
    for (const flag of finalize.slice(17, 19)) expect(['true', 'false']).toContain(flag)
    // Read CPU (its own run's timing): ms to the hundredth.
    expect(finalize[15]).toMatch(/^\d+\.\d\d$/)
    expect(Number(finalize[15])).toBeGreaterThan(0)
    // A small file: every compressed block round-tripped, so the speed is exact and the interval's bounds are empty.
    expect(finalize.slice(19, 22)).toEqual(['', '', String(r.blocksCompressed)])
    // The file's own blocks, as stored (no restart interval or value layout of their own), index compressed, its format_version.
    expect(finalize.slice(22, 27)).toEqual(['own', '', '', 'on', String(r.formatVersion)])
    // No --compression-strategy (and zstd takes none): the Strategy column is empty.
    expect(finalize.slice(27, 28)).toEqual([''])
    // Write and read wall time (its own run's timing): ms to the hundredth.
    for (const wall of finalize.slice(28)) expect(wall).toMatch(/^\d+\.\d\d$/)
    expect(finalize.length).toBe(30)
    expect(r.roundTripBlocks).toBe(r.blocksCompressed)
    expect(r.decompressInterval).toBeNull()
    expect(csv.some((c) => c.join(',').includes('~') || c[0].startsWith('verdict'))).toBe(false)
  })
})

describe('recompress table: auto-skip', () => {
  it('fits 100 columns with its variants under each setting; --wide keeps a column per field', () => {
    const args = [SAMPLE, '--levels', '3,19', '--dict', 'none,finalize', '--auto-skip', 'rate,ratio']
    const out = run(args)
    for (const l of lines(out)) expect(l.length, l).toBeLessThanOrEqual(100)
    const names = rows(out)
      .slice(2)
      .map((r) => r[0])
    expect(names.slice(0, 3)).toEqual(['zstd 3', '↳ auto-skip rate', '↳ auto-skip ratio'])
    // A label too long for the room left goes on two lines at a space, never cut inside a word.
    expect(names.filter((n) => n !== '' && !n.startsWith('↳')).every((n) => /^zstd \d+( dict=finalize)?( \+checksum)?$|^\+checksum$/.test(n))).toBe(true)
    expect(rows(run([...args, '--wide']))[0].slice(0, 5)).toEqual(['Type', 'Level', 'Dict', 'Checksum', 'Auto-skip'])
  })
})

describe('recompress table: timing noise', () => {
  it('a file whose timings are all noise: every speed marked ~, a legend, no speed mark, a verdict by size alone', () => {
    const args = [SMALL, '--levels', '1,3,9', '--dict', 'none,finalize', '--checksum', 'off']
    const json = JSON.parse(run([...args, '--json']))
    for (const r of json.results) {
      expect(r.compressMs).toBeLessThan(50)
      expect(r.compressNoisy).toBe(true)
      expect(r.decompressNoisy).toBe(true)
      expect(r.marks).not.toContain('pareto')
      expect(r.marks).not.toContain('fastest-decompress')
    }
    expect(json.verdict.rankedOnSpeed).toBe(false)
    // By size: the pick is the smallest or within 1% of it (a simpler setting wins such a tie).
    const size = (r: { dataBytes: number; dictBytes: number }) => r.dataBytes + r.dictBytes
    const smallest = Math.min(...json.results.map(size))
    const pick = json.results.find(
      (r: { level: number; dict: string }) => r.level === json.verdict.recommended.level && r.dict === json.verdict.recommended.dict,
    )
    expect(size(pick)).toBeLessThanOrEqual(smallest * 1.01)

    const out = run(args)
    const table = bySetting(out)
    for (const [label, r] of table) {
      if (label.startsWith('stored')) continue
      expect(r[4], label).toMatch(/^~\d/)
      expect(r[5], label).toMatch(/^~\d/)
      expect(r[6], label).not.toMatch(/pareto|fastest-dec/)
    }
    expect(lines(out)).toContain('~ noise: under 50 ms measured (a larger file or --repeat N measures longer); not ranked on')
    const verdict = lines(out)
      .slice(lines(out).findIndex((l) => l.startsWith('verdict: ')))
      .join(' ')
      .replace(/\s+/g, ' ')
    expect(verdict).toContain('marked ~ are noise and were not weighed')
    expect(verdict).not.toMatch(/CPU/)
    expect(verdict).toContain(json.verdict.recommended.label)
  })

  it('with --repeat the legend names the spread rule', () => {
    const out = run([SMALL, '--levels', '3', '--dict', 'none', '--checksum', 'off', '--repeat', '3'])
    expect(lines(out)).toContain('~ noise: under 50 ms measured in all, or runs spread over 10%; not ranked on')
  })
})

describe('recompress table layouts: --block-size, --restart-interval, --index-compression, --format-version lists', () => {
  const SETTING = ['--levels', '3', '--dict', 'none', '--checksum', 'off']

  it('every combination a row, labelled by what varies; the JSON rows carry the layout, payloads and options', () => {
    const args = [SAMPLE, ...SETTING, '--block-size', '4KiB,16KiB', '--index-compression', 'both']
    const table = bySetting(run(args))
    expect([...table.keys()].filter((k) => !k.startsWith('stored'))).toEqual([
      'zstd 3 4KiB index=compressed',
      'zstd 3 4KiB index=raw',
      'zstd 3 16KiB index=compressed',
      'zstd 3 16KiB index=raw',
    ])
    const json = JSON.parse(run([...args, '--json']))
    expect(json.results.map((r: { blockSize: number; indexCompression: boolean }) => [r.blockSize, r.indexCompression])).toEqual([
      [4096, true],
      [4096, false],
      [16384, true],
      [16384, false],
    ])
    for (const r of json.results) {
      expect(r.dataPayloadBytes).toBe(r.dataBytes - 5 * r.blocks)
      expect(r.indexPayloadBytes).toBe(r.indexBytes - 5)
      expect(r.restartInterval).toBe(16)
      // The index compressed or raw is all that differs between the pairs: the same data blocks.
      expect(r.indexBlocksCompressed).toBe(r.indexCompression ? 1 : 0)
    }
    expect(json.results[0].dataBytes).toBe(json.results[1].dataBytes)
    expect(json.results[1].indexBytes).toBe(json.results[1].indexUncompressedBytes + 5)
    // Larger blocks compress better here: fewer, larger blocks.
    expect(json.results[2].dataBytes).toBeLessThan(json.results[0].dataBytes)
    expect(json.stored.dataPayloadBytes).toBe(json.stored.dataBytes - 5 * json.stored.blocks)
    expect(json.options).toEqual({ maxDictBytes: 16384, trainBytes: 1638400, maxDictBufferBytes: 64 << 20, maxCompressedBytesPerKb: 896 })
    expect(json.verdict.recommended.blockSize).toBeGreaterThan(0)
  })

  it('restart intervals and format_versions as lists and ranges', () => {
    const json = JSON.parse(run([SAMPLE, ...SETTING, '--block-size', '4096', '--restart-interval', '1,16', '--format-version', '4..5', '--json']))
    expect(json.results.map((r: { restartInterval: number; formatVersion: number }) => [r.restartInterval, r.formatVersion])).toEqual([
      [1, 4],
      [1, 5],
      [16, 4],
      [16, 5],
    ])
    // Every entry a restart point: more bytes than one in 16.
    expect(json.results[0].uncompressedBytes).toBeGreaterThan(json.results[2].uncompressedBytes)
  })

  it.each([
    [['--restart-interval', '4'], /--restart-interval re-encodes the data blocks: give --block-size/],
    [['--block-size', '4KiB', '--format-version', '8'], /format_version 8 is out of range \(2\.\.7\)/],
    [['--block-size', '4KiB', '--sample', '10'], /cannot be combined with --block-size/],
    [['--block-size', 'big'], /not a block size: "big"/],
  ])('%j is a usage error (exit 2, one line)', (flags, message) => {
    const r = sstkit(['recompress', SAMPLE, ...SETTING, ...flags])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
})
