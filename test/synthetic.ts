/**
 * Synthetic SSTs for edge tests: written by sstkit's own table writer (RocksDB's
 * format, bytewise comparator), with entries given in the order to write them,
 * in or out of key order. Not real RocksDB output: name files synthetic-*.
 */
import { closeSync, openSync } from 'node:fs'
import { CompressionType } from '../src/codec/compression.js'
import { FileSink, TableWriter, type TableWriterOptions } from '../src/table/writer.js'

export type Entry = [internalKey: Uint8Array, value: Uint8Array]

export function writeSyntheticTable(
  path: string,
  entries: Iterable<Entry>,
  o: { compression?: number; blockSize?: number; index?: 'binary' | 'partitioned'; metadataBlockSize?: number; props?: [string, Uint8Array][] } = {},
): string {
  const options: TableWriterOptions = {
    formatVersion: 5,
    checksumType: 4,
    compressionType: o.compression ?? CompressionType.None,
    level: null,
    zstdChecksum: false,
    dict: 'none',
    maxDictBytes: 0,
    trainBytes: 0,
    maxDictBufferBytes: 0,
    blockSize: o.blockSize ?? 4096,
    restartInterval: 16,
    index: o.index ?? 'binary',
    metadataBlockSize: o.metadataBlockSize ?? 4096,
    maxCompressedBytesPerKb: 896,
    baseProperties: new Map([['rocksdb.comparator', new TextEncoder().encode('leveldb.BytewiseComparator')], ...(o.props ?? [])]),
  }
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
