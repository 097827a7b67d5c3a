/**
 * The versions a size measurement depends on: sstkit's own (its table writer
 * lays out the rebuilt files), zstd-napi's bundled libzstd (compresses every
 * zstd block) and the system libzstd (builds trained and finalized
 * dictionaries). A different zstd can change compressed sizes by itself.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { zdictZstdVersion } from '../codec/zdict.js'

const require = createRequire(import.meta.url)

let pkgVersion: string | undefined

/** sstkit's version from its package.json (src/ci and dist/ci are both two levels below it). */
export function sstkitVersion(): string {
  if (pkgVersion === undefined) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }
    pkgVersion = pkg.version ?? 'unknown'
  }
  return pkgVersion
}

/** The libzstd that compresses blocks (bundled with zstd-napi), e.g. "1.5.7". */
export function zstdLibraryVersion(): string {
  return (require('zstd-napi/binding.js') as typeof import('zstd-napi/binding.js')).versionString()
}

/** The system libzstd that builds dictionaries, or null when it cannot be loaded. */
export function zstdDictionaryBuilderVersion(): string | null {
  try {
    return zdictZstdVersion()
  } catch {
    return null
  }
}

export interface ZstdVersions {
  /** zstd-napi's bundled libzstd: compresses every zstd block. */
  library: string
  /** The system libzstd (libzstd.so.1): trains and finalizes dictionaries. */
  dictionaryBuilder: string | null
}

export function zstdVersions(): ZstdVersions {
  return { library: zstdLibraryVersion(), dictionaryBuilder: zstdDictionaryBuilderVersion() }
}
