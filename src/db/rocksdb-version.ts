/**
 * Which RocksDB release writes a database: `rocksdb_version` in the [Version] section of the
 * newest OPTIONS file, else the "RocksDB version: X.Y.Z" line RocksDB logs first when it opens
 * the database (LOG; only its first 64 KiB are read).
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { join } from 'node:path'
import type { DbOptions } from './options.js'

const LOG_HEAD_BYTES = 64 * 1024

export interface WriterRelease {
  version: string
  from: 'OPTIONS' | 'LOG'
}

export function writerRelease(dir: string, options: DbOptions | null): WriterRelease | null {
  const fromOptions = options?.rocksdbVersion?.trim()
  if (fromOptions) return { version: fromOptions, from: 'OPTIONS' }
  const fromLog = logHeaderVersion(join(dir, 'LOG'))
  return fromLog ? { version: fromLog, from: 'LOG' } : null
}

/** The release a LOG's header names, or null (no LOG, or no such line in its head). */
export function logHeaderVersion(path: string): string | null {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return null
  }
  try {
    const buf = Buffer.alloc(LOG_HEAD_BYTES)
    const n = readSync(fd, buf, 0, buf.length, 0)
    return /RocksDB version: (\d+\.\d+(?:\.\d+)?)/.exec(buf.subarray(0, n).toString('latin1'))?.[1] ?? null
  } finally {
    closeSync(fd)
  }
}
