/**
 * Lazy access to system C libraries through koffi (liblz4, libbz2, libz, libxxhash).
 *
 * Both koffi itself and each library are loaded on first use, so reading a
 * file whose blocks never need them costs nothing. A library that cannot be
 * loaded is reported as NotSupportedError: the file is fine, this machine
 * just lacks the codec.
 */
import { createRequire } from 'node:module'
import type { LibraryHandle } from 'koffi'
import { NotSupportedError } from '../format/errors.js'

export type Koffi = typeof import('koffi')

const require = createRequire(import.meta.url)
let koffiModule: Koffi | undefined

/** The koffi module, required on first call (it loads a native addon). */
export function koffi(): Koffi {
  koffiModule ??= require('koffi') as Koffi
  return koffiModule
}

const libraries = new Map<string, LibraryHandle | Error>()

export interface LoadOptions {
  /**
   * Bind the library's calls to its own symbols first (RTLD_DEEPBIND): for a
   * library whose symbols the node binary exports too (zlib), which would
   * otherwise resolve the library's internal calls into Node's copy.
   */
  deep?: boolean
}

/**
 * Open the first loadable shared library among `candidates` (sonames), once
 * per process. Failures are remembered too, so a missing library is probed once.
 */
export function loadLibrary(what: string, candidates: readonly string[], options: LoadOptions = {}): LibraryHandle {
  const key = `${candidates.join('|')}${options.deep ? '|deep' : ''}`
  let entry = libraries.get(key)
  if (entry === undefined) {
    entry = openFirst(candidates, options)
    libraries.set(key, entry)
  }
  if (entry instanceof Error) {
    throw new NotSupportedError(`${what} is not available: ${entry.message}`)
  }
  return entry
}

function openFirst(candidates: readonly string[], options: LoadOptions): LibraryHandle | Error {
  const reasons: string[] = []
  for (const name of candidates) {
    try {
      return options.deep ? koffi().load(name, { deep: true }) : koffi().load(name)
    } catch (err) {
      reasons.push(`${name}: ${(err as Error).message}`)
    }
  }
  return new Error(`cannot load ${reasons.join('; ')}`)
}

/**
 * Copy `bytes` into native memory, for APIs that keep a pointer across calls
 * (LZ4_loadDict*). JS typed arrays give no address-stability guarantee
 * between separate foreign calls; native memory does. Free with `koffi().free`.
 */
export function copyToNative(bytes: Uint8Array): unknown {
  const k = koffi()
  const ptr: unknown = k.alloc('uint8_t', Math.max(1, bytes.length))
  new Uint8Array(k.view(ptr, bytes.length)).set(bytes)
  return ptr
}
