/**
 * The JSON `sstkit advise --json` writes, read as a rewrite's plan: per column family and level
 * the recommended setting (type, level, dictionary mode with its options, zstd checksum, acceptance
 * rule) and its projected bytes, per column family its advised block_size (where it differs from
 * today's) and, with blob files, the recommended blob_compression_type. Only what a rewrite needs is read, each field checked: a file that is not
 * advise's JSON is one usage line naming the field.
 */
import { readFileSync } from 'node:fs'
import { BUILT_DICT_MODES, type DictMode, validateSetting } from '../codec/setting.js'
import { compressionTypeFromShortName } from '../format/compression-type.js'
import { RewriteError } from './rewrite.js'
import type { ResolvedCompression } from './plan.js'

export interface AdvisedLevel {
  columnFamily: string
  level: number
  label: string
  compression: ResolvedCompression
  maxDictBytes: number
  trainBytes: number
  maxDictBufferBytes: number
  maxCompressedBytesPerKb: number
  /** advise's projection of the level's data (and dictionary) bytes under the setting. */
  projected: { estimate: number; low: number; high: number }
  /** The level's data bytes when advised (to tell whether the database changed since). */
  dataBytesWhenAdvised: number
}

export interface DbAdvice {
  path: string
  levels: AdvisedLevel[]
  /** Column family → the block_size advised where it differs from today's (every table of it is rewritten with it). */
  blockSizes: Map<string, AdvisedBlockSize>
  /** Column family → recommended blob_compression_type (kZSTD, ...), where advise has one. */
  blobCompression: Map<string, string>
  /** Column family → the OPTIONS lines advise wrote for it (for the OPTIONS file with the advice applied). */
  options: { name: string; options: Record<string, string> }[]
}

export interface AdvisedBlockSize {
  today: number
  recommended: number
  /** Per level, advise's projection of its data bytes at the recommended block size under the level's advised setting (null: the block sizes were evaluated under today's compression, so there is none for both changes). */
  projected: Map<number, { estimate: number; low: number; high: number }> | null
}

type Json = Record<string, unknown>

/** Read and check advise's JSON at `path`. */
export function readDbAdvice(path: string): DbAdvice {
  let doc: unknown
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw usage(`--advice ${path}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`)
  }
  const bad = (what: string): never => {
    throw usage(`--advice ${path}: not the JSON of \`sstkit advise --json\` (${what})`)
  }
  if (!isObject(doc) || doc.version !== 1 || !Array.isArray(doc.columnFamilies)) return bad('no version 1 and columnFamilies')
  const evaluation = isObject(doc.evaluation) ? doc.evaluation : bad('no evaluation')
  const num = (o: Json, key: string, where: string): number => (typeof o[key] === 'number' ? (o[key] as number) : bad(`${where}.${key} is not a number`))
  const levels: AdvisedLevel[] = []
  const options: DbAdvice['options'] = []
  const blockSizes: DbAdvice['blockSizes'] = new Map()
  for (const [i, cf] of doc.columnFamilies.entries()) {
    const where = `columnFamilies[${i}]`
    if (!isObject(cf) || typeof cf.name !== 'string' || !Array.isArray(cf.levels)) return bad(`${where} has no name and levels`)
    if (isObject(cf.options)) options.push({ name: cf.name, options: cf.options as Record<string, string> })
    if (cf.blockSize !== undefined) {
      const b = isObject(cf.blockSize) ? cf.blockSize : bad(`${where}.blockSize is not an object`)
      const today = num(b, 'today', `${where}.blockSize`)
      const recommended = b.recommended === null ? null : num(b, 'recommended', `${where}.blockSize`)
      if (recommended !== null && (!Number.isInteger(recommended) || recommended < 1)) return bad(`${where}.blockSize.recommended is not a block size`)
      if (recommended !== null && recommended !== today) blockSizes.set(cf.name, { today, recommended, projected: blockSizeProjections(b, recommended) })
    }
    for (const [j, l] of cf.levels.entries()) {
      const at = `${where}.levels[${j}]`
      if (!isObject(l)) return bad(`${at} is not an object`)
      if (l.level === null) continue // plain files: no level to apply it to
      const level = num(l, 'level', at)
      const rec = isObject(l.recommended) && isObject(l.recommended.estimate) ? l.recommended.estimate : bad(`${at}.recommended.estimate is missing`)
      const s = isObject(rec.setting) ? rec.setting : bad(`${at}.recommended.estimate.setting is missing`)
      const bytes = isObject(rec.bytes) ? rec.bytes : bad(`${at}.recommended.estimate.bytes is missing`)
      const compressionType = typeof s.type === 'string' ? compressionTypeFromShortName(s.type) : undefined
      if (compressionType === undefined) return bad(`${at}: unknown compression type ${String(s.type)}`)
      const dict = (BUILT_DICT_MODES as readonly unknown[]).includes(s.dict) ? (s.dict as DictMode) : bad(`${at}: unknown dictionary mode ${String(s.dict)}`)
      const levelValue = s.level === null ? null : typeof s.level === 'number' ? s.level : bad(`${at}: compression level ${String(s.level)}`)
      const compression: ResolvedCompression = {
        compressionType,
        level: levelValue,
        dict: dict as ResolvedCompression['dict'],
        zstdChecksum: s.checksum === true,
      }
      const problem = validateSetting({ compressionType, level: levelValue, dict, zstdChecksum: s.checksum === true })
      if (problem) return bad(`${at}: ${problem}`)
      const own = isObject(s.dictOptions) ? s.dictOptions : evaluation
      levels.push({
        columnFamily: cf.name,
        level,
        label: typeof s.label === 'string' ? s.label : String(s.type),
        compression,
        maxDictBytes: num(own, 'maxDictBytes', `${at} dictionary options`),
        trainBytes: num(own, 'trainBytes', `${at} dictionary options`),
        maxDictBufferBytes: num(own, 'maxDictBufferBytes', `${at} dictionary options`),
        maxCompressedBytesPerKb:
          typeof s.maxCompressedBytesPerKb === 'number' ? s.maxCompressedBytesPerKb : num(evaluation, 'maxCompressedBytesPerKb', 'evaluation'),
        projected: { estimate: num(bytes, 'estimate', at), low: num(bytes, 'low', at), high: num(bytes, 'high', at) },
        dataBytesWhenAdvised: num(l, 'dataBytes', at),
      })
    }
  }
  const blobCompression = new Map<string, string>()
  if (Array.isArray(doc.blobs)) {
    for (const b of doc.blobs)
      if (isObject(b) && typeof b.columnFamily === 'string' && typeof b.recommended === 'string') blobCompression.set(b.columnFamily, b.recommended)
  }
  return { path, levels, blockSizes, blobCompression, options }
}

/** advise's per-level bytes at the recommended block size, when it re-cut the levels under their advised settings. */
function blockSizeProjections(b: Json, recommended: number): AdvisedBlockSize['projected'] {
  if (b.compression !== 'advised' || !Array.isArray(b.candidates) || !Array.isArray(b.levels)) return null
  const i = b.candidates.findIndex((c) => isObject(c) && c.blockSize === recommended)
  if (i < 0) return null
  const out = new Map<number, { estimate: number; low: number; high: number }>()
  for (const l of b.levels) {
    const bytes = isObject(l) && Array.isArray(l.bytes) ? l.bytes[i] : null
    if (isObject(l) && typeof l.level === 'number' && isObject(bytes) && [bytes.estimate, bytes.low, bytes.high].every((x) => typeof x === 'number'))
      out.set(l.level, { estimate: bytes.estimate as number, low: bytes.low as number, high: bytes.high as number })
  }
  return out
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function usage(message: string): RewriteError {
  return new RewriteError('usage', message)
}
