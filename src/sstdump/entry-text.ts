/** sst_dump 7.8.3's entry-level text and walks: an internal key parsed as it parses it, its debug string, a block's first entry and the next, names as it prints them. */
import { compressionTypeName, isKnownCompressionType } from '../format/compression-type.js'
import type { BlockHandle } from '../format/block-handle.js'
import { BlockIter } from '../format/block.js'
import { MAX_SEQUENCE_NUMBER } from '../format/internal-key.js'
import { encodeVarint } from '../format/coding.js'
import { hexUpper } from './sink.js'
import { corruption } from './status.js'

/** A data block's iterator at its first entry, failing with sst_dump's statuses (block, then entry). */
export function firstEntry(data: Uint8Array, offset: number, restartInterval: number): BlockIter {
  let it: BlockIter
  try {
    it = new BlockIter(data, offset, 'data block', restartInterval)
  } catch {
    throw corruption('bad block contents')
  }
  // sst_dump reads data blocks by linear iteration, which never looks at the restart points.
  it.checkRestarts = false
  try {
    it.seekToFirst()
  } catch {
    throw corruption('bad entry in block')
  }
  return it
}

/** The next entry, failing with sst_dump's status. */
export function advance(it: BlockIter): boolean {
  try {
    return it.next()
  } catch {
    throw corruption('bad entry in block')
  }
}

export function startsWith(a: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > a.length) return false
  for (let i = 0; i < prefix.length; i++) if (a[i] !== prefix[i]) return false
  return true
}

/** Types `ParseInternalKey` accepts (`IsExtendedValueType`): 7.8.3 and the newest release. */
export function validType(t: number, latest: boolean): boolean {
  if (t <= 2 || t === 7 || t === 0x11 || t === 0x14 || t === 0x16 || t === 0x0f) return true
  return latest ? t === 0x18 || t === 0x1a : t === 0x18
}

export type ParsedIkey =
  | { ok: true; userKey: Uint8Array; seq: bigint; type: number }
  | { ok: false; state: Uint8Array; userKey: Uint8Array; seq: bigint; type: number }

/** `ParseInternalKey(key, &ikey, log_err_key=true)`; on failure `state` is the Status state. */
export function parseIkey783(key: Uint8Array, latest = false): ParsedIkey {
  if (key.length < 8) {
    return {
      ok: false,
      state: Buffer.from(`Corrupted Key: Internal Key too small. Size=${key.length}. `),
      userKey: new Uint8Array(0),
      seq: MAX_SEQUENCE_NUMBER,
      type: 0,
    }
  }
  const n = key.length - 8
  const packed = new DataView(key.buffer, key.byteOffset + n, 8).getBigUint64(0, true)
  const type = Number(packed & 0xffn)
  const seq = packed >> 8n
  const userKey = key.subarray(0, n)
  if (validType(type, latest)) return { ok: true, userKey, seq, type }
  return { ok: false, state: Buffer.concat([Buffer.from('Corrupted Key: '), debugString(userKey, seq, type, true, 0)]), userKey, seq, type }
}

/** A --read_num no file reaches (the default is 2^64 - 1): each entry takes at least 3 bytes of decompressed block. */
export const UNREACHABLE_READ_NUM = 1n << 62n

export const QUOTE = Buffer.from("'")
export const SEQ = Buffer.from("' seq:")
export const TYPE = Buffer.from(', type:')
export const ARROW = Buffer.from(' => ')
export const NEWLINE = Buffer.from('\n')

/** `ParsedInternalKey::DebugString(log_err_key=true, hex)` as bytes. */
export function debugString(userKey: Uint8Array, seq: bigint, type: number, hex: boolean, tsSize: number): Uint8Array {
  let keyPart: Uint8Array
  if (tsSize > 0 && userKey.length >= tsSize) {
    const k = userKey.subarray(0, userKey.length - tsSize)
    const ts = Buffer.from(userKey.subarray(userKey.length - tsSize)).readBigUInt64LE(0)
    keyPart = Buffer.concat([hex ? Buffer.from(hexUpper(k), 'latin1') : k, Buffer.from(`|timestamp:${ts}`)])
  } else keyPart = hex ? Buffer.from(hexUpper(userKey), 'latin1') : userKey
  return Buffer.concat([Buffer.from("'"), keyPart, Buffer.from(`' seq:${seq}, type:${type}`)])
}

/** `CompressionTypeToString` of 7.8.3: the built-in names and ZSTDNotFinal; anything else (DisableOption too) prints empty. */
export function compressionName783(t: number): string {
  return t !== 0xff && isKnownCompressionType(t) ? compressionTypeName(t) : ''
}

/** `BlockHandle::ToString(true)` / an encoded handle in hex. */
export function handleHex(h: BlockHandle): string {
  return hexUpper(Buffer.concat([encodeVarint(h.offset), encodeVarint(h.size)]))
}
