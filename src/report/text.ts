/** Text forms of keys, values and sizes for people. */
import { HEX_DIGITS } from '../format/coding.js'

/** Scratch output for escapeBytes: worst case 4 bytes (\xNN) per input byte; grown on demand, reused. */
let escapeScratch = Buffer.allocUnsafe(4096)

/** Printable ASCII as is; other bytes as \xNN; backslash and quote escaped. */
export function escapeBytes(b: Uint8Array): string {
  // One pass writing ASCII bytes into a reused buffer, then one native latin1
  // decode: building the string a character at a time was the top self-time
  // function of `scan` (about 40% of a scan of mixed text/binary values).
  const need = b.length * 4
  if (escapeScratch.length < need) escapeScratch = Buffer.allocUnsafe(Math.max(need, escapeScratch.length * 2))
  const out = escapeScratch
  let o = 0
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (c >= 0x20 && c < 0x7f) {
      if (c === 0x5c || c === 0x27) out[o++] = 0x5c // \\ and \'
      out[o++] = c
    } else {
      out[o++] = 0x5c // \
      out[o++] = 0x78 // x
      out[o++] = HEX_DIGITS[c >> 4]
      out[o++] = HEX_DIGITS[c & 15]
    }
  }
  return out.toString('latin1', 0, o)
}

/** Shorten a display string, marking that it was cut. */
export function truncate(s: string, max: number): string {
  if (max <= 0 || s.length <= max) return s
  return `${s.slice(0, Math.max(0, max - 1))}…`
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[i]}`
}

export function percent(part: number, whole: number): string {
  if (whole === 0) return '-'
  return `${((100 * part) / whole).toFixed(1)}%`
}

/** Numbers and bigints as decimal strings, JSON-safe. */
export function jsonNumber(v: number | bigint | string): number | string {
  return typeof v === 'bigint' ? v.toString() : v
}
