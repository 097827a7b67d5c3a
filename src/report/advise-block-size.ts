/**
 * advise's block size per column family in words: the candidates' projected bytes with their
 * intervals and what each costs a read (a table for text and Markdown, a table and an SVG chart of
 * size against block size for HTML), the recommendation, and the table option to set
 * ([TableOptions/BlockBasedTable "cf"] block_size) as a change against today's section.
 */
import type { BlockSizeAdvice, BlockSizeCandidate } from '../advise/block-size.js'
import { blockSizeLabel } from '../recompress/config.js'
import { noteText } from './advise-notes.js'
import { optionsSectionHeader } from './options-section.js'
import type { TableModel } from './table.js'
import { escapeName, formatSize, signedPercent } from './text.js'

/** The OPTIONS-file section the advised block size goes in (RocksDB's BlockBasedTableFactory), the name escaped as RocksDB writes it. */
export function blockSizeSectionTitle(columnFamily: string): string {
  return optionsSectionHeader('TableOptions/BlockBasedTable', columnFamily)
}

/** The table option to set, key → value; empty when today's is kept. */
export function blockSizeOptions(a: BlockSizeAdvice): Record<string, string> {
  return a.recommended === null || a.recommended === a.today ? {} : { block_size: String(a.recommended) }
}

/** The change against today's table section, as advise shows option changes (a diff); '' when today's is kept. */
export function blockSizeOptionsDiff(a: BlockSizeAdvice): string {
  const o = blockSizeOptions(a)
  if (!o.block_size) return ''
  return [blockSizeSectionTitle(a.columnFamily), `-  block_size=${a.today}`, `+  block_size=${o.block_size}`].join('\n')
}

function interval(c: BlockSizeCandidate, exact = false): string {
  const { estimate, low, high } = c.bytes
  if (low === high) return formatSize(estimate, exact)
  const half = Math.max(high - estimate, estimate - low) / estimate
  return `${formatSize(estimate, exact)} ±${(half * 100).toFixed(1)}%`
}

/** Under which compression the levels were re-cut, in words. */
function compressionWords(a: BlockSizeAdvice): string {
  return a.compression === 'advised' ? 'each level under the compression advised for it' : 'each level under its compression of today'
}

/** The column family's block size advice in one line: what was re-cut, and the block_size to set (or today's kept) and why. */
export function blockSizeSummaryLine(a: BlockSizeAdvice): string {
  const what = `column family "${escapeName(a.columnFamily)}": ${a.files.evaluated} of ${a.files.of} table files re-cut, ${compressionWords(a)}`
  return a.recommended === null || a.recommended === a.today
    ? `${what}: block_size stays ${a.today}: ${a.reason}`
    : `${what}: block_size=${a.recommended} (today ${a.today}): ${a.reason}`
}

/**
 * The candidates as a table (text and Markdown): projected bytes with their 95% interval, the
 * change against today's, the index, and a point lookup's read (bottommost level); the read
 * cores only where the LOG measured misses.
 */
export function blockSizeModel(a: BlockSizeAdvice, exact = false): TableModel {
  const measured = a.candidates.some((c) => c.read.readCores !== null)
  return {
    columns: [
      { header: 'Block size' },
      { header: 'Projected (95%)', align: 'right' },
      { header: 'Change', align: 'right' },
      { header: 'Index', align: 'right' },
      { header: 'Read a lookup', align: 'right' },
      { header: 'Decompressed', align: 'right' },
      ...(measured ? [{ header: 'Read cores', align: 'right' as const }] : []),
      { header: '' },
    ],
    rows: a.candidates.map((c) => [
      blockSizeLabel(c.blockSize),
      interval(c, exact),
      c.blockSize === a.today ? '' : signedPercent(c.change),
      formatSize(c.indexBytes, exact),
      formatSize(c.read.bytesReadPerLookup, exact),
      formatSize(c.read.bytesDecompressedPerLookup, exact),
      ...(measured ? [c.read.readCores === null ? '' : c.read.readCores.toPrecision(2)] : []),
      [c.blockSize === a.recommended && a.recommended !== a.today ? 'recommended' : '', c.blockSize === a.today ? 'today' : ''].filter(Boolean).join(', '),
    ]),
  }
}

/** What a table's columns say, under it (text and Markdown). */
export const BLOCK_SIZE_LEGEND =
  'Projected: data and dictionary blocks of every level; a point lookup that misses the block cache reads one data block of the bottommost level (Read a lookup, compressed) and decompresses it (Decompressed, also what the block cache holds per block).'

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
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-label="${escapeXml(`projected bytes against block size, column family ${escapeName(a.columnFamily)}`)}">`,
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
    `<section class="block-size"><h3>Block size: ${escapeXml(escapeName(a.columnFamily))}</h3>`,
    `<figure class="chart">${blockSizeChartSvg(a)}<figcaption>Projected data and dictionary bytes of the column family against block_size (${compressionWords(a)}; bars: estimate, lines: 95% interval).</figcaption></figure>`,
    `<table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`,
    `<p>${escapeXml(a.reason)}</p>`,
    ...a.notes.map((n) => `<p class="note">${escapeXml(noteText(n))}</p>`),
    '</section>',
  ].join('\n')
}
