/** The drop-in's reads: a block through the library's block reader, the file's tail, the properties block with sst_dump's statuses. */
import { readSync } from 'node:fs'
import type { BlockHandle } from '../format/block-handle.js'
import { CorruptionError } from '../format/errors.js'
import type { Footer } from '../format/footer.js'
import { decodeProperties, type TableProperties } from '../format/properties.js'
import type { FileByteSource, ReadWindow } from '../io/byte-source.js'
import { readRawBlock as readRawBlockImpl } from '../table/block-reader.js'
import { corruption } from './status.js'

export function readTail(fd: number, size: number, n: number): Uint8Array {
  const len = Math.min(n, size)
  const buf = Buffer.alloc(len)
  let done = 0
  while (done < len) {
    const r = readSync(fd, buf, done, len - done, size - len + done)
    if (r === 0) break
    done += r
  }
  return buf.subarray(0, done)
}
export function ctxOf(footer: Footer) {
  return { checksumType: footer.checksumType, formatVersion: footer.formatVersion, baseContextChecksum: footer.baseContextChecksum ?? 0 }
}
export function rawRead(source: FileByteSource, footer: Footer, h: BlockHandle, verify: boolean, window?: ReadWindow) {
  // Local import cycle-free wrapper around the library's block reader.
  return readRawBlockImpl(source, h, ctxOf(footer), {
    what: 'block',
    verifyChecksum: verify,
    limit: source.size,
    maxBlockBytes: Number.MAX_SAFE_INTEGER,
    window,
  })
}
export function decodePropertiesStatus(data: Uint8Array, base: number): TableProperties {
  try {
    return decodeProperties(data, base)
  } catch (e) {
    if (e instanceof CorruptionError && /not sorted/.test(e.message)) throw corruption('properties unsorted')
    throw corruption('bad block contents')
  }
}
