/**
 * `advise` on databases as they are found: conflicting flags, OPTIONS files as RocksDB reads them,
 * tables without properties, LevelDB, names of any bytes, live files left out, blob files. Every
 * database here was written by a real writer (test/fixtures/found/README.md).
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { jsonNoteTexts, ROOT, sstkit, toolPresent } from '../helpers.js'
import { LDB } from '../db/ldb.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-found-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const EXAMPLE = join(ROOT, 'examples/db')

describe('conflicting flags are one usage line, exit 2', () => {
  it.each([
    [['--json', '--format', 'markdown'], '--json cannot be used together with --format'],
    [['--objective', 'size', '--max-bytes', '80%'], '--max-bytes cannot be used together with --objective'],
    [['--objective', 'speed', '--min-decompress-mbps', '500'], '--min-decompress-mbps cannot be used together with --objective'],
    [['--sample', '5%', '--time-budget', '10s'], '--time-budget cannot be used together with --sample'],
    [['--sample', '5%', '--precision', '1%'], '--precision cannot be used together with --sample'],
    [['--merge', '--seed', '3'], '--seed cannot be used together with --merge'],
    [['--merge', '--objective', 'size'], '--objective cannot be used together with --merge'],
    [['--wide', '--format', 'markdown'], '--wide cannot be used together with --format markdown'],
    [['--bytes', '--format', 'markdown'], '--bytes cannot be used together with --format markdown'],
    [['--bytes', '--json'], '--json cannot be used together with --bytes'],
  ])('%j', (args, message) => {
    const r = sstkit(['advise', EXAMPLE, ...args])
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(message)
  })

  it('a default beside its conflicting flag is no conflict', () => {
    const r = sstkit(['advise', join(FOUND, 'decimal-comma'), '--max-bytes', '90%', '--sample', '50%', '--types', 'lz4', '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})

const FOUND = join(ROOT, 'test/fixtures/found')
/** A small matrix: these tests are about what advise reads and says, not about the settings. */
const FEW = ['--types', 'lz4,zstd', '--levels', 'default', '--dict', 'none']

const runs = new Map<string, ReturnType<typeof sstkit>>()
/** `sstkit advise ARGS` with the small matrix; a run on a committed fixture is made once and shared by the tests that read it. */
function advise(args: string[]) {
  const key = JSON.stringify(args)
  const shared = args.some((a) => a.startsWith(FOUND)) && !args.includes('--report')
  if (shared && runs.has(key)) return runs.get(key)!
  const r = sstkit(['advise', ...args, ...FEW])
  if (shared) runs.set(key, r)
  return r
}

describe('OPTIONS files as RocksDB reads them', () => {
  it('a double with a decimal comma (written under de_DE) does not stop the advice: read as its writer reads it, and noted', () => {
    const options = readFileSync(join(FOUND, 'decimal-comma/OPTIONS-000007'), 'utf8').split('\n')
    const line = options.findIndex((l) => l.trim() === 'max_bytes_for_level_multiplier=10,000000') + 1
    expect(line).toBeGreaterThan(0)
    const r = advise([join(FOUND, 'decimal-comma'), '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    expect(a.columnFamilies.map((c) => c.levels.map((l) => l.level))).toEqual([[0, 1]])
    const file = join(FOUND, 'decimal-comma/OPTIONS-000007')
    expect(a.notes).toContainEqual({
      code: 'option-decimal-comma',
      file,
      line,
      key: 'max_bytes_for_level_multiplier',
      value: '10,000000',
      readAs: 10,
      text: `${file}:${line}: max_bytes_for_level_multiplier=10,000000 is written with a decimal comma (by a writer under a locale that writes one): read as 10`,
    })
  })

  it('a value advise needs that cannot be read is one line citing the value’s own line, exit 2; one it does not need is a note', () => {
    const copy = join(tmp, 'bad-options')
    cpSync(join(FOUND, 'decimal-comma'), copy, { recursive: true })
    const path = join(copy, 'OPTIONS-000007')
    const text = readFileSync(path, 'utf8')
    const lineOf = (key: string) => text.split('\n').findIndex((l) => l.trim().startsWith(`${key}=`)) + 1
    writeFileSync(path, text.replace(/num_levels=7/, 'num_levels=seven'))
    const bad = advise([copy])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toBe(`sstkit: ${path}:${lineOf('num_levels')}: num_levels: 'seven' is not a number\n`)
    const edited = text.replace(/block_restart_interval=16/, 'block_restart_interval=sixteen').replace('[DBOptions]', '[Experimental "x"]\n  a=b\n[DBOptions]')
    writeFileSync(path, edited)
    const experimental = edited.split('\n').indexOf('[Experimental "x"]') + 1
    const r = advise([copy, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    expect(a.notes).toContainEqual({
      code: 'options-section-skipped',
      file: path,
      line: experimental,
      section: '[Experimental "x"]',
      text: `${path}:${experimental}: section [Experimental "x"] is not one sstkit knows: skipped`,
    })
    // The value's own line in the file as edited (the section added above it moved it down).
    const restart = edited.split('\n').findIndex((l) => l.trim().startsWith('block_restart_interval=')) + 1
    const problem = `${path}:${restart}: block_restart_interval: 'sixteen' is not a number`
    expect(a.notes).toContainEqual({
      code: 'option-not-used',
      problem,
      default: '16',
      text: `${problem}; advise does not use it: RocksDB's default 16 stands in`,
    })
  })
})

/** Every character below U+0020 but the newline that ends a line (and none of DEL or C1). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the tests look for
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

/** The lines of a text or Markdown report outside its OPTIONS blocks (which hold names as RocksDB's OPTIONS files do). */
function outsideOptions(report: string): string[] {
  const lines = report.split('\n')
  const start = lines.findIndex((l) => /^#*\s*(RocksDB options|LevelDB option)/.test(l))
  return lines.slice(0, start < 0 ? lines.length : start)
}

describe('names of any bytes', () => {
  const db = join(FOUND, 'names')
  const NAMES = ['default', '\x01', '\n', '\t', 'transactions_by_account_hash', 'transactions_by_block_hash']

  it('JSON keeps the names as they are; an empty column family is listed as empty', () => {
    const a = JSON.parse(advise([db, '--json']).stdout) as Advice
    expect(a.columnFamilies.map((c) => c.name)).toEqual(NAMES)
    expect(a.source.emptyColumnFamilies).toEqual(['empty'])
  })

  it('text, Markdown and HTML: control bytes escaped (no row blanked), shortened names that stay apart, the empty column family listed', () => {
    const page = join(tmp, 'names.html')
    const r = advise([db, '--wide', '--report', page])
    expect(r.status).toBe(0)
    const lines = outsideOptions(r.stdout)
    for (const l of lines) expect(l, JSON.stringify(l)).not.toMatch(CONTROL)
    for (const name of ['\\x01', '\\x0a', '\\x09']) expect(lines.some((l) => l.startsWith(`│ ${name} `))).toBe(true)
    expect(r.stdout).toMatch(/^Column family "\\x0a"$/m)
    expect(lines.some((l) => /^│ empty +│ empty +│ +0 │/.test(l))).toBe(true)
    // The bars' labels, and the tables' names, are shortened: never two alike.
    const bars = lines.filter((l) => /^ {2}\S.*[█░▓].* → /.test(l)).map((l) => l.slice(0, 22).trim())
    expect(bars.length).toBe(NAMES.length)
    expect(new Set(bars).size).toBe(bars.length)
    const today = lines.slice(lines.indexOf('The database today'), lines.indexOf('Recommendation per level'))
    const cells = today.filter((l) => l.startsWith('│ transact')).map((l) => l.split('│')[1].trim())
    expect(cells).toHaveLength(2)
    expect(cells[0]).not.toBe(cells[1])

    const md = advise([db, '--format', 'markdown'])
    for (const l of outsideOptions(md.stdout)) expect(l, JSON.stringify(l)).not.toMatch(CONTROL)
    expect(md.stdout).toMatch(/^\| `\\x0a` \| L0 \| 1 \|/m)
    expect(md.stdout).toMatch(/^\| `empty` \| empty \| 0 \|/m)
    const html = readFileSync(page, 'utf8')
    const body = html.slice(0, html.indexOf('<section id="options">'))
    expect(body).not.toMatch(CONTROL)
    expect(body).toContain('<h2>Column family <code>\\x0a</code></h2>')
    expect(body).toContain('<td><code>empty</code></td><td>empty</td>')
  })

  it.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))(
    'the printed section headers are the OPTIONS file’s own lines; the OPTIONS file --write-options writes is one the real ldb opens the database with',
    () => {
      const copy = join(tmp, 'names-options')
      cpSync(db, copy, { recursive: true })
      const written = join(copy, 'OPTIONS-999999')
      // CPU allowed: every column family's options change, so each prints its section header.
      const r = advise([copy, '--write-options', written, '--max-compress-cpu-ratio', '1000'])
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      // RocksDB writes a newline in a name as \n and the bytes 0x01 and 0x09 as they are (EscapeOptionString).
      const headers = r.stdout.split('\n').filter((l) => l.startsWith('[CFOptions '))
      expect(headers).toEqual(NAMES.map((n) => `[CFOptions "${n === '\n' ? '\\n' : n}"]`))
      const today = readFileSync(join(db, 'OPTIONS-000019'), 'latin1').split('\n')
      for (const h of headers) expect(today).toContain(h)
      const sections = (text: string) => text.split('\n').filter((l) => l.startsWith('['))
      expect(sections(readFileSync(written, 'latin1'))).toEqual(sections(today.join('\n')))
      // ldb --try_load_options opens the database with every column family the newest OPTIONS file names:
      // a name it parsed differently ("n" for "\n") is a column family that does not exist, and the open fails.
      const scan = spawnSync(LDB!, [`--db=${copy}`, '--try_load_options', '--column_family=\n', 'scan', '--max_keys=1'], { encoding: 'latin1' })
      expect(scan.stderr + scan.stdout).toMatch(/^k000000 : /)
      expect(scan.status).toBe(0)
    },
  )
})

describe('names that are not UTF-8 (RocksDB 7.8.3: column families 0xff, 0xfe, "cao" 0xe9, "café")', () => {
  const db = join(FOUND, 'names-bytes')
  const NAMES = ['default', '\udcff', '\udcfe', 'cao\udce9', 'café']
  const TODAY = ['LZ4', 'ZSTD', 'Snappy', 'NoCompression', 'Zlib']

  it('JSON: each byte that is not UTF-8 as U+DC00 + byte, names kept apart, each matched to its own OPTIONS section', () => {
    const r = advise([db, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('"name": "\\udcff"')
    const a = JSON.parse(r.stdout) as Advice
    expect(a.columnFamilies.map((c) => c.name)).toEqual(NAMES)
    expect(a.columnFamilies.map((c) => c.levels[0].todayCompression)).toEqual(TODAY)
    // today's compression line comes from each one's own section (no section found: no "today" value)
    const todayOption = a.columnFamilies.map((c) => c.optionsChange?.find((o) => o.key === 'compression')?.today ?? null)
    expect(todayOption.filter((t) => t !== null).length).toBeGreaterThanOrEqual(3)
    expect(todayOption).not.toContain(undefined)
  })

  it.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))(
    'text shows those bytes as \\xNN; --write-options writes them as they are, and the real ldb opens the database through that file',
    () => {
      const copy = join(tmp, 'names-bytes-options')
      cpSync(db, copy, { recursive: true })
      const written = join(copy, 'OPTIONS-999999')
      const r = advise([copy, '--write-options', written])
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      expect(r.stdout).not.toContain('\ufffd')
      expect(r.stdout).toMatch(/^Column family "cao\\xe9"$/m)
      expect(r.stdout).toContain('[CFOptions "\\xff"]')
      expect(r.stdout).toContain("the name's bytes that are not UTF-8 are shown as \\xNN")
      const sections = (b: Buffer) =>
        b
          .toString('latin1')
          .split('\n')
          .filter((l) => l.startsWith('['))
      expect(sections(readFileSync(written))).toEqual(sections(readFileSync(join(db, 'OPTIONS-000015'))))
      // argv of bytes that are not UTF-8: Node passes strings as UTF-8, so the shell's printf makes the name.
      for (const printf of ['\\377', 'cao\\351']) {
        const scan = spawnSync('sh', ['-c', `exec "$0" --db="$1" --try_load_options --column_family="$(printf '${printf}')" scan --max_keys=1`, LDB!, copy], {
          encoding: 'latin1',
        })
        expect(scan.stderr + scan.stdout).toMatch(/^k000000 : /)
        expect(scan.status).toBe(0)
      }
    },
  )
})

describe('a LevelDB database (LevelDB 1.23: snappy, tables without a properties block)', () => {
  const db = join(FOUND, 'leveldb')
  const TYPES = ['--types', 'lz4,zstd,snappy,none', '--levels', 'default', '--dict', 'none']
  const leveldbRuns = new Map<string, ReturnType<typeof sstkit>>()
  const run = (args: string[]) => {
    const key = JSON.stringify(args)
    if (!leveldbRuns.has(key) || args.includes('--report')) leveldbRuns.set(key, sstkit(['advise', db, ...TYPES, ...args]))
    return leveldbRuns.get(key)!
  }

  it('says so; today from the blocks’ trailers, entries unknown (never 0); LevelDB’s one option, RocksDB’s as a migration', () => {
    const r = run(['--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    expect(a.source.engine).toBe('leveldb')
    const levels = a.columnFamilies[0].levels
    // L2: the text LevelDB compressed (blocks it did not shrink by 1/8 stay raw); L0: random bytes, every block raw.
    expect(levels.map((l) => [l.level, l.todayCompression, l.entries])).toEqual([
      [0, 'NoCompression', null],
      [2, 'Snappy', null],
    ])
    expect(a.leveldb?.compression).toBe('kSnappyCompression')
    expect(a.leveldb!.snappyBytes).toBeLessThan(a.leveldb!.noneBytes)
    expect(a.notes.map((n) => n.code)).toContain('leveldb-database')
    expect(jsonNoteTexts(a).join('\n')).toMatch(/a LevelDB database/)
  })

  it('text, Markdown and HTML: the LevelDB option first, the RocksDB options labelled as a migration', () => {
    const page = join(tmp, 'leveldb.html')
    const text = run(['--report', page]).stdout
    expect(text).not.toMatch(/unknown +│ +[\d.]+ KiB/)
    expect(text).toMatch(/│ L2 bottom │ +1 │ +[\d.]+ KiB │ unknown │ Snappy +│/)
    expect(text).toMatch(/^LevelDB option to set\n {2}options\.compression = kSnappyCompression: snappy saves/m)
    expect(text).not.toMatch(/^RocksDB options to set$/m)
    expect(text).toMatch(/^RocksDB options, for a migration to RocksDB \(a separate suggestion/m)
    expect(text.indexOf('LevelDB option to set')).toBeLessThan(text.indexOf('[CFOptions'))
    // Every line within 100 columns but the options block (printed verbatim for pasting).
    for (const l of text.slice(0, text.indexOf('[CFOptions')).split('\n')) expect(l.length, l).toBeLessThanOrEqual(100)
    const md = run(['--format', 'markdown']).stdout
    expect(md).toMatch(/^### LevelDB option to set\n\n- options\.compression = kSnappyCompression/m)
    expect(md).toMatch(/^### RocksDB options, for a migration to RocksDB/m)
    const html = readFileSync(page, 'utf8')
    expect(html).toMatch(/<h2>LevelDB option to set<\/h2>\n<p>options\.compression = kSnappyCompression/)
    expect(html.indexOf('id="leveldb"')).toBeLessThan(html.indexOf('id="options"'))
  })
})

describe('live files left out', () => {
  it('a MANIFEST cut short that lists nothing while tables lie on disk: one line, exit 1', () => {
    const r = advise([join(FOUND, 'manifest-cut')])
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(
      /^sstkit: \S*manifest-cut\/MANIFEST-000005: lists no live table file while 6 lie in the directory \(.*000020\.sst.*\): the MANIFEST may have been cut short; nothing to advise on\n$/,
    )
    // --json: the same line, and a document with the finding and the tables on disk
    const json = advise([join(FOUND, 'manifest-cut'), '--json'])
    expect(json.status).toBe(1)
    expect(json.stderr).toBe(r.stderr)
    const doc = JSON.parse(json.stdout) as Advice
    expect(doc.finding).toBe(r.stderr.slice('sstkit: '.length, -1))
    expect(doc.source.unlistedFiles.map((f) => f.slice(-10))).toEqual(['000020.sst', '000021.sst', '000022.sst', '000023.sst', '000024.sst', '000025.sst'])
  })

  it('every live file missing on disk, tables the MANIFEST does not list there: the finding names both, --json prints it as a document', () => {
    const copy = join(tmp, 'all-missing')
    cpSync(join(FOUND, 'decimal-comma'), copy, { recursive: true })
    const listed = readdirSync(copy).filter((f) => f.endsWith('.sst'))
    for (const f of listed) rmSync(join(copy, f))
    // a table written by another database, left where this MANIFEST lists nothing
    cpSync(join(FOUND, 'names', '000023.sst'), join(copy, '000099.sst'))
    const r = advise([copy, '--json'])
    expect(r.status).toBe(1)
    const line = `${copy}: every live table file the MANIFEST lists (${listed.length}) is missing on disk (the first: ${join(copy, listed[0])}); 1 table file(s) on disk it does not list (${join(copy, '000099.sst')}); nothing to advise on`
    expect(r.stderr).toBe(`sstkit: ${line}\n`)
    const doc = JSON.parse(r.stdout) as Advice
    expect(doc.finding).toBe(line)
    expect(doc.source.unlistedFiles).toEqual([join(copy, '000099.sst')])
    expect(doc.problems.map((p) => [p.file, p.message])).toEqual(
      listed.map((f) => [join(copy, f), 'live file the MANIFEST lists is missing on disk: left out']),
    )
  })

  it('a live file missing from the start is left out, and not counted as deleted during the run', () => {
    const copy = join(tmp, 'one-missing')
    cpSync(join(FOUND, 'names'), copy, { recursive: true })
    rmSync(join(copy, '000021.sst'))
    const r = advise([copy, '--json'])
    expect(r.status).toBe(1)
    const doc = JSON.parse(r.stdout) as Advice
    expect(doc.source.version?.changedDuringRun).toMatchObject({ deletedFiles: 0, addedFiles: 0 })
    expect(doc.source.unreadableColumnFamilies).toEqual([
      { name: '\x01', files: [{ file: join(copy, '000021.sst'), level: 0, problem: 'live file the MANIFEST lists is missing on disk: left out' }] },
    ])
  })

  it('every live file left out: one line, exit 1, no report', () => {
    const copy = join(tmp, 'all-damaged')
    cpSync(join(FOUND, 'decimal-comma'), copy, { recursive: true })
    for (const f of ['000009.sst', '000010.sst']) truncateSync(join(copy, f), 100)
    for (const format of [[], ['--json'], ['--format', 'markdown']]) {
      const r = advise([copy, ...format])
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(
        /^sstkit: every live file \(2\) was left out, nothing to advise on; the first, \S+\/0000(09|10)\.sst: not an SST file: [^\n]*\n$/,
      )
      if (format[0] !== '--json') {
        expect(r.stdout).toBe('')
        continue
      }
      // --json: a document with the finding, and the column family named with its unreadable tables
      const doc = JSON.parse(r.stdout) as Advice
      expect(doc.finding).toBe(r.stderr.slice('sstkit: '.length, -1))
      expect(doc.source.unreadableColumnFamilies?.map((c) => [c.name, c.files.map((f) => [f.file.slice(-10), f.level])])).toEqual([
        [
          'default',
          [
            ['000010.sst', 0],
            ['000009.sst', 1],
          ],
        ],
      ])
    }
  })

  it('a column family whose only live table is damaged is still listed (as ldb lists it): JSON, text, Markdown and HTML name its table unreadable', () => {
    const copy = join(tmp, 'only-table-damaged')
    cpSync(join(FOUND, 'names'), copy, { recursive: true })
    // 000021.sst is column family "\x01"'s one table (RocksDB 7.8.3 wrote it)
    truncateSync(join(copy, '000021.sst'), 100)
    const page = join(tmp, 'only-table-damaged.html')
    const r = advise([copy, '--json', '--report', page])
    expect(r.status).toBe(1)
    const doc = JSON.parse(r.stdout) as Advice
    expect(doc.columnFamilies.map((c) => c.name)).not.toContain('\x01')
    expect(doc.source.unreadableColumnFamilies).toEqual([
      { name: '\x01', files: [{ file: join(copy, '000021.sst'), level: 0, problem: expect.stringMatching(/^not an SST file: /) }] },
    ])
    const text = advise([copy])
    expect(text.stdout).toMatch(/^│ \\x01 +│ L0 +│ +1 │ +│ +│ unreadable +│ +│$/m)
    expect(advise([copy, '--format', 'markdown']).stdout).toMatch(/^\| `\\x01` \| L0 \| 1 \|( +\|){3} unreadable \|/m)
    expect(readFileSync(page, 'utf8')).toContain('<td><code>\\x01</code></td><td>L0</td><td class="num">1</td>')
  })

  it('a live file left out is named in the report itself: text, Markdown, HTML', () => {
    const copy = join(tmp, 'one-damaged')
    cpSync(join(FOUND, 'decimal-comma'), copy, { recursive: true })
    const damaged = join(copy, '000010.sst')
    truncateSync(damaged, 100)
    const page = join(tmp, 'one-damaged.html')
    const text = advise([copy, '--report', page])
    expect(text.status).toBe(1)
    // The database's own path, not that of the copy the run held (db/pin.ts).
    const named = damaged.replace(/[.]/g, '\\.')
    expect(text.stdout).toMatch(new RegExp(`^Left out \\(1 file: not in the advice\\)\\n- ${named}: not an SST file: `, 'm'))
    const md = advise([copy, '--format', 'markdown'])
    expect(md.stdout).toMatch(new RegExp(`^### Left out \\(1 file: not in the advice\\)\\n\\n- ${named}: not an SST file: `, 'm'))
    expect(readFileSync(page, 'utf8')).toMatch(
      new RegExp(`<section id="left-out">\\n<h2>Left out \\(1 file: not in the advice\\)</h2>\\n<ul class="notes"><li>${named}: not an SST file: `),
    )
  })

  it('a plain file that is not an SST is named in its one-line error', () => {
    const r = advise(['README.md', join(EXAMPLE, '000009.sst')])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/^sstkit: README\.md: not an SST file: bad magic number 0x[0-9a-f]+ in the last 8 bytes \(at offset \d+\)\n$/)
  })
})

describe('blob files (integrated BlobDB, RocksDB 7.8.3)', () => {
  const db = join(FOUND, 'blob')

  it('how many bytes of blob files each column family holds, and blob_compression_type advised on them', () => {
    const onDisk = readdirSync(db)
      .filter((f) => f.endsWith('.blob'))
      .map((f) => statSync(join(db, f)).size)
    expect(onDisk).toHaveLength(2)
    const a = JSON.parse(advise([db, '--json']).stdout) as Advice
    expect(a.source.blobFiles).toEqual([{ columnFamily: 'default', files: 2, bytes: onDisk[0] + onDisk[1], garbageBytes: 0 }])
    expect(a.blobs?.map((b) => [b.columnFamily, b.files, b.bytes, b.status])).toEqual([['default', 2, onDisk[0] + onDisk[1], 'advised']])
    const text = advise([db]).stdout
    expect(text).not.toMatch(/values stored in blob files are not in this advice/)
    expect(text.replace(/\n/g, ' ')).toMatch(/column family "default": 2 blob file\(s\), [\d.]+ KiB, no garbage; .*blob_compression_type=k\w+ \(today k\w+\)/)
  })
})

describe('the dynamic-level note (RocksDB 11.8.1: level_compaction_dynamic_level_bytes on)', () => {
  const NOTE = /level_compaction_dynamic_level_bytes is on: compression_per_level entry/

  it('only where a compression_per_level is printed', () => {
    const bottom = JSON.parse(advise([join(FOUND, 'v11-compacted'), '--json']).stdout) as Advice
    expect(bottom.columnFamilies.map((c) => [c.dynamicLevels, c.levels.map((l) => l.level)])).toEqual([[true, [6]]])
    expect(bottom.columnFamilies[0].options.compression_per_level).toBeUndefined()
    expect(bottom.notes.map((n) => n.code)).not.toContain('dynamic-level-bytes')
    expect(jsonNoteTexts(bottom).join('\n')).not.toMatch(NOTE)
    const layered = JSON.parse(advise([join(ROOT, 'test/fixtures/db/v11'), '--json']).stdout) as Advice
    expect(layered.columnFamilies.every((c) => c.dynamicLevels)).toBe(true)
    // events holds data on L0 only: its one entry would be what compression gives, so it has none.
    expect(layered.columnFamilies.filter((c) => c.options.compression_per_level !== undefined).map((c) => c.name)).toEqual(['default'])
    expect(layered.notes.map((n) => n.code)).toContain('dynamic-level-bytes')
    expect(jsonNoteTexts(layered).join('\n')).toMatch(NOTE)
  })
})
