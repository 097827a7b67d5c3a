/**
 * zstd dictionary builder (ZDICT) through the system libzstd.so.1, opened by the codec kernel's
 * addon (native/addon/codec.c), else through koffi.
 *
 * zstd-napi does not ship ZDICT, and no npm package trains dictionaries
 * (see the dependencies reference); libzstd1 is on every Debian system (dpkg
 * and apt need it) and exports the whole ZDICT API. RocksDB links the same
 * system library on Debian, so dictionaries built here are byte-for-byte what
 * Debian's RocksDB builds from the same samples.
 */
import type { LibraryHandle } from 'koffi'
import { NotSupportedError } from '../format/errors.js'
import { SstkitError, transferable } from '../errors.js'
import { loadAddon } from '../util/addon.js'
import { koffi, loadLibrary } from './native.js'
import { withPeakLock } from './peak-lock.js'

/** Magic number that starts a zstd-format (trained or finalized) dictionary. */
export const ZSTD_DICT_MAGIC = 0xec30a437

/** ZDICT's calls: a dictionary's length, or ZDICT's error name. */
export interface ZdictCalls {
  train(dict: Uint8Array, capacity: number, samples: Uint8Array, sizes: BigUint64Array, n: number): number | string
  finalize(dict: Uint8Array, capacity: number, content: Uint8Array, samples: Uint8Array, sizes: BigUint64Array, n: number, level: number): number | string
  version(): number
}

/** The codec kernel's addon (native/addon/codec.c), which opens the system libzstd itself. */
interface ZdictAddon {
  zdictUnavailable(): string | null
  zdictVersion(): number
  zdictTrain: ZdictCalls['train']
  zdictFinalize: ZdictCalls['finalize']
}

const WHAT = 'the zstd dictionary builder (libzstd.so.1, package libzstd1)'
const ADDON = new URL('../../dist/native/codec.node', import.meta.url)

let api: ZdictCalls | undefined

function zdict(): ZdictCalls {
  api ??= throughAddon() ?? throughKoffi()
  return api
}

/** ZDICT through each way there is to reach it, loaded anew (tests: both give the same results). */
export function zdictEachWay(): { addon: ZdictCalls | null; koffi: ZdictCalls } {
  return { addon: throughAddon(), koffi: throughKoffi() }
}

/** ZDICT through the addon; null where the addon is not built here (koffi's path then). */
function throughAddon(): ZdictCalls | null {
  const addon = loadAddon<ZdictAddon>(ADDON)
  if (!addon) return null
  const why = addon.zdictUnavailable()
  if (why !== null) throw new NotSupportedError(`${WHAT} is not available: cannot load ${why}`)
  return { train: addon.zdictTrain, finalize: addon.zdictFinalize, version: addon.zdictVersion }
}

/** koffi's type for a bound C function (its arguments and result are not typed). */
type Fn = ReturnType<LibraryHandle['func']>

function throughKoffi(): ZdictCalls {
  const k = koffi()
  const lib = loadLibrary(WHAT, ['libzstd.so.1', 'libzstd.so'])
  // ZDICT_params_t, passed by value.
  const params = k.struct('ZDICT_params_t', { compressionLevel: 'int', notificationLevel: 'unsigned int', dictID: 'unsigned int' })
  const train: Fn = lib.func(
    'size_t ZDICT_trainFromBuffer(void *dictBuffer, size_t dictBufferCapacity, const void *samplesBuffer, const size_t *samplesSizes, unsigned int nbSamples)',
  )
  const finalize: Fn = lib.func('ZDICT_finalizeDictionary', 'size_t', [
    'void *',
    'size_t',
    'const void *',
    'size_t',
    'const void *',
    'const size_t *',
    'unsigned int',
    params,
  ])
  const isError: Fn = lib.func('unsigned int ZDICT_isError(size_t code)')
  const errorName: Fn = lib.func('const char *ZDICT_getErrorName(size_t code)')
  const version: Fn = lib.func('unsigned int ZSTD_versionNumber(void)')
  const result = (r: number | bigint): number | string => (isError(r) ? (errorName(r) as string) : Number(r))
  return {
    train: (dict, capacity, samples, sizes, n) => result(train(dict, capacity, samples, sizes, n)),
    finalize: (dict, capacity, content, samples, sizes, n, level) =>
      result(finalize(dict, capacity, content, content.length, samples, sizes, n, { compressionLevel: level, notificationLevel: 0, dictID: 0 })),
    version: () => Number(version()),
  }
}

/** The system zstd's version, e.g. "1.5.4" (the one building dictionaries). */
export function zdictZstdVersion(): string {
  const v = Number(zdict().version())
  return `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`
}

/** libzstd's dictionary builder refused the samples (too few, too alike, ...). */
export class DictionaryBuildError extends SstkitError {
  override name = 'DictionaryBuildError'
  constructor(message: string) {
    super('internal', message)
  }
}
transferable(DictionaryBuildError)

function sizes(sampleLengths: readonly number[]): BigUint64Array {
  return BigUint64Array.from(sampleLengths, (n) => BigInt(n))
}

function check(result: number | string, what: string): number {
  if (typeof result === 'string') throw new DictionaryBuildError(`${what} failed: ${result}`)
  return result
}

/** ZDICT_trainFromBuffer: a dictionary of at most `capacity` bytes (RocksDB's `train` mode). */
export function trainDictionary(samples: Uint8Array, sampleLengths: readonly number[], capacity: number): Uint8Array {
  if (samples.length === 0 || sampleLengths.length === 0) return new Uint8Array(0)
  const dict = new Uint8Array(capacity)
  const n = withPeakLock(() => check(zdict().train(dict, capacity, samples, sizes(sampleLengths), sampleLengths.length), 'ZDICT_trainFromBuffer'))
  return dict.slice(0, n)
}

/**
 * ZDICT_finalizeDictionary over `content` (RocksDB's `finalize` mode:
 * use_zstd_dict_trainer = false), with compressionLevel `level`, no
 * notifications and an automatic dictionary ID.
 */
export function finalizeDictionary(content: Uint8Array, samples: Uint8Array, sampleLengths: readonly number[], capacity: number, level: number): Uint8Array {
  if (samples.length === 0 || sampleLengths.length === 0) return new Uint8Array(0)
  const dict = new Uint8Array(capacity)
  const n = check(zdict().finalize(dict, capacity, content, samples, sizes(sampleLengths), sampleLengths.length, level), 'ZDICT_finalizeDictionary')
  return dict.slice(0, n)
}

/** The ID of a zstd-format dictionary; 0 for raw content (no magic). */
export function dictionaryId(dict: Uint8Array): number {
  if (dict.length < 8) return 0
  const magic = (dict[0] | (dict[1] << 8) | (dict[2] << 16) | (dict[3] << 24)) >>> 0
  if (magic !== ZSTD_DICT_MAGIC) return 0
  return (dict[4] | (dict[5] << 8) | (dict[6] << 16)) + dict[7] * 0x1000000
}
