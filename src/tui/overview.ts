/** The overview's byte split: how the file's bytes divide between data, index, filter and meta blocks. */
import { Property, propertyNumber } from '../format/properties.js'
import type { BlockKind, LayoutBlock, Table } from '../index.js'

export interface ByteSplit {
  /** 'properties' before the layout is known, then 'layout' (measured from the blocks). */
  readonly source: 'properties' | 'layout'
  readonly fileSize: number
  readonly parts: { readonly name: SplitName; readonly bytes: number }[]
}

export type SplitName = 'data' | 'index' | 'filter' | 'meta' | 'gap'

/**
 * From every block of the file (gaps included) once they are all known, else
 * estimated from the table's size properties.
 */
export function byteSplit(table: Table, blocks: readonly LayoutBlock[] | null): ByteSplit {
  const fileSize = table.fileSize
  if (blocks) {
    const sums: Record<SplitName, number> = { data: 0, index: 0, filter: 0, meta: 0, gap: 0 }
    for (const b of blocks) sums[splitName(b.kind)] += b.sizeOnDisk
    return { source: 'layout', fileSize, parts: Object.entries(sums).map(([name, bytes]) => ({ name: name as SplitName, bytes })) }
  }
  const num = (n: string) => propertyNumber(table.properties, n) ?? 0
  const data = num(Property.DataSize)
  const index = num(Property.IndexSize)
  const filter = num(Property.FilterSize)
  const meta = Math.max(0, fileSize - data - index - filter)
  return {
    source: 'properties',
    fileSize,
    parts: [
      { name: 'data', bytes: data },
      { name: 'index', bytes: index },
      { name: 'filter', bytes: filter },
      { name: 'meta', bytes: meta },
    ],
  }
}

function splitName(kind: BlockKind): SplitName {
  switch (kind) {
    case 'data':
      return 'data'
    case 'index':
    case 'index partition':
      return 'index'
    case 'filter':
    case 'filter partition':
      return 'filter'
    case 'gap':
      return 'gap'
    default:
      return 'meta'
  }
}
