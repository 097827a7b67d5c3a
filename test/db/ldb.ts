/**
 * The real `ldb` 7.8.3 as an oracle for whole databases: the goldens generate-db.sh committed
 * next to each fixture DB, a parser for what `ldb manifest_dump --verbose --hex` prints, and a
 * live runner that works on a temporary copy (ldb opening a DB may write into it).
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../helpers.js'

export const DB_FIXTURES = join(ROOT, 'test/fixtures/db')
export const dbFixture = (name: string) => join(DB_FIXTURES, name)
export const dbGolden = (name: string, what: 'manifest_dump' | 'live_files_metadata' | 'column_families' | 'writer') =>
  readFileSync(join(DB_FIXTURES, `${name}.${what}.${what === 'writer' ? 'log' : 'txt'}`), 'utf8')

/** The real ldb, when installed (CI installs Debian's rocksdb-tools). */
export const LDB = ['/usr/bin/ldb', '/usr/local/bin/ldb'].find((p) => existsSync(p)) ?? null

/** Run ldb on a temporary copy of a database; `DB_DIR` in args names the copy; output with the copy's path as DB_DIR. */
export function ldbOnCopy(db: string, args: string[]): string {
  const tmp = mkdtempSync(join(tmpdir(), 'sstkit-ldb-'))
  const copy = join(tmp, 'db')
  try {
    cpSync(db, copy, { recursive: true })
    const r = spawnSync(
      LDB!,
      args.map((a) => a.replaceAll('DB_DIR', copy)),
      { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 },
    )
    if (r.error) throw r.error
    return (r.stdout + r.stderr).replaceAll(copy, 'DB_DIR')
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

export interface DumpKey {
  userKeyHex: string
  seq: bigint
  type: number
}

export interface DumpFile {
  level: number
  number: number
  size: number
  smallest: DumpKey
  largest: DumpKey
  smallestSeqno?: bigint
  largestSeqno?: bigint
  oldestAncesterTime?: number
  fileCreationTime?: number
}

export interface DumpEdit {
  dbId?: string
  comparator?: string
  logNumber?: number
  prevLogNumber?: number
  nextFileNumber?: number
  maxColumnFamily?: number
  minLogNumberToKeep?: number
  lastSequence?: bigint
  columnFamily: number
  columnFamilyAdd?: string
  columnFamilyDrop: boolean
  deleted: { level: number; number: number }[]
  added: DumpFile[]
}

export interface DumpColumnFamily {
  name: string
  id: number
  logNumber: number
  comparator: string
  /** level → files in ldb's (= RocksDB's) order. */
  levels: Map<number, DumpFile[]>
}

export interface ManifestDump {
  edits: DumpEdit[]
  columnFamilies: DumpColumnFamily[]
  nextFileNumber: number
  lastSequence: bigint
  prevLogNumber: number
  maxColumnFamily: number
  minLogNumberToKeep: number
}

const KEY = String.raw`'([0-9A-F]*)' seq:(\d+), type:(\d+)`
const ADD_FILE = new RegExp(String.raw`^AddFile: (\d+) (\d+) (\d+) ${KEY} \.\. ${KEY}(?: oldest_ancester_time:(\d+))?(?: file_creation_time:(\d+))?`)
const VERSION_FILE = new RegExp(String.raw`^ (\d+):(\d+)\[(\d+) \.\. (\d+)\]\[${KEY} \.\. ${KEY}\](?: blob_file:\d+)?$`)

const key = (m: RegExpExecArray, i: number): DumpKey => ({ userKeyHex: m[i].toLowerCase(), seq: BigInt(m[i + 1]), type: Number(m[i + 2]) })

/** The VersionEdit lines of one value, and how each sets its field. */
const EDIT_FIELDS = new Map<string, (edit: DumpEdit, value: string) => void>([
  ['DB ID', (e, v) => void (e.dbId = v)],
  ['Comparator', (e, v) => void (e.comparator = v)],
  ['LogNumber', (e, v) => void (e.logNumber = Number(v))],
  ['PrevLogNumber', (e, v) => void (e.prevLogNumber = Number(v))],
  ['NextFileNumber', (e, v) => void (e.nextFileNumber = Number(v))],
  ['MaxColumnFamily', (e, v) => void (e.maxColumnFamily = Number(v))],
  ['MinLogNumberToKeep', (e, v) => void (e.minLogNumberToKeep = Number(v))],
  ['LastSeq', (e, v) => void (e.lastSequence = BigInt(v))],
  ['ColumnFamily', (e, v) => void (e.columnFamily = Number(v))],
  ['ColumnFamilyAdd', (e, v) => void (e.columnFamilyAdd = v)],
  ['ColumnFamilyDrop', (e) => void (e.columnFamilyDrop = true)],
])

/** Parse `ldb manifest_dump --verbose --hex` output: every VersionEdit, then the final version. */
export function parseManifestDump(text: string): ManifestDump {
  const edits: DumpEdit[] = []
  const columnFamilies: DumpColumnFamily[] = []
  let edit: DumpEdit | null = null
  let cf: DumpColumnFamily | null = null
  let level = -1
  let tail: RegExpExecArray | null = null
  for (const line of text.split('\n')) {
    if (line === 'VersionEdit {') {
      edit = { columnFamily: 0, columnFamilyDrop: false, deleted: [], added: [] }
      continue
    }
    if (edit) {
      if (line === '}') {
        edits.push(edit)
        edit = null
        continue
      }
      const m = /^ {2}([A-Za-z ]+?): ?(.*)$/.exec(line) ?? /^ {2}(ColumnFamilyDrop)()$/.exec(line)
      if (!m) throw new Error(`unparsed VersionEdit line: ${line}`)
      const [, name, value] = m
      const scalar = EDIT_FIELDS.get(name)
      if (scalar) {
        scalar(edit, value)
        continue
      }
      switch (name) {
        case 'DeleteFile': {
          const [l, n] = value.split(' ').map(Number)
          edit.deleted.push({ level: l, number: n })
          break
        }
        case 'AddFile': {
          const a = ADD_FILE.exec(`AddFile: ${value}`)
          if (!a) throw new Error(`unparsed AddFile: ${value}`)
          edit.added.push({
            level: Number(a[1]),
            number: Number(a[2]),
            size: Number(a[3]),
            smallest: key(a, 4),
            largest: key(a, 7),
            oldestAncesterTime: a[10] === undefined ? undefined : Number(a[10]),
            fileCreationTime: a[11] === undefined ? undefined : Number(a[11]),
          })
          break
        }
        // Printed, not compared here (the WAL deletion a new MANIFEST starts with, blob files).
        case 'WalDeletion':
        case 'BlobFileAddition':
        case 'BlobFileGarbage':
          break
        default:
          throw new Error(`unknown VersionEdit field ${name}`)
      }
      continue
    }
    let m: RegExpExecArray | null
    if ((m = /^-+ Column family "(.*)" {2}\(ID (\d+)\) -+$/.exec(line))) {
      cf = { name: m[1], id: Number(m[2]), logNumber: -1, comparator: '', levels: new Map() }
      columnFamilies.push(cf)
    } else if (cf && (m = /^log number: (\d+)$/.exec(line))) {
      cf.logNumber = Number(m[1])
    } else if (cf && (m = /^comparator: (.*)$/.exec(line))) {
      cf.comparator = m[1]
    } else if (cf && (m = /^--- level (\d+) --- version# \d+ ---$/.exec(line))) {
      level = Number(m[1])
    } else if (cf && (m = VERSION_FILE.exec(line))) {
      const files = cf.levels.get(level) ?? []
      files.push({
        level,
        number: Number(m[1]),
        size: Number(m[2]),
        smallestSeqno: BigInt(m[3]),
        largestSeqno: BigInt(m[4]),
        smallest: key(m, 5),
        largest: key(m, 8),
      })
      cf.levels.set(level, files)
    } else if ((m = /^next_file_number (\d+) last_sequence (\d+) +prev_log_number (\d+) max_column_family (\d+) min_log_number_to_keep (\d+)$/.exec(line))) {
      tail = m
    }
  }
  if (!tail) throw new Error('manifest_dump output has no final version summary')
  return {
    edits,
    columnFamilies,
    nextFileNumber: Number(tail[1]),
    lastSequence: BigInt(tail[2]),
    prevLogNumber: Number(tail[3]),
    maxColumnFamily: Number(tail[4]),
    minLogNumberToKeep: Number(tail[5]),
  }
}

/** `ldb list_live_files_metadata` lines: "DB_DIR/000009.sst : level 3, column family 'default'". */
export function parseLiveFilesMetadata(text: string): { file: string; level: number; columnFamily: string }[] {
  const out: { file: string; level: number; columnFamily: string }[] = []
  for (const line of text.split('\n')) {
    const m = /^DB_DIR\/(\S+) : level (\d+), column family '(.*)'$/.exec(line)
    if (m) out.push({ file: m[1], level: Number(m[2]), columnFamily: m[3] })
  }
  return out
}

/** `ldb list_column_families`: "{default, events}". */
export function parseColumnFamilies(text: string): string[] {
  const m = /^\{(.*)\}$/m.exec(text)
  if (!m) throw new Error(`no column family list in: ${text}`)
  return m[1].split(', ')
}
