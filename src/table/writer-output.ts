/** What a table writer writes to (a file, or a count of bytes) and what it reports: the summary, its blocks' compression counts, and the rocksdb.compression property. */
import { writeSync } from 'node:fs'
import { CompressionType, compressionTypeName } from '../format/compression-type.js'

/** Where the table's bytes go. */
export interface TableSink {
  write(bytes: Uint8Array): void
  /** A sink that only counts bytes needs no checksums (sizes do not depend on them). */
  readonly countsOnly?: boolean
}

export class FileSink implements TableSink {
  written = 0
  constructor(private readonly fd: number) {}
  write(bytes: Uint8Array): void {
    let done = 0
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done)
    this.written += bytes.length
  }
}

/** Counts bytes only: exact sizes without writing a file. */
export class CountingSink implements TableSink {
  written = 0
  readonly countsOnly = true
  write(bytes: Uint8Array): void {
    this.written += bytes.length
  }
}

/** How a table's blocks were compressed: the counts the writer reports and recompress projects. */
export interface BlockCompressionCounts {
  blocksCompressed: number
  blocksRejected: number
  /** Data blocks stored raw without an attempt (auto-skip, or a budget too small to try). */
  blocksBypassed: number
  /** Index blocks (the index, or its partitions and top level) stored compressed. */
  indexBlocksCompressed: number
  /** Index blocks whose compression was tried and rejected. */
  indexBlocksRejected: number
  /** The index blocks' uncompressed sizes, summed (without trailers). */
  indexUncompressedBytes: number
}

export function noBlockCompression(): BlockCompressionCounts {
  return { blocksCompressed: 0, blocksRejected: 0, blocksBypassed: 0, indexBlocksCompressed: 0, indexBlocksRejected: 0, indexUncompressedBytes: 0 }
}

export interface WriteSummary extends BlockCompressionCounts {
  fileSize: number
  dataBlocks: number
  dataBytes: number
  indexBytes: number
  filterBytes: number
  dictBytes: number
  entries: number
  rangeDeletions: number
  indexPartitions: number
  dictionaryId: number
}

/** rocksdb.compression: one type name before format_version 7, the BuiltinV2 schema from 7. */
export function compressionProperty(formatVersion: number, configured: number, usedTypes: Set<number>): string {
  if (formatVersion < 7) return compressionTypeName(configured)
  if (configured === CompressionType.None) return ';;'
  const hex = [...usedTypes]
    .filter((t) => t !== 0)
    .sort((a, b) => a - b)
    .map((t) => t.toString(16).toUpperCase().padStart(2, '0'))
  return `BuiltinV2;${hex.join('')};`
}
