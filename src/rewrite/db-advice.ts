/**
 * The JSON `sstkit advise --json` writes, read as a rewrite's plan: per column family and level
 * the recommended setting (type, level, dictionary mode with its options, zstd checksum, acceptance
 * rule) and its projected bytes, per column family with blob files the recommended
 * blob_compression_type. Only what a rewrite needs is read, each field checked: a file that is not
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
  /** Column family → recommended blob_compression_type (kZSTD, ...), where advise has one. */
  blobCompression: Map<string, string>
  /** Column family → the OPTIONS lines advise wrote for it (for the OPTIONS file with the advice applied). */
  options: { name: string; options: Record<string, string> }[]
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
  for (const [i, cf] of doc.columnFamilies.entries()) {
    const where = `columnFamilies[${i}]`
    if (!isObject(cf) || typeof cf.name !== 'string' || !Array.isArray(cf.levels)) return bad(`${where} has no name and levels`)
    if (isObject(cf.options)) options.push({ name: cf.name, options: cf.options as Record<string, string> })
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
  return { path, levels, blobCompression, options }
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function usage(message: string): RewriteError {
  return new RewriteError('usage', message)
}
