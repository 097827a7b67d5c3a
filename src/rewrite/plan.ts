/**
 * What `sstkit rewrite` asks for, checked and resolved before any file is
 * written: the compression setting from its textual form (type name, level,
 * dictionary mode or file), and the (input, output) pairs a file or a
 * directory of SSTs gives. Every problem is a usage RewriteError (exit 2)
 * in one line naming the flag and the allowed values.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { BUILT_DICT_MODES, validateSetting, type DictMode, type SettingNames } from '../codec/setting.js'
import { COMPRESSION_SHORT_NAMES, compressionTypeFromShortName } from '../format/compression-type.js'
import { loadDictionaryFile } from '../table/compression-dict.js'
import { RewriteError, type RewriteOptions } from './rewrite.js'

/** The compression flags as given: a type name, `default` or an integer, a dictionary mode or a file path. */
export interface CompressionSpec {
  compression: string
  level: string
  dict: string
  zstdChecksum: boolean
}

export type ResolvedCompression = Pick<RewriteOptions, 'compressionType' | 'level' | 'dict' | 'dictionary' | 'zstdChecksum'>

const FLAG_NAMES: SettingNames = { compressionType: '--compression', level: '--level', dict: '--dict', zstdChecksum: '--checksum' }

const usage = (message: string) => new RewriteError('usage', message)

/** `default` (RocksDB's kDefaultCompressionLevel) or an integer. */
export function parseLevel(spec: string): number | null {
  if (spec === 'default') return null
  if (!/^[+-]?\d+$/.test(spec.trim())) throw usage(`--level must be an integer or "default" (got ${spec})`)
  return Number(spec)
}

/** The setting the flags describe, validated (validateSetting), with an external dictionary read. */
export function resolveCompression(spec: CompressionSpec): ResolvedCompression {
  const compressionType = compressionTypeFromShortName(spec.compression.trim())
  if (compressionType === undefined) throw usage(`unknown compression type "${spec.compression}" (known: ${COMPRESSION_SHORT_NAMES.join(', ')})`)
  const level = parseLevel(spec.level)
  let dict: DictMode
  let dictionary: Uint8Array | undefined
  if ((BUILT_DICT_MODES as readonly string[]).includes(spec.dict)) dict = spec.dict as DictMode
  else {
    if (!existsSync(spec.dict)) throw usage(`--dict ${spec.dict}: not a mode (${BUILT_DICT_MODES.join(', ')}) nor a dictionary file`)
    const file = loadDictionaryFile(spec.dict)
    if (!file.ok) throw usage(file.problem)
    dict = 'file'
    dictionary = file.bytes
  }
  const problem = validateSetting({ compressionType, level, dict, zstdChecksum: spec.zstdChecksum }, FLAG_NAMES)
  if (problem) throw usage(problem)
  // The writer takes an external dictionary as bytes, with no mode of its own.
  return { compressionType, level, dict: dict === 'file' ? 'none' : dict, dictionary, zstdChecksum: spec.zstdChecksum }
}

/**
 * The (input, output) pairs: a file to OUT (or into OUT when it is a
 * directory); a directory's `*.sst` files, sorted, into directory OUT (created).
 */
export function rewriteTargets(input: string, output: string): [string, string][] {
  const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory()
  if (!isDir(input)) return [[input, isDir(output) ? join(output, basename(input)) : output]]
  const inputs = readdirSync(input)
    .filter((n) => n.endsWith('.sst'))
    .sort()
  if (inputs.length === 0) throw usage(`${input}: directory holds no .sst files`)
  if (existsSync(output) && !isDir(output)) throw usage(`${output} is a file; a directory input needs an output directory`)
  mkdirSync(output, { recursive: true })
  return inputs.map((n) => [join(input, n), join(output, n)])
}
