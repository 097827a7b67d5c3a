import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  columnFamilySections,
  encodeOptionMap,
  encodeOptionsFile,
  encodeOptionsSection,
  escapeOptionString,
  parseOptionMap,
  parseOptionsFile,
  unescapeOptionString,
} from '../../src/format/options-file.js'
import { DB_FIXTURES } from '../db/ldb.js'
import { catchErr } from './catch-corruption.js'

const optionsFiles = ['layered', 'churn', 'v11'].flatMap((db) =>
  readdirSync(join(DB_FIXTURES, db))
    .filter((n) => n.startsWith('OPTIONS-'))
    .map((n) => join(DB_FIXTURES, db, n)),
)

const MINIMAL = `[Version]
  rocksdb_version=7.8.3
[DBOptions]
  create_if_missing=true
[CFOptions "default"]
  compression=kZSTD
`

describe('OPTIONS files written by RocksDB', () => {
  it('are the six of the fixture databases', () => expect(optionsFiles.length).toBe(6))

  it.each(optionsFiles)('%s parses and re-encodes to the same text', (path) => {
    const text = readFileSync(path, 'utf8')
    const file = parseOptionsFile(text, path)
    expect(encodeOptionsFile(file)).toBe(text)
    const titles = file.sections.map((s) => s.title)
    expect(titles.slice(0, 3)).toEqual(['Version', 'DBOptions', 'CFOptions'])
    // every statement of the file is in the structure
    const statements = text.split('\n').filter((l) => /^\s+\S+=/.test(l)).length
    expect(file.sections.reduce((n, s) => n + s.entries.size, 0)).toBe(statements)
  })

  it('layered OPTIONS-000017: per column family sections and nested compression options', () => {
    const file = parseOptionsFile(readFileSync(join(DB_FIXTURES, 'layered/OPTIONS-000017'), 'utf8'))
    const events = columnFamilySections(file, 'events')!
    expect(events.cf.entries.get('compression_per_level')).toBe('kNoCompression:kLZ4Compression:kZSTD')
    expect(events.table?.title).toBe('TableOptions/BlockBasedTable')
    expect(events.table?.entries.get('block_size')).toBe('8192')
    const opts = parseOptionMap(columnFamilySections(file, 'default')!.cf.entries.get('bottommost_compression_opts')!)
    expect(Object.fromEntries(opts)).toMatchObject({ enabled: 'true', max_dict_bytes: '4096', zstd_max_train_bytes: '32768', level: '3' })
    expect(columnFamilySections(file, 'nope')).toBeNull()
  })
})

describe('OPTIONS syntax', () => {
  it('comments, escaped #, spaces, empty values, first value of a repeated key wins', () => {
    const text = `# header\n[Version]\n  rocksdb_version=7.8.3 # trailing\n[DBOptions]\n  db_log_dir=\n  wal_dir = /a\\#b\n  wal_dir=/second\n[CFOptions "de\\:fault"]\n`
    const f = (() => {
      try {
        return parseOptionsFile(text)
      } catch (e) {
        return e as Error
      }
    })()
    // a CF section that is not "default" first is an error: check the rest on a valid variant
    expect((f as Error).message).toMatch(/the default column family must be the first CFOptions section/)
    const ok = parseOptionsFile(text.replace('de\\:fault', 'default'))
    expect(ok.sections[0].entries.get('rocksdb_version')).toBe('7.8.3')
    expect(ok.sections[1].entries.get('db_log_dir')).toBe('')
    expect(ok.sections[1].entries.get('wal_dir')).toBe('/a\\#b')
    expect(unescapeOptionString(ok.sections[1].entries.get('wal_dir')!)).toBe('/a#b')
  })

  it.each([
    [MINIMAL + 'novalue\n', "OPTIONS-9:7: a statement must have a '=': novalue"],
    [MINIMAL + '  =x\n', 'OPTIONS-9:7: a statement must have a variable name: =x'],
    ['x=1\n' + MINIMAL, "OPTIONS-9:1: statement 'x' before any [section]"],
    [MINIMAL + '[DBOptions]\n', 'OPTIONS-9:7: more than one [DBOptions] section'],
    [MINIMAL + '[CFOptions "default"]\n', 'OPTIONS-9:7: the default column family must be the first CFOptions section'],
    [MINIMAL + '[CFOptions "b"]\n[CFOptions "b"]\n', 'OPTIONS-9:8: column family "b" has two CFOptions sections'],
    [
      MINIMAL + '[TableOptions/BlockBasedTable "other"]\n',
      'OPTIONS-9:7: [TableOptions/BlockBasedTable] names no column family with a CFOptions section before it ("other")',
    ],
    [MINIMAL + '[CFOptions]\n', 'OPTIONS-9:7: [CFOptions] without a column family name'],
    ['[Version]\n[CFOptions "default"]\n', 'OPTIONS-9:3: no [DBOptions] section'],
    ['[DBOptions]\n', 'OPTIONS-9:2: no [CFOptions "default"] section'],
  ])('error with the line: %j', (text, message) => {
    const e = catchErr(() => parseOptionsFile(text, 'OPTIONS-9'))
    expect(e.message).toBe(message)
  })

  it('each statement keeps its own line; a repeated key keeps its first', () => {
    const f = parseOptionsFile(`${MINIMAL}  num_levels=4\n\n  compression=kLZ4Compression\n`)
    const cf = f.sections[2]
    expect(cf.line).toBe(5)
    expect([...cf.lines]).toEqual([
      ['compression', 6],
      ['num_levels', 7],
    ])
  })

  it('a section it does not know is skipped with its statements, and listed', () => {
    const text = `${MINIMAL}[TableOptions/BlockBasedTable "default"]\n  block_size=8192\n[Experimental "x"]\n  novalue\n  a=1\n[CFOptions "b"]\n  compression=kLZ4Compression\n`
    const f = parseOptionsFile(text, 'OPTIONS-9')
    expect(f.skipped).toEqual([{ title: '[Experimental "x"]', line: 9 }])
    expect(f.sections.map((s) => `${s.title} ${s.argument}`)).toEqual([
      'Version null',
      'DBOptions null',
      'CFOptions default',
      'TableOptions/BlockBasedTable default',
      'CFOptions b',
    ])
    expect(f.sections[4].entries.get('compression')).toBe('kLZ4Compression')
    expect(f.sections[3].entries.has('a')).toBe(false)
  })

  it('nested option maps: braces nest, trailing ";" allowed, errors say where', () => {
    const m = parseOptionMap('{a=1;b={c=2;d={e=3;};};f= x ;}')
    expect([...m]).toEqual([
      ['a', '1'],
      ['b', '{c=2;d={e=3;};}'],
      ['f', 'x'],
    ])
    expect([...parseOptionMap('k=v')]).toEqual([['k', 'v']])
    expect(encodeOptionMap(m)).toBe('{a=1;b={c=2;d={e=3;};};f=x;}')
    expect(catchErr(() => parseOptionMap('{a=1', 'compression_opts')).message).toBe('compression_opts: unbalanced braces in {a=1')
    expect(catchErr(() => parseOptionMap('{a={b=1;}', 'x')).message).toBe('x: unbalanced braces in the value of a')
    expect(catchErr(() => parseOptionMap('a=1;junk', 'x')).message).toBe("x: 'junk' has no '='")
  })

  it('escaping round-trips RocksDB special characters', () => {
    const raw = 'a\\b#c:d\ne\rf'
    expect(escapeOptionString(raw)).toBe('a\\\\b\\#c\\:d\\ne\\rf')
    expect(unescapeOptionString(escapeOptionString(raw))).toBe(raw)
  })

  it('encodes one section as RocksDB writes it', () => {
    expect(
      encodeOptionsSection({
        title: 'CFOptions',
        argument: 'events',
        entries: new Map([
          ['compression', 'kZSTD'],
          ['num_levels', '5'],
        ]),
      }),
    ).toBe('[CFOptions "events"]\n  compression=kZSTD\n  num_levels=5\n')
    const file = parseOptionsFile(MINIMAL)
    const withoutLines = (f: typeof file) => f.sections.map(({ line, lines, ...rest }) => rest)
    expect(withoutLines(parseOptionsFile(encodeOptionsFile(file)))).toEqual(withoutLines(file))
  })
})
