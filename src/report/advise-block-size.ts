/**
 * advise's block size per column family in words: the candidates' projected bytes with their
 * intervals and what each costs a read (text and HTML), the recommendation, the table option to
 * set ([TableOptions/BlockBasedTable "cf"] block_size) with its change, and an SVG chart of size
 * against block size for the HTML report.
 */
import type { BlockSizeAdvice, BlockSizeCandidate } from '../advise/block-size.js'
import { blockSizeLabel } from '../recompress/config.js'
import { formatSize, signedPercent } from './text.js'

/** The OPTIONS-file section the advised block size goes in (RocksDB's BlockBasedTableFactory). */
export function blockSizeSectionTitle(columnFamily: string): string {
  return `[TableOptions/BlockBasedTable "${columnFamily}"]`
}

/** The table option to set, key → value; empty when today's is kept. */
export function blockSizeOptions(a: BlockSizeAdvice): Record<string, string> {
  return a.recommended === null || a.recommended === a.today ? {} : { block_size: String(a.recommended) }
}

/** The section to paste, with the change against today as a comment; '' when today's is kept. */
export function blockSizeOptionsText(a: BlockSizeAdvice): string {
  const o = blockSizeOptions(a)
  if (!o.block_size) return ''
  return `${blockSizeSectionTitle(a.columnFamily)}\n  block_size=${o.block_size}\n  # was block_size=${a.today}: ${a.reason}`
}

function interval(c: BlockSizeCandidate): string {
  const { estimate, low, high } = c.bytes
  if (low === high) return formatSize(estimate)
  const half = Math.max(high - estimate, estimate - low) / estimate
  return `${formatSize(estimate)} ±${(half * 100).toFixed(1)}%`
}

/** One line per candidate, for the text report. */
export function blockSizeLines(a: BlockSizeAdvice): string[] {
  const out = [
    `Block size, column family "${a.columnFamily}" (block_size, shared by its levels; each level's compression of today; ${a.files.evaluated} of ${a.files.of} files re-cut)`,
  ]
  const rows = a.candidates.map((c) => {
    const mark = c.blockSize === a.recommended ? '→' : c.blockSize === a.today ? '=' : ' '
    const reads = `reads ${formatSize(c.read.bytesReadPerLookup)}, decompresses ${formatSize(c.read.bytesDecompressedPerLookup)} a lookup`
    const cores = c.read.readCores === null ? '' : `, ${c.read.readCores.toPrecision(2)} cores at the measured misses`
    const today = c.blockSize === a.today ? ' (today)' : ''
    return `  ${mark} ${blockSizeLabel(c.blockSize).padStart(6)}  ${interval(c).padStart(16)}  ${(c.blockSize === a.today ? '' : signedPercent(c.change)).padStart(7)}  index ${formatSize(c.indexBytes).padStart(9)}  ${reads}${cores}${today}`
  })
  out.push(...rows, `  ${a.recommended === null ? '' : '→ '}${a.reason}`)
  for (const n of a.notes) out.push(`  note: ${n}`)
  return out
}

const CHART_WIDTH = 560
const CHART_HEIGHT = 220

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** Projected bytes against block size: a bar per candidate with its 95% interval, today's and the advised one marked. */
export function blockSizeChartSvg(a: BlockSizeAdvice): string {
  const pad = { left: 70, right: 16, top: 16, bottom: 40 }
  const w = CHART_WIDTH - pad.left - pad.right
  const h = CHART_HEIGHT - pad.top - pad.bottom
  const max = Math.max(...a.candidates.map((c) => c.bytes.high)) * 1.05
  const min = Math.min(...a.candidates.map((c) => c.bytes.low)) * 0.9
  const y = (v: number) => pad.top + h - ((v - min) / (max - min || 1)) * h
  const slot = w / a.candidates.length
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-label="${escapeXml(`projected bytes against block size, column family ${a.columnFamily}`)}">`,
    `<line x1="${pad.left}" y1="${pad.top + h}" x2="${pad.left + w}" y2="${pad.top + h}" stroke="#888"/>`,
  ]
  for (const tick of [min, (min + max) / 2, max]) {
    parts.push(`<text x="${pad.left - 6}" y="${y(tick) + 4}" font-size="11" text-anchor="end">${escapeXml(formatSize(tick))}</text>`)
  }
  for (const [i, c] of a.candidates.entries()) {
    const x = pad.left + i * slot + slot * 0.2
    const bw = slot * 0.6
    const fill = c.blockSize === a.recommended ? '#2a7' : c.blockSize === a.today ? '#48c' : '#aab'
    parts.push(
      `<rect x="${x.toFixed(1)}" y="${y(c.bytes.estimate).toFixed(1)}" width="${bw.toFixed(1)}" height="${(pad.top + h - y(c.bytes.estimate)).toFixed(1)}" fill="${fill}"><title>${escapeXml(`${blockSizeLabel(c.blockSize)}: ${interval(c)}`)}</title></rect>`,
    )
    if (c.bytes.high > c.bytes.low) {
      const cx = (x + bw / 2).toFixed(1)
      parts.push(`<line x1="${cx}" y1="${y(c.bytes.high).toFixed(1)}" x2="${cx}" y2="${y(c.bytes.low).toFixed(1)}" stroke="#333"/>`)
    }
    const label = `${blockSizeLabel(c.blockSize)}${c.blockSize === a.today ? ' (today)' : ''}`
    parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${pad.top + h + 16}" font-size="11" text-anchor="middle">${escapeXml(label)}</text>`)
  }
  parts.push('</svg>')
  return parts.join('')
}

/** The HTML section: the chart, the candidates' table and the recommendation. */
export function blockSizeHtml(a: BlockSizeAdvice): string {
  const rows = a.candidates
    .map((c) => {
      const cls = c.blockSize === a.recommended ? ' class="recommended"' : ''
      const cells = [
        `${blockSizeLabel(c.blockSize)}${c.blockSize === a.today ? ' (today)' : ''}`,
        interval(c),
        c.blockSize === a.today ? '' : signedPercent(c.change),
        formatSize(c.indexBytes),
        formatSize(c.read.bytesReadPerLookup),
        formatSize(c.read.bytesDecompressedPerLookup),
        c.read.readCores === null ? 'not measured' : c.read.readCores.toPrecision(2),
      ]
      return `<tr${cls}>${cells.map((x) => `<td>${escapeXml(x)}</td>`).join('')}</tr>`
    })
    .join('\n')
  const head = ['Block size', 'Projected (95%)', 'vs today', 'Index', 'Read a lookup', 'Decompressed a lookup', 'Read cores']
    .map((x) => `<th>${x}</th>`)
    .join('')
  return [
    `<section class="block-size"><h3>Block size: ${escapeXml(a.columnFamily)}</h3>`,
    `<figure class="chart">${blockSizeChartSvg(a)}<figcaption>Projected data and dictionary bytes of the column family against block_size (each level under its compression of today; bars: estimate, lines: 95% interval).</figcaption></figure>`,
    `<table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`,
    `<p>${escapeXml(a.reason)}</p>`,
    ...a.notes.map((n) => `<p class="note">${escapeXml(n)}</p>`),
    '</section>',
  ].join('\n')
}
