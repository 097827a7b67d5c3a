/**
 * Proof by the real RocksDB 7.8.3 `sst_dump` that rewritten files are valid SSTs holding the
 * same entries: for every output,
 *
 *   - `--command=verify --verify_checksum` says "The file is ok" (every block checksum,
 *     footer, index and properties as RocksDB reads them), nothing on stderr;
 *   - `--command=scan --output_hex` is byte-identical to the input's scan (the first two
 *     lines, a pointer and the file name, stripped). For format_version 6/7 inputs, which
 *     sst_dump 7.8.3 cannot open, the expected scan is rendered from sstkit's reading of the
 *     input, and the user keys and values are also checked against what RocksDB 9-11 read
 *     back from the input when it was written (`*.expected.jsonl`);
 *   - `--command=raw` shows the format_version we wrote in the footer and the same range
 *     deletions as the input (scan never prints them);
 *   - `--show_properties` shows the compression we wrote, the data block count and, for a
 *     partitioned index, the partition count, and the input's entry counts;
 *   - `rewrittenSize` (recompress's exact size) equals the size of the written file.
 *
 * Everything is written into one temp dir in `beforeAll`, and sst_dump runs 4 times per file.
 */
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTable, parseInternalKey, rewriteFile, rewrittenSize, type RewriteOptions, type WriteSummary, defaultRewriteOptions } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { COMPRESSION_DICT_BLOCK } from '../../src/format/metaindex.js'
import { fixturePath, fixtures, ROOT, SST_DUMP, sstkit, toolPresent } from '../helpers.js'

const C = CompressionType
const SAMPLE = join(ROOT, 'examples/sample.sst')

/** What sst_dump 7.8.3 prints as "SST file compression algo". */
const ALGO: Record<number, string> = {
  [C.None]: 'NoCompression',
  [C.Snappy]: 'Snappy',
  [C.Zlib]: 'Zlib',
  [C.BZip2]: 'BZip2',
  [C.LZ4]: 'LZ4',
  [C.LZ4HC]: 'LZ4HC',
  [C.ZSTD]: 'ZSTD',
}

function options(o: Partial<RewriteOptions>): RewriteOptions {
  return defaultRewriteOptions({ maxDictBufferBytes: 0, force: true, ...o })
}

interface Case {
  name: string
  input: string
  o: Partial<RewriteOptions>
  /** Run through the CLI with these flags instead of the library. */
  cli?: string[]
}

const cases: Case[] = []
const add = (name: string, input: string, o: Partial<RewriteOptions> = {}, cli?: string[]) => cases.push({ name, input, o, cli })
const real = (name: string) => fixturePath(name)

// Compression types and levels (sample.sst: 43 blocks, full Bloom filter; fv5-zstd: small).
for (const [t, levels] of [
  [C.None, [null]],
  [C.Snappy, [null]],
  [C.Zlib, [null, 1, 9]],
  [C.BZip2, [null, 1]],
  [C.LZ4, [null, 1]],
  [C.LZ4HC, [null, 4, 12]],
  [C.ZSTD, [null, -5, 1, 19]],
] as [number, (number | null)[]][]) {
  for (const level of levels) add(`${ALGO[t]} level ${level ?? 'default'}`, SAMPLE, { compressionType: t, level })
  add(`${ALGO[t]} from fv5-zstd`, real('fv5-zstd'), { compressionType: t })
}
// Dictionaries, zstd frame checksum.
for (const dict of ['raw', 'finalize', 'train'] as const) {
  add(`zstd dict ${dict}`, SAMPLE, { dict })
  add(`zstd dict ${dict} + frame checksum`, SAMPLE, { dict, zstdChecksum: true, level: 19 })
}
add('zstd frame checksum, no dict', SAMPLE, { zstdChecksum: true })
add('zstd dict train, 4 KiB dict, 8 KiB buffer limit', SAMPLE, { dict: 'train', maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 8192 })
add('lz4 dict raw', SAMPLE, { compressionType: C.LZ4, dict: 'raw' })
add('lz4hc dict raw', SAMPLE, { compressionType: C.LZ4HC, dict: 'raw' })
add('zlib dict raw', SAMPLE, { compressionType: C.Zlib, dict: 'raw' })
add('zstd dict from zstd-dict-trained input, re-trained', real('zstd-dict-trained'), { dict: 'train' })
add('zstd-dict-raw input to no dictionary', real('zstd-dict-raw'), { dict: 'none' })
// External dictionary files, through the CLI's --dict FILE (zstd-format and raw content).
add('external zstd dictionary file (CLI)', SAMPLE, { dict: 'none' }, ['--compression', 'zstd', '--dict', '@ZDICT'])
add('external zstd dictionary file + checksum (CLI)', real('fv5-zstd'), { dict: 'none' }, [
  '--compression',
  'zstd',
  '--dict',
  '@ZDICT',
  '--checksum',
  'on',
  '--level',
  '7',
])
add('external raw dictionary file, lz4 (CLI)', SAMPLE, { dict: 'none' }, ['--compression', 'lz4', '--dict', '@RAWDICT'])
// format_version 2..5 and checksum types.
const CHECKSUMS = ['none', 'crc32c', 'xxhash', 'xxhash64', 'xxh3']
for (const fv of [2, 3, 4, 5]) {
  add(`fv${fv} zstd`, SAMPLE, { formatVersion: fv })
  add(`fv${fv} snappy, restart interval 4`, real('index-restart4'), { formatVersion: fv, compressionType: C.Snappy, restartInterval: 4 })
  for (const [type, ck] of CHECKSUMS.entries()) {
    add(`fv${fv} ${ck} checksums`, real('fv5-checksum-xxh3'), { formatVersion: fv, checksumType: type, compressionType: fv % 2 ? C.LZ4 : C.Zlib })
  }
  add(`fv${fv} partitioned index`, SAMPLE, { formatVersion: fv, index: 'partitioned', blockSize: 512, metadataBlockSize: 256 })
}
add('partitioned index, zstd dict finalize', SAMPLE, { index: 'partitioned', blockSize: 1024, metadataBlockSize: 512, dict: 'finalize' })
add('partitioned index from a partitioned input', real('index-partitioned'), { index: 'partitioned', blockSize: 512, metadataBlockSize: 128 })
// Block sizes and restart intervals.
for (const bs of [64, 256, 1024, 16384, 65536]) add(`block size ${bs}`, SAMPLE, { blockSize: bs, compressionType: bs < 1000 ? C.None : C.ZSTD })
for (const ri of [1, 2, 64]) add(`restart interval ${ri}`, SAMPLE, { restartInterval: ri })
// --keep-blocks: the input's data block boundaries, recompressed.
add('keep blocks, zstd dict train', SAMPLE, { keepBlocks: true, dict: 'train' })
add('keep blocks, entry-types to lz4 fv3', real('entry-types'), { keepBlocks: true, compressionType: C.LZ4, formatVersion: 3 })
add('keep blocks, fv7 input to fv5 zlib', real('v11-fv7-zstd-dict'), { keepBlocks: true, compressionType: C.Zlib, formatVersion: 5 })
add('big value, 256-byte blocks', real('big-value'), { blockSize: 256, compressionType: C.LZ4 })
// Entry kinds and special inputs.
for (const name of [
  'entry-types', // deletions, single deletions, merges, range deletions (overlapping), versions
  'many-versions',
  'sstfilewriter-mixed',
  'ingested-global-seqno', // global seqno in the properties, entries stored with seq 0
  'udt-u64ts', // user-defined timestamps comparator
  'wide-columns',
  'binary-keys',
  'empty-values',
  'long-prefix',
  'data-block-hash',
  'index-hash',
  'index-first-key',
  'index-partitioned',
  'filter-legacy-bloom',
  'filter-fastbloom',
  'filter-ribbon',
  'filter-prefix',
]) {
  add(`${name} (defaults)`, real(name))
  add(`${name} to lz4 fv3, 1 KiB blocks`, real(name), { compressionType: C.LZ4, formatVersion: 3, blockSize: 1024 })
}
add('entry-types partitioned, fv2', real('entry-types'), {
  index: 'partitioned',
  blockSize: 512,
  metadataBlockSize: 128,
  formatVersion: 2,
  compressionType: C.Snappy,
})
add('ingested-global-seqno, zstd dict', real('ingested-global-seqno'), { dict: 'raw', formatVersion: 4 })
// format_version 0/1 inputs (default output format_version 5).
for (const f of fixtures().filter((x) => x.formatVersion <= 1)) add(`${f.name} (fv${f.formatVersion} input)`, real(f.name), { compressionType: C.Snappy })
add('fv0-zlib keeping zlib', real('fv0-zlib'), { compressionType: C.Zlib })
add('fv1-bzip2 keeping bzip2', real('fv1-bzip2'), { compressionType: C.BZip2 })
add('fv1-lz4hc keeping lz4hc, fv2', real('fv1-lz4hc'), { compressionType: C.LZ4HC, formatVersion: 2 })
// format_version 6/7 inputs (from RocksDB 9.7, 10.5, 11.8) down to 5.
for (const f of fixtures().filter((x) => x.formatVersion >= 6)) {
  add(`${f.name} to fv5`, real(f.name), { formatVersion: 5 })
  add(`${f.name} to fv4 zstd dict train`, real(f.name), { formatVersion: 4, dict: 'train', checksumType: 1 })
}

interface Outcome {
  out: string
  error?: string
  summary?: WriteSummary
  estimate?: number
  verify?: { stdout: string; stderr: string }
  scan?: string
  scanErr?: string
  props?: string
  raw?: string
}

function runSstDump(args: string[]): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const p = spawn(SST_DUMP!, args)
    const out: Buffer[] = []
    const err: Buffer[] = []
    p.stdout.on('data', (d: Buffer) => out.push(d))
    p.stderr.on('data', (d: Buffer) => err.push(d))
    p.on('error', reject)
    p.on('close', (status) => resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), status }))
  })
}

/** Scan output without the pointer line and the "Process <file>" line. */
function stripScan(s: string): string {
  return s
    .split('\n')
    .filter((l) => !/^options\.env is 0x/.test(l) && !/^Process /.test(l))
    .join('\n')
}

const hexUpper = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase()

/** sst_dump's scan lines for a table, rendered from sstkit's reader (global seqno applied as sst_dump does). */
function renderScan(file: string): string[] {
  const t = openTable(file)
  try {
    const lines: string[] = []
    const it = t.iterator()
    for (it.seekToFirst(); it.valid; it.next()) {
      const p = parseInternalKey(it.key)
      lines.push(`'${hexUpper(p.userKey)}' seq:${p.seq}, type:${p.type} => ${hexUpper(it.value)}`)
    }
    return lines
  } finally {
    t.close()
  }
}

const ENTRY = /^'([0-9A-F]*)' seq:(\d+), type:(\d+) => ([0-9A-F]*)$/

function rangeDeletions(raw: string): string {
  const i = raw.indexOf('Range deletions:')
  if (i < 0) return ''
  const rest = raw.slice(i)
  const end = rest.search(/\n\n|\n-{38}\n {2}# data blocks/)
  return end < 0 ? rest : rest.slice(0, end)
}

function prop(props: string, label: string): string | undefined {
  const line = props.split('\n').find((l) => l.startsWith(`  ${label}: `))
  return line?.slice(label.length + 4)
}

describe.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))('rewritten files are read by the real sst_dump 7.8.3', () => {
  let dir: string
  const outcomes = new Map<string, Outcome>()
  const inputScans = new Map<string, { scan: string; stderr: string; raw: string; props: string }>()

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-rewrite-sstdump-'))
    // Dictionary files for --dict FILE: the zstd dictionary of a real file, and raw bytes.
    const t = openTable(real('zstd-dict-trained'))
    const h = t.metaindexEntries.find((e) => e.name === COMPRESSION_DICT_BLOCK)!.handle
    const zdict = join(dir, 'trained.zdict')
    writeFileSync(zdict, t.readBlock(h, 'dictionary'))
    t.close()
    const rawDict = join(dir, 'raw.dict')
    writeFileSync(rawDict, readFileSync(SAMPLE).subarray(0, 8192))

    cases.forEach((c, i) => {
      const out = join(dir, `out-${String(i).padStart(3, '0')}.sst`)
      const o: Outcome = { out }
      outcomes.set(c.name, o)
      try {
        if (c.cli) {
          const args = c.cli.map((a) => (a === '@ZDICT' ? zdict : a === '@RAWDICT' ? rawDict : a))
          const r = sstkit(['rewrite', c.input, '-o', out, ...args, '--json'])
          if (r.status !== 0) throw new Error(`sstkit rewrite exit ${r.status}: ${r.stderr}`)
          o.summary = JSON.parse(r.stdout) as WriteSummary
          const dictionary = readFileSync(args[args.indexOf('--dict') + 1])
          const type = { zstd: C.ZSTD, lz4: C.LZ4 }[args[args.indexOf('--compression') + 1]]!
          const level = args.includes('--level') ? Number(args[args.indexOf('--level') + 1]) : null
          // The options the CLI used (its --max-dict-buffer-bytes default is 64 MiB), for the checks below.
          Object.assign(c.o, {
            dictionary: new Uint8Array(dictionary),
            compressionType: type,
            zstdChecksum: args.includes('on'),
            level,
            maxDictBufferBytes: 64 * 1024 * 1024,
          })
        } else {
          o.summary = rewriteFile(c.input, out, options(c.o))
        }
        const { verify: _v, force: _f, ...sizeOpts } = options(c.o)
        o.estimate = rewrittenSize(c.input, sizeOpts).fileSize
      } catch (e) {
        o.error = (e as Error).message
      }
    })

    // sst_dump, two at a time (2 cores): inputs once each, then every output.
    const inputs = [...new Set(cases.map((c) => c.input))]
    const jobs: (() => Promise<void>)[] = []
    for (const input of inputs) {
      jobs.push(async () => {
        const copy = join(dir, `in-${basename(input)}`)
        copyFileSync(input, copy) // --command=raw writes <file>_dump.txt next to the file
        const scan = await runSstDump([`--file=${copy}`, '--command=scan', '--output_hex'])
        const props = await runSstDump([`--file=${copy}`, '--show_properties', '--command=none'])
        await runSstDump([`--file=${copy}`, '--command=raw'])
        const dump = copy.replace(/\.sst$/, '_dump.txt')
        inputScans.set(input, {
          scan: stripScan(scan.stdout),
          stderr: scan.stderr,
          props: props.stdout,
          raw: existsSync(dump) ? readFileSync(dump, 'utf8') : '',
        })
      })
    }
    for (const o of outcomes.values()) {
      if (o.error) continue
      jobs.push(async () => {
        const v = await runSstDump([`--file=${o.out}`, '--command=verify', '--verify_checksum'])
        o.verify = { stdout: v.stdout, stderr: v.stderr }
        const s = await runSstDump([`--file=${o.out}`, '--command=scan', '--output_hex'])
        o.scan = stripScan(s.stdout)
        o.scanErr = s.stderr
        o.props = (await runSstDump([`--file=${o.out}`, '--show_properties', '--command=none'])).stdout
        await runSstDump([`--file=${o.out}`, '--command=raw'])
        o.raw = readFileSync(o.out.replace(/\.sst$/, '_dump.txt'), 'utf8')
      })
    }
    const worker = async () => {
      for (let job = jobs.shift(); job; job = jobs.shift()) await job()
    }
    await Promise.all([worker(), worker()])
  }, 120_000)

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('renders scan lines exactly as sst_dump prints them (checked on real fv5 files)', () => {
    for (const name of ['entry-types', 'ingested-global-seqno', 'binary-keys']) {
      const r = spawnSync(SST_DUMP!, [`--file=${real(name)}`, '--command=scan', '--output_hex'], { encoding: 'utf8' })
      expect(r.stdout.split('\n').filter((l) => ENTRY.test(l))).toEqual(renderScan(real(name)))
    }
  })

  it('sst_dump 7.8.3 opens the u64ts-comparator input itself (its comparator is built in)', () => {
    const s = inputScans.get(real('udt-u64ts'))!
    expect(s.stderr).toBe('')
    expect(s.scan.split('\n').filter((l) => ENTRY.test(l)).length).toBeGreaterThan(100)
    expect(s.props).toContain('comparator name: leveldb.BytewiseComparator.u64ts')
  })

  for (const c of cases) {
    it(c.name, () => {
      const o = outcomes.get(c.name)!
      expect(o.error, 'rewrite failed').toBeUndefined()
      const o2 = options(c.o)
      const input = openTable(c.input)
      const inputFv = input.formatVersion
      const inputEntries = input.properties.known.get('rocksdb.num.entries')
      const inputRangeDels = input.properties.known.get('rocksdb.num.range-deletions') ?? 0
      input.close()
      const fv = c.o.formatVersion ?? (inputFv >= 2 ? inputFv : 5)

      // verify --verify_checksum
      expect(o.verify!.stderr).toBe('')
      expect(o.verify!.stdout).toMatch(/^The file is ok$/m)

      // scan --output_hex
      expect(o.scanErr).toBe('')
      const outLines = o.scan!.split('\n').filter((l) => ENTRY.test(l))
      if (inputFv <= 5) {
        const s = inputScans.get(c.input)!
        expect(s.stderr).toBe('')
        expect(o.scan).toBe(s.scan)
      } else {
        expect(outLines).toEqual(renderScan(c.input))
        // ... and the user keys and values are what RocksDB itself read from the input.
        const rocks = readFileSync(c.input.replace(/\.sst$/, '.expected.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { key: string; value: string; valueInBlob?: boolean })
        expect(outLines).toHaveLength(rocks.length)
        rocks.forEach((e, i) => {
          const [, key, , type, value] = ENTRY.exec(outLines[i])!
          expect(key).toBe(e.key.toUpperCase())
          if (e.valueInBlob) expect(type).toBe('17')
          else expect(value).toBe(e.value.toUpperCase())
        })
      }
      expect(outLines.length).toBeGreaterThan(0)

      // raw: footer format_version, range deletions
      expect(o.raw).toMatch(new RegExp(`^  format version: ${fv}$`, 'm'))
      if (inputFv <= 5) expect(rangeDeletions(o.raw!)).toBe(rangeDeletions(inputScans.get(c.input)!.raw))
      if (inputRangeDels)
        expect(
          rangeDeletions(o.raw!)
            .split('\n')
            .filter((l) => l.startsWith('  HEX')).length,
        ).toBeGreaterThan(0)

      // --show_properties
      const p = o.props!
      const s = o.summary!
      expect(prop(p, 'SST file compression algo')).toBe(ALGO[o2.compressionType])
      expect(prop(p, '# data blocks')).toBe(String(s.dataBlocks))
      expect(prop(p, '# entries')).toBe(String(inputEntries))
      expect(prop(p, '# range deletions')).toBe(String(inputRangeDels))
      const indexLine = p.split('\n').find((l) => l.startsWith('  index block size'))!
      expect(indexLine).toContain(`delta-value? ${fv >= 4 ? 1 : 0}`)
      if (o2.index === 'partitioned') {
        expect(prop(p, '# index partitions')).toBe(String(s.indexPartitions))
        expect(s.indexPartitions).toBeGreaterThan(1)
      } else expect(prop(p, '# index partitions')).toBeUndefined()
      const copts = prop(p, 'SST file compression options')!
      expect(copts).toContain(`level=${o2.level ?? 32767};`)
      const dictOn = o2.dict !== 'none' || o2.dictionary !== undefined
      expect(copts).toContain(`max_dict_bytes=${dictOn ? o2.maxDictBytes : 0};`)
      expect(s.fileSize).toBe(statSync(o.out).size)

      // recompress's exact size = the file rewrite wrote.
      expect(o.estimate).toBe(statSync(o.out).size)
    })
  }
})

const LDB = ['/usr/bin/ldb', '/usr/local/bin/ldb'].find((p) => existsSync(p)) ?? null

/**
 * RocksDB 7.8.3 `ldb ingest_extern_sst` (DB::IngestExternalFile, which checks the external
 * file's version and seqno properties, key range and blocks) takes a rewritten SstFileWriter
 * file, and the DB then reads exactly what it reads after ingesting the original.
 * (An already-ingested file, like `ingested-global-seqno`, is refused by RocksDB itself — the
 * original as much as the rewrite: "have global seqno property with value ...".)
 */
describe.runIf(
  toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools') && toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'),
)('rewritten SstFileWriter files are ingested by ldb 7.8.3', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-rewrite-ldb-'))
  })
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const ldb = (args: string[]) => spawnSync(LDB!, args, { encoding: 'utf8', maxBuffer: 64 << 20 })

  /** Ingest `file` into a new DB (holding one unrelated key) and return what the DB reads. */
  function ingest(file: string, name: string): { ingest: string; scan: string; idump: string } {
    const db = join(dir, name)
    expect(ldb([`--db=${db}`, '--create_if_missing', 'put', 'zz-other-key', 'v']).status).toBe(0)
    const r = ldb([`--db=${db}`, 'ingest_extern_sst', file, '--allow_global_seqno'])
    return { ingest: r.stdout + r.stderr, scan: ldb([`--db=${db}`, 'scan', '--hex']).stdout, idump: ldb([`--db=${db}`, 'idump', '--hex']).stdout }
  }

  it('three settings; scan and internal dump equal those of the original', () => {
    const original = join(dir, 'original.sst')
    copyFileSync(real('sstfilewriter-mixed'), original) // ingestion may write into the file
    const want = ingest(original, 'db-original')
    expect(want.ingest).toContain('external SST files ingested')
    expect(want.scan.split('\n').length).toBeGreaterThan(100)
    const settings: Partial<RewriteOptions>[] = [
      { compressionType: C.ZSTD, dict: 'raw', blockSize: 1024 },
      { compressionType: C.LZ4, formatVersion: 2, checksumType: 2 },
      { compressionType: C.Snappy, formatVersion: 4, index: 'partitioned', blockSize: 512, metadataBlockSize: 128 },
    ]
    settings.forEach((o, i) => {
      const out = join(dir, `rewritten-${i}.sst`)
      rewriteFile(real('sstfilewriter-mixed'), out, options(o))
      const got = ingest(out, `db-${i}`)
      expect(got.ingest).toContain('external SST files ingested')
      expect(got.scan).toBe(want.scan)
      expect(got.idump).toBe(want.idump)
    })
  })
})
