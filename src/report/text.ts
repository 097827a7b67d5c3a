/** Text forms of keys, values and sizes for people. */
// escapeBytes lives with the byte codings (error messages below report/ escape bytes too).
export { escapeBytes } from '../format/coding.js'

/** Shorten a display string, marking that it was cut. */
export function truncate(s: string, max: number): string {
  if (max <= 0 || s.length <= max) return s
  return `${s.slice(0, Math.max(0, max - 1))}…`
}

/*
 * Sizes and changes for people, one convention for every command: human sizes
 * (KiB/MiB) and signed percentages in tables, exact bytes with `--bytes` (and
 * always in JSON and CSV). Signs are ASCII '+' and '-'.
 */

/** 1023 → "1023 B", 45387 → "44.3 KiB": three significant digits, binary units. */
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

/** Human units, or the exact whole number of bytes with `exact` (--bytes). */
export function formatSize(n: number, exact = false): string {
  const whole = Math.round(n)
  return exact ? String(whole) : formatBytes(whole)
}

/** Exact bytes or counts with thousands separators: 1234567 → "1,234,567". */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US')
}

/** A signed count: "+1,234", "-56", "0". */
export function formatSigned(n: number): string {
  return `${n > 0 ? '+' : n < 0 ? '-' : ''}${formatCount(Math.abs(n))}`
}

/**
 * A relative change as a signed percentage: 0.086 → "+8.6%", -0.504 → "-50.4%".
 * The sign is the change's own, also when the digits round to zero ("+0.0%":
 * it grew), and only an exact zero has none. '' for null (no base to compare with).
 */
export function signedPercent(fraction: number | null, digits = 1): string {
  if (fraction === null || !Number.isFinite(fraction)) return ''
  const text = Math.abs(fraction * 100).toFixed(digits)
  return `${fraction > 0 ? '+' : fraction < 0 ? '-' : ''}${text}%`
}

/** Marks a measured speed too short or too spread to rank on (shown before the value, explained by a legend). */
export const NOISY_MARK = '~'

/** A share of a whole, unsigned: "95.3%" ("-" without a whole). */
export function percent(part: number, whole: number): string {
  if (whole === 0) return '-'
  return `${((100 * part) / whole).toFixed(1)}%`
}

/**
 * Greedy word wrap to `width` columns. Continuation lines start with `indent`
 * (default: the text's own leading spaces, which the first line keeps); a word
 * longer than a line's room is split.
 */
export function wrapWords(text: string, width: number, indent = /^ */.exec(text)![0]): string[] {
  const lead = /^ */.exec(text)![0]
  const out: string[] = []
  let line = ''
  const prefix = () => (out.length === 0 ? lead : indent)
  const room = () => Math.max(1, width - prefix().length)
  const flush = () => {
    out.push(prefix() + line)
    line = ''
  }
  for (let word of text.trim().split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > room()) flush()
    while (!line && word.length > room()) {
      line = word.slice(0, room())
      word = word.slice(line.length)
      flush()
    }
    if (word) line = line ? `${line} ${word}` : word
  }
  if (line || out.length === 0) flush()
  return out
}

/** Numbers and bigints as decimal strings, JSON-safe. */
export function jsonNumber(v: number | bigint | string): number | string {
  return typeof v === 'bigint' ? v.toString() : v
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f\\\udc80-\udcff]/g
/** A control character as \xNN; a byte that was not UTF-8 (U+DC80..U+DCFF, format/exact-text.ts) as the byte's \xNN. */
const hexEscape = (c: string) => `\\x${(c.charCodeAt(0) & 0xff).toString(16).padStart(2, '0')}`

/**
 * A name for people (a column family's, a file's): control characters as \xNN, and the backslash
 * doubled so that the escape cannot be mistaken for the name "\x01" itself. A name of control bytes
 * then neither blanks a table row nor moves the cursor, in text, Markdown and HTML alike.
 */
export function escapeName(s: string): string {
  return s.replace(CONTROL, (c) => (c === '\\' ? '\\\\' : hexEscape(c)))
}

/** Free text for one line (a note, a message): control characters as \xNN; a backslash stays. */
export function printable(s: string): string {
  return s.replace(CONTROL, (c) => (c === '\\' ? c : hexEscape(c)))
}
