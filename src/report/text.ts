/** Text forms of keys, values and sizes for people. */

/** Printable ASCII as is; other bytes as \xNN; backslash and quote escaped. */
export function escapeBytes(b: Uint8Array): string {
  let clean = true
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (c < 0x20 || c >= 0x7f || c === 0x5c || c === 0x27) {
      clean = false
      break
    }
  }
  // Common case: printable ASCII, decoded natively.
  if (clean) return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1')
  let out = ''
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (c >= 0x20 && c < 0x7f && c !== 0x5c && c !== 0x27) out += String.fromCharCode(c)
    else if (c === 0x5c) out += '\\\\'
    else if (c === 0x27) out += "\\'"
    else out += '\\x' + (c < 16 ? '0' : '') + c.toString(16)
  }
  return out
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
