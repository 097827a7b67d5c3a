/**
 * Synthetic SSTs for edge tests: written by sstkit's own table writer (RocksDB's
 * format, bytewise comparator), with entries given in the order to write them,
 * in or out of key order. Not real RocksDB output: name files synthetic-*.
 */
import { closeSync, openSync } from 'node:fs'
import { CompressionType } from '../src/codec/compression.js'
import { FileSink, plainWriterOptions, TableWriter } from '../src/table/writer.js'

export type Entry = [internalKey: Uint8Array, value: Uint8Array]

export function writeSyntheticTable(
  path: string,
  entries: Iterable<Entry>,
  o: { compression?: number; blockSize?: number; index?: 'binary' | 'partitioned'; metadataBlockSize?: number; props?: [string, Uint8Array][] } = {},
): string {
  const options = plainWriterOptions({
    compressionType: o.compression ?? CompressionType.None,
    blockSize: o.blockSize ?? 4096,
    index: o.index ?? 'binary',
    metadataBlockSize: o.metadataBlockSize ?? 4096,
  })
  for (const [name, value] of o.props ?? []) options.baseProperties.set(name, value)
  const fd = openSync(path, 'w')
  try {
    const w = new TableWriter(new FileSink(fd), options)
    for (const [k, v] of entries) w.add(k, v)
    w.finish()
  } finally {
    closeSync(fd)
  }
  return path
}
