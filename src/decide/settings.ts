/**
 * A compression setting as the decision sees it (SettingSpec): the matrices advise evaluates, the
 * setting's label, its own options against the run's, and its RocksDB names (`compression`, a kXxx
 * name, plus `compression_opts`: level, dictionary sizes, trainer, checksum). Today's setting read
 * from OPTIONS or table properties is db/today-setting.ts's; a matrix from flags, advise/matrix.ts's.
 */
import { zstdLevel } from '../codec/setting.js'
import { compressionOptionName, compressionTypeFromShortName } from '../format/compression-type.js'
import type { DictMode, DictOptions, SettingSpec } from '../types/advice.js'

/**
 * The default advise matrix: the codecs RocksDB users choose between, zstd
 * across the levels compaction can afford (1-12; 15 and 19 compress at a few
 * MB/s per core, ask for them with --types zstd --levels), each with and
 * without a finalized dictionary; raw and trained dictionaries and the frame
 * checksum at the levels where they are usually weighed.
 */
export const DEFAULT_ZSTD_LEVELS = [1, 3, 6, 9, 12]

export function defaultSettings(): SettingSpec[] {
  const out: SettingSpec[] = []
  const add = (type: string, level: number | null, dict: DictMode = 'none', checksum = false) => out.push(spec(type, level, dict, checksum))
  add('none', null)
  add('snappy', null)
  add('lz4', null)
  for (const level of DEFAULT_ZSTD_LEVELS) {
    add('zstd', level)
    add('zstd', level, 'finalize')
  }
  add('zstd', 3, 'raw')
  add('zstd', 3, 'train')
  add('zstd', 1, 'none', true)
  add('zstd', 3, 'none', true)
  return out
}

/**
 * The default matrix for a database of a few megabytes: without zstd 9 and 12 and the raw and trained
 * dictionaries, whose CPU (and the time to measure it) outweighs what they could save at that size.
 */
export const SMALL_DATABASE_ZSTD_LEVELS = [1, 3, 6]

export function smallDatabaseSettings(): SettingSpec[] {
  return defaultSettings().filter(
    (s) => s.type !== 'zstd' || (SMALL_DATABASE_ZSTD_LEVELS.includes(zstdLevel(s.level)) && (s.dict === 'none' || s.dict === 'finalize')),
  )
}

/** Options of a setting's own, where they may differ from the run's (today's, as OPTIONS or the files write them). */
export type OwnOptions = Pick<SettingSpec, 'dictOptions' | 'maxCompressedBytesPerKb'>

export function spec(type: string, level: number | null, dict: DictMode, checksum: boolean, own: OwnOptions = {}): SettingSpec {
  const s: SettingSpec = { type, level, dict, checksum, label: '' }
  if (own.dictOptions && dict !== 'none') s.dictOptions = own.dictOptions
  if (own.maxCompressedBytesPerKb !== undefined && type !== 'none') s.maxCompressedBytesPerKb = own.maxCompressedBytesPerKb
  s.label = settingLabel(s)
  return s
}

/**
 * e.g. "zstd 3 dict=train"; with its own dictionary options "zstd 3 dict=train 4KiB/32KiB" (dictionary/training
 * bytes), with its own acceptance rule "zstd 3 accept=1000/KiB" (max_compressed_bytes_per_kb).
 */
export function settingLabel(s: Omit<SettingSpec, 'label'>): string {
  const level = s.level === null ? '' : ` ${s.level}`
  const dict = s.dict === 'none' ? '' : ` dict=${s.dict}${s.dictOptions ? ` ${budgetLabel(s.dict, s.dictOptions)}` : ''}`
  const accept = s.maxCompressedBytesPerKb === undefined ? '' : ` accept=${s.maxCompressedBytesPerKb}/KiB`
  return `${s.type}${level}${dict}${s.checksum ? ' +checksum' : ''}${accept}`
}

function budgetLabel(dict: DictMode, o: DictOptions): string {
  return dict === 'raw' ? bytesLabel(o.maxDictBytes) : `${bytesLabel(o.maxDictBytes)}/${bytesLabel(o.trainBytes)}`
}

function bytesLabel(n: number): string {
  // No space inside: a wrapped label never parts a number from its unit.
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}KiB` : `${n}B`
}

/** The dictionary options a setting is evaluated with: its own, else the run's. */
export function dictionaryOptionsOf(s: SettingSpec, run: DictOptions): DictOptions {
  return s.dictOptions ?? run
}

/**
 * The buffer RocksDB's builder samples a file's dictionary from (BlockBasedTableBuilder::Rep's
 * buffer_limit): max_dict_buffer_bytes and the file's target file size, the smaller where both are
 * set (0: unlimited); a flush gets no target. Compaction outputs hold more raw bytes than their target
 * size, so their dictionary comes from the file's first target-size bytes of blocks only.
 */
export function bufferLimited(o: DictOptions, targetFileSize: number): DictOptions {
  if (!(targetFileSize > 0)) return o
  const limit = o.maxDictBufferBytes === 0 ? targetFileSize : Math.min(o.maxDictBufferBytes, targetFileSize)
  return limit === o.maxDictBufferBytes ? o : { ...o, maxDictBufferBytes: limit }
}

/** The acceptance rule a setting is evaluated with: its own, else the run's. */
export function acceptanceOf(s: SettingSpec, runMaxCompressedBytesPerKb: number): number {
  return s.maxCompressedBytesPerKb ?? runMaxCompressedBytesPerKb
}

/**
 * The setting as the run names it: without its own options where they are the
 * run's (the dictionary options its mode reads, the acceptance rule), so it
 * matches the matrix's entry and keeps its label; else its own entry.
 */
export function withRunOptions(s: SettingSpec, run: DictOptions, runMaxCompressedBytesPerKb: number): SettingSpec {
  const o = s.dictOptions
  const sameDict =
    !o || (o.maxDictBytes === run.maxDictBytes && o.maxDictBufferBytes === run.maxDictBufferBytes && (s.dict === 'raw' || o.trainBytes === run.trainBytes))
  const sameAcceptance = s.maxCompressedBytesPerKb === undefined || s.maxCompressedBytesPerKb === runMaxCompressedBytesPerKb
  if (sameDict && sameAcceptance && !o && s.maxCompressedBytesPerKb === undefined) return s
  return spec(s.type, s.level, s.dict, s.checksum, {
    dictOptions: sameDict ? undefined : o,
    maxCompressedBytesPerKb: sameAcceptance ? undefined : s.maxCompressedBytesPerKb,
  })
}

export function typeByte(s: SettingSpec): number {
  const t = compressionTypeFromShortName(s.type)
  if (t === undefined) throw new RangeError(`unknown compression type ${s.type}`)
  return t
}

/** The options-file name of a setting's type: kZSTD, kLZ4Compression, ... */
export function optionName(s: SettingSpec): string {
  return compressionOptionName(typeByte(s))
}

export function sameSetting(a: SettingSpec, b: SettingSpec): boolean {
  return (
    a.type === b.type &&
    a.level === b.level &&
    a.dict === b.dict &&
    a.checksum === b.checksum &&
    sameDictOptions(a.dictOptions, b.dictOptions) &&
    a.maxCompressedBytesPerKb === b.maxCompressedBytesPerKb
  )
}

/** Both the run's (absent), or the same own dictionary options. */
export function sameDictOptions(a: DictOptions | undefined, b: DictOptions | undefined): boolean {
  if (!a || !b) return a === b
  return a.maxDictBytes === b.maxDictBytes && a.trainBytes === b.trainBytes && a.maxDictBufferBytes === b.maxDictBufferBytes
}
