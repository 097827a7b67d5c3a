/**
 * What advise samples from: the live files of each (column family, level),
 * with the facts the estimator needs about every data block (how many, and
 * their size on disk today) read from the files' indexes, and what the
 * files and the OPTIONS file say the compression is today.
 */
import { basename } from 'node:path'
import { propertyNumber, propertyString } from '../format/properties.js'
import { openTable } from '../table/reader.js'
import type { SettingSpec } from './model.js'
import { fileKey } from './sampling.js'
import { settingFromProperties } from './settings.js'

const TRAILER_BYTES = 5

export interface PopulationFile {
  path: string
  /** The database's file number, or null for plain files. */
  fileNumber: number | null
  key: number
  fileSize: number
  dataBlocks: number
  /** Data blocks on disk, trailers included. */
  dataBytes: number
  entries: number
  /** Dictionary block on disk today (trailer included), 0 without one. */
  dictBytes: number
  compression: string
  /** Today's setting as the file's properties record it. */
  propertiesSetting: SettingSpec | null
}

export interface LevelGroup {
  columnFamily: string
  level: number | null
  bottommost: boolean
  files: PopulationFile[]
  /** What the OPTIONS file says this level gets today, when there is one. */
  optionsSetting: SettingSpec | null
}

/** A file as a database lists it, or a plain file (fileNumber null, level unknown). */
export interface GroupInput {
  columnFamily: string
  level: number | null
  bottommost: boolean
  files: { path: string; fileNumber: number | null }[]
  optionsSetting: SettingSpec | null
}

/** Read each file's index and properties (the data blocks themselves are not read). */
export function describeFile(path: string, fileNumber: number | null): PopulationFile {
  const table = openTable(path)
  try {
    let dataBlocks = 0
    let dataBytes = 0
    for (const ref of table.dataBlocks()) {
      dataBlocks++
      dataBytes += ref.handle.size + TRAILER_BYTES
    }
    const dict = table.metaBlock('rocksdb.compression_dict')
    const compression = propertyString(table.properties, 'rocksdb.compression') ?? 'unknown'
    return {
      path,
      fileNumber,
      key: fileKey(basename(path), fileNumber),
      fileSize: table.fileSize,
      dataBlocks,
      dataBytes,
      entries: propertyNumber(table.properties, 'rocksdb.num.entries') ?? 0,
      dictBytes: dict ? dict.size + TRAILER_BYTES : 0,
      compression,
      propertiesSetting: settingFromProperties(compression, propertyString(table.properties, 'rocksdb.compression_options')),
    }
  } finally {
    table.close()
  }
}

/** Plain files: grouped by the column family their properties name; levels unknown. */
export function groupsOfFiles(paths: string[]): GroupInput[] {
  const byFamily = new Map<string, { path: string; fileNumber: number | null }[]>()
  for (const path of paths) {
    const table = openTable(path)
    let name: string
    try {
      name = propertyString(table.properties, 'rocksdb.column.family.name') || 'default'
    } finally {
      table.close()
    }
    byFamily.set(name, [...(byFamily.get(name) ?? []), { path, fileNumber: null }])
  }
  return [...byFamily].map(([columnFamily, files]) => ({ columnFamily, level: null, bottommost: false, files, optionsSetting: null }))
}

export function levelTotals(g: LevelGroup): { files: number; fileBytes: number; dataBytes: number; dataBlocks: number; entries: number; dictBytes: number } {
  let fileBytes = 0
  let dataBytes = 0
  let dataBlocks = 0
  let entries = 0
  let dictBytes = 0
  for (const f of g.files) {
    fileBytes += f.fileSize
    dataBytes += f.dataBytes
    dataBlocks += f.dataBlocks
    entries += f.entries
    dictBytes += f.dictBytes
  }
  return { files: g.files.length, fileBytes, dataBytes, dataBlocks, entries, dictBytes }
}

/** The compression the files name, e.g. "LZ4" or "LZ4+ZSTD" when mixed. */
export function compressionNames(g: LevelGroup): string {
  const names = [...new Set(g.files.map((f) => f.compression))].sort()
  return names.length ? names.join('+') : 'none'
}
