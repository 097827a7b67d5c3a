/**
 * What recompress's sources of data blocks are asked and report (source.ts, recut-native.ts):
 * their own file, apart from both, which import it.
 */
import type { StoredTally } from '../table/reader.js'
import type { RoundTripSums } from './round-trip.js'
export interface SourceOptions {
  /** null: keep the file's blocks; else re-cut entries into blocks of this size. */
  blockSize: number | null
  /** Re-cut blocks' restart interval (block_restart_interval; default RocksDB's 16). */
  restartInterval?: number
  /** Re-cut blocks in the separated key/value layout (RocksDB 11's separate_key_value_in_data_block; default inline). */
  separateKeyValue?: boolean
  /** Evaluate this percentage of blocks (1..100), evenly spread and deterministic. */
  samplePercent: number
  /**
   * Re-cut an ingested file's entries with its global sequence number applied,
   * as sst_dump's iterator hands them to its builder (default: as stored, as rewrite keeps them).
   */
  applyGlobalSeqno?: boolean
}

export interface SkippedBlock {
  readonly offset: number
  readonly message: string
}

/** Where an entry is in the file: its stored data block (ordinal) and its place in that block. */
export interface EntryPosition {
  block: number
  entry: number
}

/**
 * Time and bytes spent reading and decoding stored data blocks: the stored baseline, measured by a
 * pass that reads them anyway; and those blocks as stored (Table.readDataBlock's tally).
 */
export interface ReadStats extends StoredTally {
  bytes: number
  /** Wall time of reading, checking and decoding them. */
  ms: number
  /** Their decompression as a setting's round trip times it (stored-decompress.ts), once the pass is over; absent where not timed. */
  decompress?: RoundTripSums
}
