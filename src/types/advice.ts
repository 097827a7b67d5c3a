/**
 * The advice as data: what `sstkit advise` computes and every renderer (text, Markdown, JSON, HTML)
 * shows, and what the decision core (src/decide/) reads and writes. `--json` prints an `Advice`, each
 * note with its `text` beside; `--merge` reads shards of it back, so every estimate keeps the sufficient statistics
 * (`SampleSums`) that combine exactly. This file imports nothing: every layer may read it.
 */
/** A 95% confidence interval around an estimate. */
export interface Interval {
  estimate: number
  low: number
  high: number
}

/** A measured speed: the value, its 95% interval from repeated batches, and whether the spread is too large to rank on. */
export interface Timing {
  /** null: not measured (e.g. no block was compressed). */
  value: number | null
  low: number | null
  high: number | null
  /** The interval is wider than ±NOISY_SPREAD of the value: shown as noisy, never ranked on. */
  noisy: boolean
}

export type DictMode = 'none' | 'raw' | 'finalize' | 'train'

/** One compression setting, as RocksDB's compression / compression_opts describe it. */
export interface SettingSpec {
  /** sstkit's short name: none, snappy, zlib, bzip2, lz4, lz4hc, zstd. */
  type: string
  /** null: the library default (RocksDB's kDefaultCompressionLevel, 32767). */
  level: number | null
  dict: DictMode
  /** zstd frame content checksum (CompressionOptions::checksum). */
  checksum: boolean
  /** Human label, e.g. "zstd 6 dict=finalize". */
  label: string
  /**
   * The setting's own dictionary options (compression_opts' max_dict_bytes, zstd_max_train_bytes,
   * max_dict_buffer_bytes), when they are not the run's: today's setting, as OPTIONS or the files write it.
   * Absent: the run's (Advice.evaluation).
   */
  dictOptions?: DictOptions
  /** The setting's own acceptance rule (compression_opts' max_compressed_bytes_per_kb), when not the run's. */
  maxCompressedBytesPerKb?: number
}

/** The dictionary options that change what a dictionary holds (recompress/dictionary.ts DictionaryOptions). */
export interface DictOptions {
  maxDictBytes: number
  trainBytes: number
  maxDictBufferBytes: number
}

/**
 * Integer sums over the sampled blocks of one (column family, level) for one
 * setting: c = data bytes written for the block under the setting (trailer
 * included), s = the block's stored size on disk today (trailer included).
 * Sums of integers below 2^53, so shards merge exactly: the certainty stratum's,
 * the sampled blocks' regression sums (PairSums), and the timings.
 */
export interface SampleSums {
  /** Σ over the sampled blocks (outside the certainty stratum) of 1, c, s, c², cs, s² (util/regression.ts PairSums). */
  n: number
  sumC: number
  sumS: number
  sumCC: number
  sumCS: number
  sumSS: number
  /**
   * Blocks evaluated with certainty (the blocks whose bytes RocksDB puts into
   * their file's dictionary: under a dictionary they compress unlike any other
   * block), counted exactly and outside the sampled stratum below.
   */
  certainN: number
  certainC: number
  certainS: number
  /** Uncompressed bytes of the sampled blocks. */
  sumU: number
  /** Sampled blocks stored raw because compression did not pay (RocksDB's acceptance rule). */
  rejected: number
  /** Compression and decompression time over the sampled blocks, ms, and per-batch rates for the spread. */
  compressMs: number
  decompressMs: number
  /** Uncompressed bytes compressed under the timer (sampled blocks, and timing passes over them again). */
  timedBytes: number
  /** Uncompressed bytes of the blocks that were decompressed under the timer (the accepted ones). */
  decompressedBytes: number
  /** Per-batch seconds per GB of input (compression) and MB/s (decompression). */
  compressRates: number[]
  decompressRates: number[]
  /** Compression time spent on blocks that were then rejected, ms (what auto-skip could save). */
  rejectedMs: number
}

export interface SettingEstimate {
  setting: SettingSpec
  /** Projected data-block bytes plus dictionary bytes for the whole level. */
  bytes: Interval
  /** Relative change against today's bytes (-0.2 = 20% smaller). */
  change: Interval
  /** Uncompressed bytes / projected bytes. */
  ratio: number
  /** Compression CPU, seconds per GB of uncompressed input: the blocks' compression and, with a dictionary, its building. */
  compressSecPerGB: Timing
  /** Of that, building the file's dictionary (0 without one): measured once per file, per GB of the file's input. */
  dictSecPerGB: number
  /** Decompression speed, MB/s of uncompressed output. */
  decompressMBps: Timing
  /** Share of sampled blocks stored raw (did not meet the acceptance rule). */
  rejectedShare: number
  /** Dictionary bytes for the level (one dictionary block per file; files not yet built taken at the mean). */
  dictBytes: number
  /** Dictionaries actually built (files) and their bytes, trailers included: additive over shards. */
  dictFilesBuilt: number
  dictBytesBuilt: number
  /** Dictionary building, ms per file (0 without a dictionary): this run's timing. */
  dictMsPerFile: number
  /** The same on the reference model (decide/nominal.ts), from the samples each dictionary was built from: what decisions rank on. */
  dictReferenceMsPerFile: number
  /** On the size-against-CPU Pareto front of this level. */
  pareto: boolean
  sums: SampleSums
}

/** `not-sampled`: the time budget ended before any block of the level was evaluated; it keeps today's setting. */
export type StopReason = 'precision' | 'time-budget' | 'all-blocks' | 'fixed-sample' | 'not-sampled'

export interface LevelAdvice {
  columnFamily: string
  /** null: levels unknown (plain files, no MANIFEST). */
  level: number | null
  bottommost: boolean
  files: number
  fileBytes: number
  /** Data blocks on disk today (trailers included): the `s` total of the estimator. */
  dataBytes: number
  dataBlocks: number
  /** Entries as the files' properties record them; null when a file records none (LevelDB's tables): unknown. */
  entries: number | null
  /** Dictionary blocks on disk today (trailers included). */
  todayDictBytes: number
  /** What the files say (property rocksdb.compression; several when mixed). */
  todayCompression: string
  /** What the OPTIONS file says applies to this level, when there is one. */
  todayOptions: SettingSpec | null
  /** Uncompressed / stored, estimated from the sample. */
  todayRatio: number
  /** Today's setting evaluated like the others (null when it is not one sstkit can evaluate, or the level was not sampled). */
  today: SettingEstimate | null
  /**
   * What the CPU figures of `today`, `recommended` and `runnerUp` are: the reference speeds and the reference
   * model of dictionary building (decide/nominal.ts), which every decision ranks on so that runs agree
   * ('reference'); 'measured' only in advice written by releases that ranked on a run's own timings. `matrix`
   * always holds this run's timings.
   */
  cpuBasis: 'measured' | 'reference'
  /** `filesRead`: files whose index was read; fewer than `files` when the time budget ended the first pass (then
   * dataBytes, dataBlocks, entries and todayDictBytes are scaled by file size from the files read). */
  sample: { blocks: number; uncompressedBytes: number; share: number; stopped: StopReason; filesRead: number }
  recommended: { estimate: SettingEstimate; reason: string }
  runnerUp: { estimate: SettingEstimate; reason: string } | null
  /** Every evaluated setting, in matrix order. */
  matrix: SettingEstimate[]
  /** Where much of the data does not compress: what ratio-aware auto-skip would save. */
  autoSkip: { incompressibleShare: number; cpuSavedShare: number; note: string } | null
  /** Every setting priced at the write rate the info LOG measured here (cost.ts); absent or null without one. */
  cost?: LevelCost | null
  /**
   * With the database's RocksDB release known, the recommendation is among what it parses; where a
   * later release could do a setting that saves more, that setting, the release, and the bytes it saves.
   */
  newerRelease?: { since: string | null; setting: SettingSpec; bytes: Interval; savedBytes: number; savedShare: number } | null
}

export interface ColumnFamilyAdvice {
  name: string
  /** level_compaction_dynamic_level_bytes, as the OPTIONS file says (false when unknown). */
  dynamicLevels: boolean
  /** Under dynamic level bytes, the base level compression_per_level counts from (its entry 1); null otherwise. */
  baseLevel: number | null
  levels: LevelAdvice[]
  /** The RocksDB options to set, as key → value in OPTIONS-file syntax. */
  options: Record<string, string>
  /** The same, as an OPTIONS-file section ready to paste. */
  optionsText: string
  /** Per option written, the first RocksDB release that parses it as written, and why (null: in no release yet). */
  optionsNeed?: { key: string; since: string | null; why: string[] }[]
  /** The change against today's OPTIONS section: each key advised, today's value (null: not set) and the new one. */
  optionsChange?: { key: string; today: string | null; advised: string }[]
  /** block_size, a table option shared by the column family's levels (advise/block-size.ts); a database with an OPTIONS file. */
  blockSize?: BlockSizeAdvice
}

// --- Block size per column family (advise/block-size.ts)

export interface BytesInterval {
  estimate: number
  low: number
  high: number
}

export interface BlockSizeCandidate {
  blockSize: number
  /** Data blocks with trailers plus dictionary blocks, every level of the column family. */
  bytes: BytesInterval
  /** Against today's block size's projection (estimate; -0.1 = 10% smaller). */
  change: number
  /** The index blocks (an estimate scaled like the data). */
  indexBytes: number
  dataBlocks: number
  read: BlockSizeReadCost
}

export interface BlockSizeReadCost {
  /** A point lookup that misses the block cache reads one data block: its mean stored size, trailer included (bottommost level). */
  bytesReadPerLookup: number
  /** …and decompresses it: its mean uncompressed size, also what the block cache holds per block. */
  bytesDecompressedPerLookup: number
  /** Decompression speed measured on the candidate's blocks, MB/s (null: not compressed). */
  decompressMBps: number | null
  /** Cores decompressing at the LOG's measured data block misses per second; null when not measured. */
  readCores: number | null
}

export interface BlockSizeAdvice {
  columnFamily: string
  /** block_size of the OPTIONS file. */
  today: number
  /** Which compression every level was re-cut under: the one advised for it (what --write-options writes), or today's. */
  compression: 'advised' | 'today'
  candidates: BlockSizeCandidate[]
  /** null: keep today's (nothing pays under the objective). */
  recommended: number | null
  reason: string
  /** Table files evaluated, of the column family's live ones. */
  files: { evaluated: number; of: number }
  /** Per level: today's compression (held for every candidate), its files, and its projection per candidate (candidates' order). */
  levels: { level: number; setting: string; files: number; evaluated: number; bytes: BytesInterval[] }[]
  /** Coded (advice-notes.ts); report/advise-notes.ts words them. */
  notes: BlockSizeNote[]
}

export interface DatabaseVersion {
  /** The MANIFEST's file name, the bytes of it replayed and the VersionEdits in them. */
  manifest: string
  manifestBytes: number
  manifestRecords: number
  /** The version's last sequence number (decimal). */
  lastSequence: string
  /** How its live files were held for the run (db/pin.ts): hard links, open descriptors, or read in place. */
  heldBy: 'hard-links' | 'descriptors' | 'none'
  heldFiles: number
  /** At the end of the run: table files RocksDB deleted and added meanwhile, and the MANIFEST then (null: not checked). */
  changedDuringRun: { deletedFiles: number; addedFiles: number; manifest: string | null; manifestBytes: number | null } | null
}

export type Objective = 'size' | 'balanced' | 'speed' | 'cost'

export interface Advice {
  version: 1
  source: {
    kind: 'database' | 'files'
    paths: string[]
    manifest: string | null
    optionsFile: string | null
    /** SST files on disk that the MANIFEST does not list (left out). */
    unlistedFiles: string[]
    /** Column families that hold no live table file: listed as empty. */
    emptyColumnFamilies?: string[]
    /** Column families with live table files none of which could be read (missing or damaged): each file and why. */
    unreadableColumnFamilies?: { name: string; files: { file: string; level: number; problem: string }[] }[]
    /** Blob files (integrated BlobDB) per column family, as the MANIFEST lists them: live data the advice does not cover yet. */
    blobFiles?: { columnFamily: string; files: number; bytes: number; garbageBytes: number }[]
    /** The engine that wrote the database: LevelDB has one `compression` option and no OPTIONS file. */
    engine?: 'rocksdb' | 'leveldb'
    /** For a database: the version advised (its MANIFEST up to a position) and what changed under the run. */
    version?: DatabaseVersion
    /** The RocksDB release the options are written for, and where it was read (null: unknown, newest syntax). */
    rocksdbVersion?: { version: string; from: 'OPTIONS' | 'LOG' | 'flag' } | null
  }
  /** For a LevelDB database: its one compression option (the per-level advice is then for a migration to RocksDB). */
  leveldb?: LevelDbAdvice | null
  objective: { name: Objective | 'limits'; description: string; limits: Record<string, number> }
  seed: number
  /** Dictionary building and the acceptance rule, as evaluated (RocksDB's compression_opts names in camelCase). */
  evaluation: { maxDictBytes: number; trainBytes: number; maxDictBufferBytes: number; maxCompressedBytesPerKb: number; sampleRate: number | null }
  /** Relative half-width of the 95% interval at which sampling stops. */
  precision: number
  timeBudgetSec: number
  elapsedSec: number
  shard: { index: number; count: number } | null
  columnFamilies: ColumnFamilyAdvice[]
  total: {
    todayBytes: number
    projected: Interval
    change: Interval
    /** `--max-bytes` in bytes, and whether the recommended settings' projected total fits it (null without the limit). */
    maxBytes: { bytes: number; met: boolean } | null
  }
  /** Coded (advice-notes.ts): `{code, ...values}`; report/advise-notes.ts words them, and `--json` adds each one's `text`. */
  notes: AdviceNote[]
  /** The write workload of the database's info LOGs (a database only; absent for plain files). */
  workload?: WorkloadAdvice | null
  /** Set (under --json, exit 1) when nothing could be advised on: the one-line finding; the rest of the document may be partial. */
  finding?: string
  /** Files or blocks that could not be read: left out of the estimates (the command exits 1). */
  problems: { file: string; offset: number | null; message: string }[]
  /** blob_compression_type per column family with blob files (integrated BlobDB; advise/blob.ts). */
  blobs?: BlobAdvice[]
  /** For a database that stays online: what applying the advice rewrites, and how (advise/apply-plan.ts). */
  applyPlan?: ApplyPlan | null
}

/** LevelDB's one compression option, chosen from the evaluated totals of snappy and no compression. */
export interface LevelDbAdvice {
  compression: 'kSnappyCompression' | 'kNoCompression'
  /** Projected bytes of every level's data blocks under snappy, and without compression. */
  snappyBytes: number
  noneBytes: number
  todayBytes: number
  reason: string
}

// --- The limits a user gives instead of an objective

export interface ExplicitLimits {
  /** Compression CPU at most this multiple of today's setting's (or of the fastest codec's when today does not compress). */
  maxCompressCpuRatio?: number
  minDecompressMBps?: number
  /** The projected total (every column family and level, dictionaries included) at most this many bytes... */
  maxBytes?: number
  /** ...or at most this share of the total today (`--max-bytes 80%`). */
  maxBytesShare?: number
}

/** A level's limits under the objective (decide/rule.ts limitsFor). */
export interface LevelLimits {
  maxCompressSecPerGB: number | null
  minDecompressMBps: number | null
  /** What the limits are, in a phrase for the reason. */
  describe: string
}

/** A setting chosen, and why. */
export interface Choice {
  estimate: SettingEstimate
  reason: string
}

// --- The write workload of the info LOGs, and each setting priced at it (decide/cost.ts)

export interface Prices {
  /** $ per core-hour. */
  cpuPerCoreHour: number
  /** $ per GB-month of storage (GB = 1e9 bytes). */
  storagePerGBMonth: number
}

/** One level's writes over the LOGs' span. */
export interface MeasuredLevel {
  columnFamily: string
  level: number
  /** Bytes written (flush file sizes, compactions' total_output_size). */
  writtenBytes: number
  /** Of which compactions' total_output_size. */
  compactionOutputBytes: number
  /** file_size of the table files the LOG lists (cancelled compaction outputs are not listed). */
  fileBytes: number
  /** Data blocks as stored (table_properties.data_size) of the files the LOG lists. */
  dataBytes: number
  /** Raw key + value bytes of those files. */
  rawBytes: number
  files: number
  flushFiles: number
  /** Of writtenBytes, the file_size of the table files flushes (and WAL recoveries) wrote. */
  flushBytes: number
  compactions: number
  compactionCpuSeconds: number
  /** CPU the flushes' "Flush lasted … cpu microseconds" lines logged (L0; 0 without such lines). */
  flushCpuSeconds: number
  /** The flushes flushCpuSeconds covers (a WAL recovery's flush logs no CPU). */
  flushCpuFlushes: number
  /** The file_size of the table files those flushes wrote. */
  flushCpuFileBytes: number
  /** Compression of the bytes written, by file bytes (e.g. {"LZ4": 1.0}). */
  compressionShares: Record<string, number>
}

export interface MeasuredReads {
  /** Seconds between statistics dumps the rates are over. */
  seconds: number
  /** rocksdb.block.cache.data.miss per second: data blocks read from the files. */
  dataBlockMissesPerSec: number
  /** rocksdb.number.block.decompressed per second (reads and compactions). */
  blocksDecompressedPerSec: number | null
  /** rocksdb.bytes.read per second (what Get/MultiGet/iterators returned). */
  userBytesReadPerSec: number | null
}

export interface MeasuredWorkload {
  logFiles: string[]
  events: number
  firstMicros: number
  lastMicros: number
  /** The span every rate is over: the LOGs', or under --write-rate the span at which their bytes flow at that rate. */
  spanSeconds: number
  shortSpan: boolean
  /** --write-rate: the bytes flushed a day given, and the LOGs' own span. */
  writeRate?: { flushedPerDay: number; logSpanSeconds: number }
  levels: MeasuredLevel[]
  /** "Flush lasted … cpu microseconds" lines the LOGs hold (none before RocksDB 6.24). */
  flushCpuLines: number
  reads: MeasuredReads | null
  /** Table files whose level or column family the LOGs do not tell, and their bytes (left out). */
  unattributedBytes: number
}

/** What advise says about the workload: measured or why not, and the prices when objective cost. */
export interface WorkloadAdvice {
  measured: MeasuredWorkload | null
  /** What was measured over what span, or why nothing was. */
  note: WorkloadNote
  /** Which statistics counters the read figures use, or that reads were not measured. */
  readsNote: ReadsNote
  prices: Prices | null
}

/** One setting at one level's measured rate. */
export interface SettingCost {
  label: string
  /** Compression CPU, cores (CPU-seconds per second), dictionary building included. */
  cores: number
  cpuHoursPerDay: number
  /** Of which dictionary building. */
  dictCores: number
  /** Decompression cores for the measured reads (bottommost levels, with statistics); null otherwise. */
  readCores: number | null
  /** Bytes written per day under this setting (today's written bytes scaled by its projected size). */
  writtenPerDay: number
  /** Against today: the level's stored bytes, and bytes written per day (negative: more). */
  savedBytes: number
  savedPerDay: number
  /** Compression CPU plus storage, $ a month, when priced. */
  dollarsPerMonth: number | null
  /** This run's timing of the setting was noisy: its CPU is on the reference speeds (nominal.ts). */
  referenceSpeeds: boolean
}

export interface LevelCost {
  /** Bytes written per day today, and the uncompressed input per day sstkit's CPU figures are per. */
  writtenPerDay: number
  inputPerDay: number
  filesPerDay: number
  /** Per setting, in the level's matrix order. */
  settings: SettingCost[]
  today: SettingCost | null
  recommended: SettingCost
  /** The compaction CPU RocksDB measured for this level, in cores; null without compactions. */
  measuredCompactionCores: number | null
  /** sstkit's model of today's setting on the bytes those compactions wrote (compress + decompress), in cores. */
  modelCompactionCores: number | null
  /** One line comparing the two. */
  modelCheck: string | null
  /** L0: the flush CPU RocksDB logged, in cores; null without "Flush lasted" lines for this level. */
  measuredFlushCores: number | null
  /** sstkit's model of today's setting compressing the bytes those flushes wrote, in cores. */
  modelFlushCores: number | null
  /** L0 with flushes: one line comparing the two, or saying the LOG has no flush CPU. */
  flushCheck: string | null
}

// --- blob_compression_type per column family (advise/blob.ts)

export interface BlobCandidate {
  /** The OPTIONS name (kZSTD, kLZ4Compression, ...). */
  option: string
  label: string
  /** The blob files' bytes under this setting (headers, records, footers). */
  bytes: Interval
  change: Interval
  ratio: number
  compressSecPerGB: number | null
  decompressMBps: number | null
}

export interface BlobAdvice {
  columnFamily: string
  files: number
  filesRead: number
  /** Size on disk of the live blob files (the MANIFEST's total where a file is not on disk). */
  bytes: number
  /** What the MANIFEST counts as garbage in them (values no longer referenced, until GC or compaction drops them). */
  garbageBytes: number
  records: number
  sampledRecords: number
  /** blob_compression_type today (OPTIONS), else the files' own, else null. */
  today: string | null
  status: 'advised' | 'not sampled'
  /** The recommended blob_compression_type (null: not sampled, today's kept). */
  recommended: string | null
  reason: string
  /** Whether blob_compression_type was written into the column family's options. */
  inOptions: boolean
  candidates: BlobCandidate[]
}

/** How the advice reaches the bytes of a database that stays online (advise/apply-plan.ts). */
export interface ApplyPlanColumnFamily {
  name: string
  /** Levels whose recommended setting is not today's. */
  changedLevels: number[]
  /** The advised block_size every table is rewritten with (null: today's kept; absent in JSON written before block size was advised). */
  blockSize?: number | null
  /** Table bytes a full compaction rewrites: every live table of the column family. */
  rewriteBytes: number
  uncompressedBytes: number
  /** What every table is written with by the full compaction: the bottommost level's recommendation. */
  bottommostSetting: string
  /** Seconds of CPU (compression and decompression) at the decision's speeds; null where a speed is unknown. */
  cpuSeconds: number | null
  /** Extra disk space at the compaction's peak (its outputs before its inputs go), at most the projected size. */
  temporaryBytes: number
  /** The application's call, and ldb's equivalent with the database closed. */
  online: string
  ldb: string
}

export interface ApplyPlan {
  columnFamilies: ApplyPlanColumnFamily[]
}

/** The level's files are not what the recommendation writes: another setting today, or files of another type (OPTIONS already advised, the files not yet rewritten). */

// --- The notes: each a `code` and the values its sentence is written from. The engine says what it found;
// report/advise-notes.ts writes the English (text, Markdown, HTML, and the `text` beside each note in
// `advise --json`). docs/advise-reference.md lists the codes.

/** A level as a note names it: `level` null for plain files (no MANIFEST). */
export interface NoteLevel {
  columnFamily: string
  level: number | null
}

/** What a matrix from flags (--types, --levels, --dict) left out; recompress's matrix notes too (recompress/config.ts). */
export type MatrixNote =
  | { code: 'matrix-type-has-no-levels'; type: string }
  | { code: 'matrix-levels-out-of-range'; type: string; min: number; max: number; leftOut: number[]; defaultLevelKept: boolean }
  | { code: 'matrix-dict-mode-not-applicable'; type: string; modes: string[] }
  | { code: 'matrix-strategy-without-zlib'; types: string[] }

/** What a database's OPTIONS file and MANIFEST say that does not stop reading (db/options.ts, db/database.ts). */
export type DatabaseNote =
  | { code: 'options-section-skipped'; file: string; line: number; section: string }
  /** `problem`: the value's error, naming the file, line and key. */
  | { code: 'option-not-used'; problem: string; default: string }
  | { code: 'option-decimal-comma'; file: string; line: number; key: string; value: string; readAs: number }
  | { code: 'manifest-tail-ignored'; file: string; bytes: number; offset: number; reason: string }
  | { code: 'column-family-without-options'; columnFamily: string; file: string }
  | { code: 'column-family-beyond-num-levels'; columnFamily: string; level: number; numLevels: number }
  | { code: 'column-family-files-elsewhere'; columnFamily: string; files: number; firstFileNumber: number; pathId: number; dir: string }

/** --write-rate on a workload: not used (and why), or the rate its prices are at. */
export type WriteRateNote = { used: false; why: 'no-shape' | 'no-flush' } | { used: true; flushedPerDay: number; measuredPerDay: number }

/** What the info LOG gave for pricing (WorkloadAdvice.note). */
export type WorkloadNote = (
  | { code: 'workload-log-unreadable'; dir: string; reason: string }
  | { code: 'workload-no-log'; dir: string }
  | { code: 'workload-no-events'; logFiles: number }
  | { code: 'workload-no-writes'; events: number }
  | {
      code: 'workload-measured'
      logFiles: number
      flushes: number
      compactions: number
      /** The LOGs' own span. */
      spanSeconds: number
      shortSpan: boolean
      writtenPerDay: number
    }
) & { writeRate?: WriteRateNote }

/** What the statistics dumps gave for reads (WorkloadAdvice.readsNote). */
export type ReadsNote =
  | { code: 'reads-not-measured' }
  | { code: 'reads-no-statistics' }
  | { code: 'reads-measured'; seconds: number; dataBlockMissesPerSec: number }

/** The notes of one column family's block size advice (BlockSizeAdvice.notes). */
export type BlockSizeNote =
  | { code: 'block-size-level-left-out'; level: number; compression: string }
  | { code: 'block-size-files-sampled'; recut: number; files: number; fileShare: number | null }
  | { code: 'block-size-dictionaries' }

/** A note of the advice (Advice.notes). */
export type AdviceNote =
  | MatrixNote
  | DatabaseNote
  | WorkloadNote
  | ReadsNote
  | { code: 'directory-without-sst'; path: string }
  | { code: 'live-files-missing'; files: string[] }
  | { code: 'live-files-vanished'; files: string[]; versions: number }
  | { code: 'live-files-not-held'; files: number; why: 'no-links-or-descriptors' | 'open-file-limit' }
  | { code: 'leveldb-database' }
  | { code: 'no-options-file' }
  | { code: 'rocksdb-version-flag-ignored'; flag: string; from: 'OPTIONS' | 'LOG' | 'flag'; version: string }
  | { code: 'rocksdb-version-unknown' }
  | { code: 'small-database'; bytes: number; limitBytes: number; timeBudgetMs: number; narrowed: boolean }
  | { code: 'files-sampled'; read: number; files: number; levels: (NoteLevel & { read: number; files: number })[] }
  | { code: 'time-budget-ended'; timeBudgetMs: number; precision: number }
  /** `budgetMs`: a --time-budget that would sample every level (null: none estimated). */
  | { code: 'levels-not-sampled'; levels: NoteLevel[]; budgetMs: number | null }
  | { code: 'only-bottommost-level'; columnFamily: string; level: number }
  | { code: 'options-not-printed'; columnFamily: string; levels: (number | null)[] }
  | { code: 'no-manifest' }
  | { code: 'balanced-write-weighted'; negligibleCores: number }
  | { code: 'cost-without-workload' }
  | { code: 'cost-short-log-span'; spanSeconds: number; shortSpanSeconds: number }
  | { code: 'dynamic-level-bytes' }
  | { code: 'blob-files-sampled'; columnFamily: string; read: number; files: number; maxBytes: number }
  | { code: 'block-size-skipped'; needs: 'database-with-options' | 'whole-database' | 'objective' }
  | { code: 'block-size-out-of-time'; columnFamily: string; budgetMs: number; recut: number; files: number }
  | { code: 'block-size-unreadable'; columnFamily: string; file: string; message: string }
  | { code: 'write-options-missing-sections'; file: string; columnFamilies: string[] }

export type AdviceNoteCode = AdviceNote['code']
