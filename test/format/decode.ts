/**
 * The `decode` program of test/format/golden/*.txt: one format/ decoder run over the bytes of a
 * committed file, its result printed as stable text (golden.test.ts compares it with the file).
 * The harness only cuts bytes out of the file by the handles the previous decoder gave; every
 * interpretation of them is the decoder's.
 *
 *   decode footer FILE               decodeFooter over the file's last bytes
 *   decode metaindex FILE            decodeMetaindex over the block the footer points at
 *   decode properties FILE           decodeProperties over the metaindex's rocksdb.properties block
 *   decode range-del FILE            decodeRangeDeletions over rocksdb.range_del (when present)
 *   decode manifest FILE [LIMIT]     LogReader + decodeVersionEdit over a MANIFEST's first records
 *   decode options FILE              parseOptionsFile
 *
 * A decoder's error prints as `error: MESSAGE` on stderr with exit 1; a harness mistake throws.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { blockChecksum, ChecksumType } from '../../src/codec/checksum.js'
import type { BlockHandle } from '../../src/format/block-handle.js'
import { SstkitError } from '../../src/errors.js'
import { decodeFooter, FOOTER_BYTES, magicName } from '../../src/format/footer.js'
import { decodeMetaindex, type MetaindexEntry, PROPERTIES_BLOCK, RANGE_DEL_BLOCK } from '../../src/format/metaindex.js'
import { decodeProperties } from '../../src/format/properties.js'
import { decodeRangeDeletions } from '../../src/format/range-del.js'
import { LogReader } from '../../src/format/log-record.js'
import { decodeVersionEdit } from '../../src/format/version-edit.js'
import { parseOptionsFile } from '../../src/format/options-file.js'

export interface DecodeResult {
  stdout: string
  stderr: string
  status: number
}

export const DECODE_COMMANDS = ['footer', 'metaindex', 'properties', 'range-del', 'manifest', 'options'] as const

/** Run `decode ARGS`, FILE relative to `root` (messages name it as given). */
export function decode(args: readonly string[], root: string): DecodeResult {
  const [command, file, ...rest] = args
  if (!file || !(DECODE_COMMANDS as readonly string[]).includes(command)) {
    throw new Error(`usage: decode (${DECODE_COMMANDS.join('|')}) FILE …; got "${args.join(' ')}"`)
  }
  const bytes = new Uint8Array(readFileSync(join(root, file)))
  try {
    return { stdout: run(command, bytes, file, rest), stderr: '', status: 0 }
  } catch (e) {
    if (!(e instanceof SstkitError)) throw e
    return { stdout: '', stderr: `error: ${e.message}\n`, status: 1 }
  }
}

function run(command: string, bytes: Uint8Array, file: string, rest: string[]): string {
  switch (command) {
    case 'footer': {
      const footer = decodeFooter(bytes.subarray(Math.max(0, bytes.length - FOOTER_BYTES)), bytes.length)
      return show({ ...footer, magic: `0x${footer.magic.toString(16)} (${magicName(footer.magic)})` })
    }
    case 'metaindex':
      return show(metaindexOf(bytes))
    case 'properties': {
      const props = decodeProperties(...blockOf(bytes, namedHandle(bytes, PROPERTIES_BLOCK)))
      return show({ known: props.known, user: props.user })
    }
    case 'range-del': {
      const entry = metaindexOf(bytes).find((e) => e.name === RANGE_DEL_BLOCK)
      return entry ? show(decodeRangeDeletions(...blockOf(bytes, entry.handle))) : 'no rocksdb.range_del block\n'
    }
    case 'manifest': {
      const limit = rest[0] ? Number(rest[0]) : Number.POSITIVE_INFINITY
      const source = { size: bytes.length, read: (offset: number, length: number) => bytes.subarray(offset, offset + length) }
      const out: unknown[] = []
      for (const record of new LogReader(source, { name: file, crc: (b) => blockChecksum(ChecksumType.CRC32c, b) }).records()) {
        if (out.length >= limit) break
        out.push({ offset: record.offset, edit: decodeVersionEdit(record.payload, record.offset) })
      }
      return show(out)
    }
    default:
      return show(parseOptionsFile(new TextDecoder().decode(bytes), file).sections)
  }
}

function metaindexOf(bytes: Uint8Array): MetaindexEntry[] {
  const footer = decodeFooter(bytes.subarray(Math.max(0, bytes.length - FOOTER_BYTES)), bytes.length)
  return decodeMetaindex(...blockOf(bytes, footer.metaindexHandle))
}

function namedHandle(bytes: Uint8Array, name: string): BlockHandle {
  const entry = metaindexOf(bytes).find((e) => e.name === name)
  if (!entry) throw new Error(`no ${name} block in the metaindex`)
  return entry.handle
}

/** A meta block's bytes (without its trailer: meta blocks are stored uncompressed) and its file offset. */
function blockOf(bytes: Uint8Array, handle: BlockHandle): [Uint8Array, number] {
  if (handle.offset + handle.size > bytes.length) throw new Error(`block ${handle.offset}+${handle.size} lies past the file's end`)
  return [bytes.subarray(handle.offset, handle.offset + handle.size), handle.offset]
}

/**
 * Stable text of a decoded value: JSON with two-space indents, bigints as `123n`, bytes as their
 * text when printable ASCII else `0x…` hex, Maps as objects in insertion order, and fields that
 * are undefined, empty arrays or false left out (a VersionEdit carries a dozen of them).
 */
export function show(value: unknown): string {
  return `${JSON.stringify(plain(value), null, 2)}\n`
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`
  if (v instanceof Uint8Array) return bytesText(v)
  if (v instanceof Map) return plain(Object.fromEntries(v))
  if (Array.isArray(v)) return v.map(plain)
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined || x === false || (Array.isArray(x) && x.length === 0)) continue
      out[k] = plain(x)
    }
    return out
  }
  return v
}

function bytesText(b: Uint8Array): string {
  if (b.length > 0 && b.every((c) => c >= 0x20 && c < 0x7f)) return String.fromCharCode(...b)
  return `0x${Buffer.from(b).toString('hex')}`
}
