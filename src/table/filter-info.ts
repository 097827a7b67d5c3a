/**
 * What filter a table carries: full, partitioned or the obsolete block-based
 * kind, identified from the filter's own metadata (not from the policy name).
 */
import { type FilterDescription, identifyBlockBasedFilter, identifyFilter } from '../format/filter.js'
import { IndexBlockIter } from '../format/index-block.js'
import { BLOCK_BASED_FILTER_PREFIX, FULL_FILTER_PREFIX, PARTITIONED_FILTER_PREFIX } from '../format/metaindex.js'
import { Property, propertyNumber } from '../format/properties.js'
import type { Table } from './reader.js'

export interface FilterInfo {
  /** Metaindex name, e.g. `fullfilter.rocksdb.BuiltinBloomFilter`. */
  readonly metaName: string
  readonly layout: 'full' | 'partitioned' | 'block-based'
  /** Filter bytes in all blocks (partitions summed), trailers excluded. */
  readonly totalBytes: number
  readonly partitions: number
  /** The full filter, or the first partition of a partitioned one. */
  readonly description: FilterDescription | null
  /** Kinds of every partition when they differ from the first (should not happen). */
  readonly mixedKinds?: string[]
}

export function filterInfo(table: Table): FilterInfo | null {
  const entry = table.metaindexEntries.find(
    (e) => e.name.startsWith(FULL_FILTER_PREFIX) || e.name.startsWith(PARTITIONED_FILTER_PREFIX) || e.name.startsWith(BLOCK_BASED_FILTER_PREFIX),
  )
  if (!entry) return null
  const numKeys = propertyNumber(table.properties, Property.NumFilterEntries)
  if (entry.name.startsWith(FULL_FILTER_PREFIX)) {
    const bytes = table.readBlock(entry.handle, 'filter block')
    return {
      metaName: entry.name,
      layout: 'full',
      totalBytes: bytes.length,
      partitions: 0,
      description: identifyFilter(bytes, entry.handle.offset, { numKeys }),
    }
  }
  if (entry.name.startsWith(BLOCK_BASED_FILTER_PREFIX)) {
    const bytes = table.readBlock(entry.handle, 'filter block')
    identifyBlockBasedFilter(bytes, entry.handle.offset)
    return { metaName: entry.name, layout: 'block-based', totalBytes: bytes.length, partitions: 0, description: null }
  }
  const index = table.readBlock(entry.handle, 'filter partition index')
  const it = new IndexBlockIter(index, entry.handle.offset, { ...table.indexEncoding, hasFirstKey: false }, 'filter partition index')
  let partitions = 0
  let totalBytes = 0
  let first: FilterDescription | null = null
  const kinds = new Set<string>()
  for (it.seekToFirst(); it.valid; it.next()) {
    const bytes = table.readBlock(it.handle, 'filter partition')
    const d = identifyFilter(bytes, it.handle.offset)
    first ??= d
    kinds.add(d.kind)
    partitions++
    totalBytes += bytes.length
  }
  if (first && numKeys) first = { ...first, bitsPerKey: ((totalBytes - 5 * partitions) * 8) / numKeys }
  return {
    metaName: entry.name,
    layout: 'partitioned',
    totalBytes,
    partitions,
    description: first,
    ...(kinds.size > 1 ? { mixedKinds: [...kinds] } : {}),
  }
}

/** One line for people: "fastLocalBloom, 6 probes, 64-byte blocks, 10.3 bits/key". */
export function describeFilter(f: FilterInfo): string {
  const d = f.description
  const parts: string[] = []
  if (d) {
    parts.push(d.kind)
    if (d.kind === 'legacyBloom') parts.push(`${d.numProbes} probes`, `${d.numLines} lines of ${d.lineBytes} bytes`)
    if (d.kind === 'fastLocalBloom') parts.push(`${d.numProbes} probes`, `${d.blockBytes}-byte blocks`)
    if (d.kind === 'ribbon') parts.push(`seed ${d.seed}`, `${d.numBlocks} blocks`, `${d.upperNumColumns} result bits`)
    if (d.bitsPerKey !== undefined) parts.push(`${d.bitsPerKey.toFixed(1)} bits/key`)
  } else parts.push('block-based (obsolete)')
  parts.push(f.layout === 'partitioned' ? `${f.partitions} partitions, ${f.totalBytes} bytes` : `${f.totalBytes} bytes`)
  return parts.join(', ')
}
