/** The `layout` report: every block in file order and totals per kind. */
import type { LayoutBlock, TableLayout } from '../reader.js'
import { percent } from './text.js'
import type { TableModel } from './table.js'

export interface LayoutJson {
  file: string
  fileSize: number
  blocks: LayoutBlock[]
  totals: TableLayout['totals']
  problems: number
}

export function layoutJson(file: string, layout: TableLayout, summaryOnly: boolean): LayoutJson {
  return {
    file,
    fileSize: layout.fileSize,
    blocks: summaryOnly ? [] : layout.blocks,
    totals: layout.totals,
    problems: layout.blocks.filter((b) => b.problem).length,
  }
}

function ratio(b: { sizeOnDisk: number; uncompressedSize: number | null; compressionType?: number | null }): string {
  if (!b.uncompressedSize || b.sizeOnDisk === 0) return ''
  return (b.uncompressedSize / b.sizeOnDisk).toFixed(2)
}

export function blocksModel(layout: TableLayout): TableModel {
  return {
    columns: [
      { header: 'Kind' },
      { header: 'Name' },
      { header: 'Offset', align: 'right' },
      { header: 'On disk', align: 'right' },
      { header: 'Compression' },
      { header: 'Uncompressed', align: 'right' },
      { header: 'Ratio', align: 'right' },
      { header: 'Checksum' },
      { header: 'Problem' },
    ],
    rows: layout.blocks.map((b) => [
      b.kind,
      b.name,
      b.offset,
      b.sizeOnDisk,
      b.compression ?? '',
      b.uncompressedSize ?? '',
      ratio(b),
      b.kind === 'gap' ? '' : b.checksum === 'mismatch' ? 'MISMATCH' : b.checksum,
      b.problem ?? '',
    ]),
  }
}

export function totalsModel(layout: TableLayout): TableModel {
  const total = layout.totals.reduce((a, t) => a + t.sizeOnDisk, 0)
  return {
    columns: [
      { header: 'Kind' },
      { header: 'Blocks', align: 'right' },
      { header: 'On disk', align: 'right' },
      { header: 'Share', align: 'right' },
      { header: 'Uncompressed', align: 'right' },
      { header: 'Ratio', align: 'right' },
    ],
    rows: layout.totals.map((t) => [t.kind, t.count, t.sizeOnDisk, percent(t.sizeOnDisk, layout.fileSize), t.uncompressedSize || '', ratio(t)]),
    footer: [['total', layout.totals.reduce((a, t) => a + t.count, 0), total, percent(total, layout.fileSize), '', '']],
  }
}
