/**
 * Names read from a database (column family names, string properties, OPTIONS files) as strings
 * that keep their exact bytes. RocksDB stores names as bytes, not text: valid UTF-8 decodes as
 * itself, and each byte that is not part of a valid UTF-8 sequence becomes the lone surrogate
 * U+DC80..U+DCFF (Python's "surrogateescape", PEP 383). No valid UTF-8 decodes to a surrogate, so
 * the bytes come back exactly (`exactTextBytes`), two different names never become one, and
 * JSON.stringify writes such a byte as `\udcNN` (`json.loads(s).encode('utf-8', 'surrogateescape')`
 * in Python recovers the bytes).
 */

const STRICT = new TextDecoder('utf-8', { fatal: true })
const ENCODER = new TextEncoder()

/** The bytes as a string: UTF-8, each byte outside a valid sequence as U+DC00 + byte. */
export function exactText(bytes: Uint8Array): string {
  try {
    return STRICT.decode(bytes)
  } catch {
    let out = ''
    let run = 0
    for (let i = 0; i < bytes.length; ) {
      const n = utf8SequenceLength(bytes, i)
      if (n > 0) {
        i += n
        continue
      }
      out += STRICT.decode(bytes.subarray(run, i)) + String.fromCharCode(0xdc00 + bytes[i])
      run = ++i
    }
    return out + STRICT.decode(bytes.subarray(run))
  }
}

/** The bytes `exactText` read the string from (UTF-8, U+DC80..U+DCFF as single bytes). */
export function exactTextBytes(s: string): Uint8Array {
  if (!/[\udc80-\udcff]/.test(s)) return ENCODER.encode(s)
  const parts: number[] = []
  for (const c of s) {
    const cp = c.codePointAt(0)!
    if (cp >= 0xdc80 && cp <= 0xdcff) parts.push(cp - 0xdc00)
    else parts.push(...ENCODER.encode(c))
  }
  return Uint8Array.from(parts)
}

/** Whether the string holds a byte that was not UTF-8 (see exactText). */
export function hasRawBytes(s: string): boolean {
  return /[\udc80-\udcff]/.test(s)
}

/** Length of the valid UTF-8 sequence at `i` (RFC 3629: no overlong forms, no surrogates, ≤ U+10FFFF), 0 when there is none. */
function utf8SequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]
  if (c < 0x80) return 1
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0
  if (c >= 0xe0 && c <= 0xef) {
    const ok = c === 0xe0 ? cont(1, 0xa0) : c === 0xed ? cont(1, 0x80, 0x9f) : cont(1)
    return ok && cont(2) ? 3 : 0
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const ok = c === 0xf0 ? cont(1, 0x90) : c === 0xf4 ? cont(1, 0x80, 0x8f) : cont(1)
    return ok && cont(2) && cont(3) ? 4 : 0
  }
  return 0
}
