/**
 * RocksDB OPTIONS-NNNNNN files (`options/options_parser.cc`, `util/string_util.cc`), both
 * directions. An INI-like text RocksDB writes next to every MANIFEST:
 *
 *   # comment                      ("#" starts a comment unless escaped as "\#")
 *   [Version]
 *     rocksdb_version=7.8.3
 *   [DBOptions]
 *     key=value
 *   [CFOptions "default"]          (the default column family's section comes first)
 *     compression_opts={level=3;max_dict_bytes=0;...}
 *   [TableOptions/BlockBasedTable "default"]   (follows its column family's CFOptions)
 *
 * One statement per line, leading and trailing spaces trimmed. Values are kept as written (still
 * escaped, as RocksDB stores them); `parseOptionMap` splits a nested `{a=b;c={d=e}}` value and
 * `unescapeOptionString` undoes RocksDB's escaping of `\ # : \r \n`. A key repeated within a
 * section keeps its first value, as RocksDB's parser does. A section whose title this parser does
 * not know (a newer RocksDB's, or another table factory's spelling) is kept aside in `skipped`
 * with its statements, so that a reader of the options it knows goes on. Pure: text in,
 * structure out. Errors are CorruptionErrors naming the file and the line.
 */
import { CorruptionError } from './errors.js'

export const OPTIONS_SECTION = {
  Version: 'Version',
  DBOptions: 'DBOptions',
  CFOptions: 'CFOptions',
  /** Prefix: "TableOptions/BlockBasedTable", "TableOptions/PlainTable", ... */
  TableOptions: 'TableOptions/',
} as const

export interface OptionsSection {
  /** "Version", "DBOptions", "CFOptions", "TableOptions/BlockBasedTable", ... */
  title: string
  /** The quoted argument (a column family name), unescaped; null when absent. */
  argument: string | null
  /** 1-based line of the section header. */
  line: number
  /** key → raw value, in file order. */
  entries: Map<string, string>
  /** key → 1-based line of its statement (the first, where a key repeats). */
  lines: Map<string, number>
}

export interface OptionsFile {
  sections: OptionsSection[]
  /** Sections with a title this parser does not know, in file order (their statements are not read). */
  skipped: { title: string; line: number }[]
}

/** Parse an OPTIONS file. `name` (the path) goes into error messages. */
export function parseOptionsFile(text: string, name = 'OPTIONS'): OptionsFile {
  const sections: OptionsSection[] = []
  const skipped: OptionsFile['skipped'] = []
  const fail = (line: number, message: string): never => {
    throw new CorruptionError(`${name}:${line}: ${message}`)
  }
  const cfNames = new Set<string>()
  // null before the first section and inside a skipped one.
  let current: OptionsSection | null = null
  let skipping = false
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1
    const line = removeComment(lines[i]).trim()
    if (line === '') continue
    if (line.length >= 2 && line[0] === '[' && line[line.length - 1] === ']') {
      const header = parseSectionHeader(line, lineNo)
      skipping = header === null
      if (header === null) {
        skipped.push({ title: clip(line), line: lineNo })
        current = null
        continue
      }
      current = header
      checkSection(current, sections, cfNames, fail)
      sections.push(current)
      continue
    }
    if (skipping) continue
    const eq = line.indexOf('=')
    if (eq < 0) fail(lineNo, `a statement must have a '=': ${clip(line)}`)
    const key = line.slice(0, eq).trim()
    if (key === '') fail(lineNo, `a statement must have a variable name: ${clip(line)}`)
    if (current === null) return fail(lineNo, `statement '${clip(key)}' before any [section]`)
    if (!current.entries.has(key)) {
      current.entries.set(key, line.slice(eq + 1).trim())
      current.lines.set(key, lineNo)
    }
  }
  if (!sections.some((s) => s.title === OPTIONS_SECTION.DBOptions)) fail(lines.length, 'no [DBOptions] section')
  if (!cfNames.has('default')) fail(lines.length, 'no [CFOptions "default"] section')
  return { sections, skipped }
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

/** Everything before the first "#" that is not escaped as "\#". */
function removeComment(line: string): string {
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '#' && (i === 0 || line[i - 1] !== '\\')) return line.slice(0, i)
  }
  return line
}

/** A section header, or null when its title is not one this parser knows. */
function parseSectionHeader(line: string, lineNo: number): OptionsSection | null {
  const open = line.indexOf('"')
  const close = line.lastIndexOf('"')
  const hasArgument = open >= 0 && open !== close
  const title = (hasArgument ? line.slice(1, open) : line.slice(1, -1)).trim()
  const argument = hasArgument ? unescapeOptionString(line.slice(open + 1, close)) : null
  const known =
    title === OPTIONS_SECTION.Version ||
    title === OPTIONS_SECTION.DBOptions ||
    title === OPTIONS_SECTION.CFOptions ||
    (title.startsWith(OPTIONS_SECTION.TableOptions) && title.length > OPTIONS_SECTION.TableOptions.length)
  if (!known) return null
  return { title, argument, line: lineNo, entries: new Map(), lines: new Map() }
}

function checkSection(s: OptionsSection, sections: OptionsSection[], cfNames: Set<string>, fail: (line: number, m: string) => never): void {
  if (s.title === OPTIONS_SECTION.Version || s.title === OPTIONS_SECTION.DBOptions) {
    if (sections.some((o) => o.title === s.title)) fail(s.line, `more than one [${s.title}] section`)
  } else if (s.title === OPTIONS_SECTION.CFOptions) {
    if (s.argument === null) fail(s.line, '[CFOptions] without a column family name')
    const isDefault = s.argument === 'default'
    if (cfNames.size === 0 && !isDefault) fail(s.line, `the default column family must be the first CFOptions section, not "${s.argument}"`)
    if (cfNames.size > 0 && isDefault) fail(s.line, 'the default column family must be the first CFOptions section')
    if (cfNames.has(s.argument)) fail(s.line, `column family "${s.argument}" has two CFOptions sections`)
    cfNames.add(s.argument)
  } else if (s.argument === null || !cfNames.has(s.argument)) {
    fail(s.line, `[${s.title}] names no column family with a CFOptions section before it ("${s.argument ?? ''}")`)
  }
}

/** Undo RocksDB's option-string escaping ("\n", "\r", and "\x" = x). */
export function unescapeOptionString(s: string): string {
  if (!s.includes('\\')) return s
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (c === '\\' && i + 1 < s.length) {
      const n = s[++i]
      out += n === 'n' ? '\n' : n === 'r' ? '\r' : n
    } else {
      out += c
    }
  }
  return out
}

/** RocksDB's escaping of `\ # : \r \n` in option strings. */
export function escapeOptionString(s: string): string {
  return s.replace(/[\\#:\r\n]/g, (c) => '\\' + (c === '\n' ? 'n' : c === '\r' ? 'r' : c))
}

/**
 * Split a nested option value `{a=b;c={d=e;};}` (outer braces optional, trailing ";" allowed)
 * into key → raw value (nested values keep their braces). `where` names the value in errors.
 */
export function parseOptionMap(value: string, where = 'option value'): Map<string, string> {
  let s = value.trim()
  if (s.startsWith('{')) {
    if (!s.endsWith('}')) throw new CorruptionError(`${where}: unbalanced braces in ${clip(value)}`)
    s = s.slice(1, -1)
  }
  const out = new Map<string, string>()
  let pos = 0
  while (pos < s.length) {
    const eq = s.indexOf('=', pos)
    if (eq < 0) {
      if (s.slice(pos).trim() === '') break
      throw new CorruptionError(`${where}: '${clip(s.slice(pos).trim())}' has no '='`)
    }
    const key = s.slice(pos, eq).trim()
    if (key === '') throw new CorruptionError(`${where}: empty key in ${clip(value)}`)
    let i = eq + 1
    while (i < s.length && s[i] === ' ') i++
    let v: string
    if (s[i] === '{') {
      let depth = 0
      let j = i
      for (; j < s.length; j++) {
        if (s[j] === '{') depth++
        else if (s[j] === '}' && --depth === 0) break
      }
      if (depth !== 0) throw new CorruptionError(`${where}: unbalanced braces in the value of ${key}`)
      v = s.slice(i, j + 1)
      i = j + 1
      while (i < s.length && s[i] === ' ') i++
      if (i < s.length && s[i] !== ';') throw new CorruptionError(`${where}: unexpected '${s[i]}' after the value of ${key}`)
    } else {
      const semi = s.indexOf(';', i)
      const end = semi < 0 ? s.length : semi
      v = s.slice(i, end).trim()
      i = end
    }
    out.set(key, v)
    pos = i + 1
  }
  return out
}

/** `{k=v;k=v;}` as RocksDB writes nested options. */
export function encodeOptionMap(map: Map<string, string> | Record<string, string>): string {
  const entries = map instanceof Map ? [...map] : Object.entries(map)
  return `{${entries.map(([k, v]) => `${k}=${v};`).join('')}}`
}

/** One section as RocksDB writes it: header line, then two-space-indented statements. */
export function encodeOptionsSection(section: Pick<OptionsSection, 'title' | 'argument' | 'entries'>): string {
  const header = section.argument === null ? `[${section.title}]` : `[${section.title} "${escapeOptionString(section.argument)}"]`
  const entries = section.entries instanceof Map ? [...section.entries] : Object.entries(section.entries as Record<string, string>)
  return [header, ...entries.map(([k, v]) => `  ${k}=${v}`)].join('\n') + '\n'
}

/**
 * A whole file laid out as RocksDB writes it (`PersistRocksDBOptions`): the comment banner, then
 * each section; a section other than [Version] ends with a line of two spaces, and an empty line
 * comes before each section but a TableOptions one (which follows its CFOptions directly). A file
 * RocksDB wrote re-encodes to the same text.
 */
export function encodeOptionsFile(file: OptionsFile): string {
  const banner =
    '# This is a RocksDB option file.\n#\n# For detailed file format spec, please refer to the example file\n# in examples/rocksdb_option_file_example.ini\n#\n\n'
  const parts = file.sections.map(
    (s, i) =>
      (i > 0 && !s.title.startsWith(OPTIONS_SECTION.TableOptions) ? '\n' : '') + encodeOptionsSection(s) + (s.title === OPTIONS_SECTION.Version ? '' : '  \n'),
  )
  return banner + parts.join('')
}

/** Sections of one column family: its CFOptions and its TableOptions/* (null when absent). */
export function columnFamilySections(file: OptionsFile, name: string): { cf: OptionsSection; table: OptionsSection | null } | null {
  const cf = file.sections.find((s) => s.title === OPTIONS_SECTION.CFOptions && s.argument === name)
  if (!cf) return null
  const table = file.sections.find((s) => s.title.startsWith(OPTIONS_SECTION.TableOptions) && s.argument === name) ?? null
  return { cf, table }
}
