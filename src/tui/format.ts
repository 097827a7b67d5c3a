/**
 * Text for the browser's panes: keys, values, hex dumps, the byte-split bar,
 * fixed-width cells. Plain functions over strings; no ink, no file access.
 */
import { decodeBlobIndex } from '../format/blob-index.js'
import { decodeWideColumns } from '../format/wide-columns.js'
import { formatBlobIndex } from '../report/sst-dump-text.js'
import { splitValuePreferredSeqno } from '../format/preferred-seqno.js'
import { ValueType, valueTypeName } from '../format/value-type.js'
import type { BlockKind } from '../reader.js'
import { toHex } from '../format/coding.js'
import { escapeBytes, formatBytes, percent, truncate } from '../report/text.js'
import type { ByteSplit, EntryRow } from './model.js'

/** Longest value shown in the detail pane; the rest is summarised. */
export const MAX_VALUE_BYTES = 64 * 1024

/** A key or value for one line: escaped text, or 0x-prefixed hex. */
export function bytesText(b: Uint8Array, asHex: boolean): string {
  return asHex ? `0x${toHex(b)}` : escapeBytes(b)
}

/** Exactly `width` characters: cut with an ellipsis, or padded. */
export function cell(s: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return ''
  const t = truncate(s, width)
  return align === 'right' ? t.padStart(width) : t.padEnd(width)
}

/** Cut a line to the terminal width (with an ellipsis when cut). */
export function clip(s: string, width: number): string {
  return truncate(s, Math.max(1, width))
}

/** Split text into lines of at most `width` characters. */
export function wrap(s: string, width: number): string[] {
  const w = Math.max(8, width)
  const out: string[] = []
  for (const para of s.split('\n')) {
    if (para.length === 0) out.push('')
    for (let i = 0; i < para.length; i += w) out.push(para.slice(i, i + w))
  }
  return out
}

/** `offset  hh hh ...  |ascii|` lines, as many bytes per line as fit in `width`. */
export function hexDump(b: Uint8Array, width: number): string[] {
  // 8 (offset) + 2 + 3n (hex) + 1 + n + 2 (ascii) <= width
  const per = Math.max(4, Math.min(32, Math.floor((width - 13) / 4 / 4) * 4))
  const out: string[] = []
  for (let o = 0; o < b.length; o += per) {
    const chunk = b.subarray(o, o + per)
    const hex = [...chunk].map((x) => x.toString(16).padStart(2, '0')).join(' ')
    const ascii = [...chunk].map((x) => (x >= 0x20 && x < 0x7f ? String.fromCharCode(x) : '.')).join('')
    out.push(`${o.toString(16).padStart(8, '0')}  ${hex.padEnd(per * 3 - 1)}  |${ascii}|`)
  }
  return out
}

/** Lines for the detail pane's value section: raw (text or hex) plus what it decodes to. */
export function valueLines(e: EntryRow, asHex: boolean, width: number): string[] {
  const v = e.value
  const shown = v.length > MAX_VALUE_BYTES ? v.subarray(0, MAX_VALUE_BYTES) : v
  const raw = (b: Uint8Array): string[] => (asHex ? hexDump(b, width) : wrap(escapeBytes(b), width))
  const out: string[] = []
  const decoded = (title: string, f: () => string[]): void => {
    try {
      out.push(title, ...f().map((l) => `  ${l}`))
    } catch (err) {
      out.push(`${title} undecodable: ${(err as Error).message}`)
    }
  }
  switch (e.type) {
    case ValueType.Deletion:
    case ValueType.SingleDeletion:
    case ValueType.DeletionWithTimestamp:
      if (v.length === 0) return ['(a deletion: no value)']
      break
    case ValueType.BlobIndex:
      decoded('blob index:', () => [formatBlobIndex(decodeBlobIndex(v), { hex: asHex })])
      out.push('raw:')
      break
    case ValueType.WideColumnEntity:
      decoded('wide columns:', () =>
        decodeWideColumns(v).map(
          (c) => `${bytesText(c.name, asHex) || "''"} = ${c.blobIndex ? `{${formatBlobIndex(c.blobIndex, { hex: asHex })}}` : bytesText(c.value, asHex)}`,
        ),
      )
      out.push('raw:')
      break
    case ValueType.ValuePreferredSeqno:
      decoded('value with preferred seqno:', () => {
        const p = splitValuePreferredSeqno(v)
        return [`preferred seqno ${p.preferredSeqno}`, ...raw(p.value)]
      })
      out.push('raw:')
      break
    default:
      break
  }
  if (v.length === 0) out.push('(empty)')
  else out.push(...raw(shown))
  if (shown !== v) out.push(`… showing the first ${formatBytes(MAX_VALUE_BYTES)} of ${formatBytes(v.length)}`)
  return out
}

export function typeText(type: number): string {
  return valueTypeName(type)
}

/** Colour of each block kind, shared by the Blocks list and the Overview bar. */
export function kindColor(kind: BlockKind | ByteSplit['parts'][number]['name']): string {
  switch (kind) {
    case 'data':
      return 'green'
    case 'index':
    case 'index partition':
      return 'cyan'
    case 'filter':
    case 'filter partition':
      return 'magenta'
    case 'range-del':
      return 'yellow'
    case 'gap':
      return 'gray'
    default:
      return 'blue'
  }
}

export interface BarSegment {
  readonly name: ByteSplit['parts'][number]['name']
  readonly cells: number
  readonly bytes: number
}

/** Divide `width` cells among the parts, every non-empty part getting at least one. */
export function barSegments(split: ByteSplit, width: number): BarSegment[] {
  const parts = split.parts.filter((p) => p.bytes > 0)
  const total = parts.reduce((a, p) => a + p.bytes, 0)
  if (total === 0 || width <= 0) return []
  const cells = parts.map((p) => Math.max(1, Math.round((p.bytes / total) * width)))
  let over = cells.reduce((a, c) => a + c, 0) - width
  while (over > 0) {
    const i = cells.indexOf(Math.max(...cells))
    cells[i]--
    over--
  }
  while (over < 0) {
    const i = cells.indexOf(Math.max(...cells))
    cells[i]++
    over++
  }
  return parts.map((p, i) => ({ name: p.name, cells: cells[i], bytes: p.bytes }))
}

export function legend(split: ByteSplit): { name: ByteSplit['parts'][number]['name']; text: string }[] {
  return split.parts
    .filter((p) => p.bytes > 0 || p.name !== 'gap')
    .map((p) => ({ name: p.name, text: `${p.name} ${percent(p.bytes, split.fileSize)} ${formatBytes(p.bytes)}` }))
}

export { formatBytes, percent }
