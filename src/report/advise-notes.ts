/**
 * The advice's notes in English: each coded note (types/advice.ts) as the one sentence the
 * text, Markdown and HTML reports show, and `advise --json` writes beside it as `text`. The notes a
 * lower layer also words for itself (the matrix's, recompress/config.ts; the database's, db/database.ts)
 * are worded there.
 */
import { spanText } from '../decide/cost.js'
import { databaseNoteText } from '../db/database.js'
import { matrixNoteText } from '../recompress/config.js'
import type { Advice, AdviceNote, BlockSizeNote, NoteLevel, ReadsNote, WorkloadNote, WriteRateNote } from '../types/advice.js'

/** A time in seconds as the notes write one: "1.8 s", "30 s". */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`
}

/** A rate of bytes as the workload notes write one: "20.0 GB", "3.1 MB". */
function gb(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(bytes >= 1e11 ? 0 : 1)} GB`
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`
  return `${(bytes / 1e3).toFixed(1)} KB`
}

function levelName(l: NoteLevel): string {
  return l.level === null ? l.columnFamily : `${l.columnFamily} L${l.level}`
}

function files(n: number): string {
  return `${n} file${n === 1 ? '' : 's'}`
}

const FIXED_RULES = 'compression CPU is ranked by the fixed rules'

function writeRateText(w: WriteRateNote | undefined): string {
  if (!w) return ''
  if (!w.used) return `; --write-rate is not used: ${w.why === 'no-shape' ? 'there is no per-level shape to scale' : 'the LOG records no flush to scale from'}`
  return `; priced at --write-rate ${gb(w.flushedPerDay)}/day flushed (the LOG measured ${gb(w.measuredPerDay)}/day), its shape across levels kept`
}

function workloadText(n: WorkloadNote): string {
  switch (n.code) {
    case 'workload-log-unreadable':
      return `cannot read the info LOG of ${n.dir} (${n.reason}): ${FIXED_RULES}`
    case 'workload-no-log':
      return `no info LOG in ${n.dir} (deleted, or written to db_log_dir): ${FIXED_RULES}`
    case 'workload-no-events':
      return `the info LOG (${files(n.logFiles)}) holds no event: info_log_level above INFO, or a LevelDB LOG: ${FIXED_RULES}`
    case 'workload-no-writes':
      return `the info LOG records no flush or compaction (${n.events} events): ${FIXED_RULES}`
    case 'workload-measured':
      return `workload from the info LOG (${files(n.logFiles)}, ${n.flushes} flushes, ${n.compactions} compactions over ${spanText(n.spanSeconds)}${n.shortSpan ? ': a short span, rates may not be the day’s' : ''}): ${gb(n.writtenPerDay)}/day written`
  }
}

function readsText(n: ReadsNote): string {
  switch (n.code) {
    case 'reads-not-measured':
      return 'reads not measured'
    case 'reads-no-statistics':
      return 'reads not measured (no statistics dumps in the LOG: statistics off): decompression keeps the fixed rule'
    case 'reads-measured':
      return `reads from the statistics dumps over ${spanText(n.seconds)}: rocksdb.block.cache.data.miss (data blocks read from the files, decompressed), ${n.dataBlockMissesPerSec.toFixed(1)}/s; RocksDB counts them for the whole database, so they are put on each column family's bottommost level`
  }
}

/** A note of the advice, or of a column family's block size, in one sentence. */
export function noteText(n: AdviceNote | BlockSizeNote): string {
  switch (n.code) {
    case 'matrix-type-has-no-levels':
    case 'matrix-levels-out-of-range':
    case 'matrix-dict-mode-not-applicable':
    case 'matrix-strategy-without-zlib':
      return matrixNoteText(n)
    case 'options-section-skipped':
    case 'option-not-used':
    case 'option-decimal-comma':
    case 'manifest-tail-ignored':
    case 'column-family-without-options':
    case 'column-family-beyond-num-levels':
    case 'column-family-files-elsewhere':
      return databaseNoteText(n)
    case 'workload-log-unreadable':
    case 'workload-no-log':
    case 'workload-no-events':
    case 'workload-no-writes':
    case 'workload-measured':
      return workloadText(n) + writeRateText(n.writeRate)
    case 'reads-not-measured':
    case 'reads-no-statistics':
    case 'reads-measured':
      return readsText(n)
    case 'directory-without-sst':
      return `${n.path} holds no .sst files`
    case 'live-files-missing':
      return `${n.files.length} live file(s) the MANIFEST lists are missing on disk and were left out: ${n.files.join(', ')}`
    case 'live-files-vanished':
      return `${n.files.length} live file(s) were deleted by RocksDB before they could be held (the database kept changing through ${n.versions} versions) and were left out: ${n.files.join(', ')}`
    case 'live-files-not-held':
      return `${n.files} live file(s) could not be held (${n.why === 'no-links-or-descriptors' ? 'no hard links or descriptors here' : 'past the open-file limit'}) and are read in place: one RocksDB deletes meanwhile is reported as unreadable`
    case 'leveldb-database':
      return 'a LevelDB database (no OPTIONS file; tables without a properties block): LevelDB has one option, compression (snappy or none); the RocksDB options below are for a migration to RocksDB'
    case 'no-options-file':
      return 'no OPTIONS file: today is what the files themselves say'
    case 'rocksdb-version-flag-ignored':
      return `--rocksdb-version ${n.flag} left aside: the database's ${n.from} says RocksDB ${n.version}, and the options are written for it`
    case 'rocksdb-version-unknown':
      return "the database's RocksDB release is unknown (no rocksdb_version in OPTIONS, no LOG header; --rocksdb-version sets it): the options are in the newest syntax, and each says the release it needs"
    case 'small-database': {
      const what = `live files of ${(n.bytes / 1e6).toFixed(1)} MB (under ${n.limitBytes >> 20} MiB)`
      return n.narrowed
        ? `${what}: a time budget of ${formatSeconds(n.timeBudgetMs)}, without zstd 9 and 12 and raw or trained dictionaries (their CPU outweighs what they could save at this size; --types or --time-budget evaluates them)`
        : `${what}: a time budget of ${formatSeconds(n.timeBudgetMs)} (--time-budget gives it more)`
    }
    case 'files-sampled': {
      const where = n.levels.map((l) => `${levelName(l)} ${l.read} of ${l.files}`).join(', ')
      return `files drawn in proportion to their size, ${n.read} of ${n.files} read (${where}): the other files' bytes are estimated from those read, and their levels' intervals include the spread between files`
    }
    case 'time-budget-ended':
      return `the time budget (${formatSeconds(n.timeBudgetMs)}) ended sampling before every level reached ±${(n.precision * 100).toFixed(1)}%: how far it got depends on this machine's speed, so another run may sample more or fewer blocks and advise differently (--sample fixes the sample, and with it the answer)`
    case 'levels-not-sampled': {
      const reach = n.budgetMs === null ? '' : `; a --time-budget of about ${formatSeconds(n.budgetMs)} would sample every level`
      return `not sampled (the time budget ended first): ${n.levels.map(levelName).join(', ')}; ${n.levels.length === 1 ? 'it keeps' : 'they keep'} today's setting${reach}`
    }
    case 'only-bottommost-level':
      return `${n.columnFamily}: only L${n.level}, the bottommost level, holds data: compression (flushes and the levels above it) is left as it is, with no data there to decide on`
    case 'options-not-printed':
      return `${n.columnFamily}: no options printed: ${n.levels.map((l) => (l === null ? 'its files' : `L${l}`)).join(', ')} not sampled and today's compression unknown`
    case 'no-manifest':
      return 'no MANIFEST: levels are unknown, so each column family gets one setting (compression and compression_opts)'
    case 'balanced-write-weighted':
      return `balanced: each level's CPU multiple is weighted by the write rate the info LOG measured there (a level written at w times the average rate gets the multiple divided by w, between 1.25x and 32x; on L2 and below never tighter than ${n.negligibleCores} cores at the level's rate)`
    case 'cost-without-workload':
      return 'objective cost without a measured workload: compression CPU cannot be priced, so the balanced rules decide'
    case 'cost-short-log-span':
      return `--objective cost: the info LOG spans ${spanText(n.spanSeconds)}, under the ${spanText(n.shortSpanSeconds)} a measured write rate is priced from (a burst is not the day's rate): the levels are decided by the balanced rules and their costs shown, not chosen on; give --write-rate (bytes flushed a day) to price them`
    case 'dynamic-level-bytes':
      return 'level_compaction_dynamic_level_bytes is on: compression_per_level entry i > 0 applies to level base_level + i - 1, and the RocksDB options advised are written that way'
    case 'blob-files-sampled':
      return `column family "${n.columnFamily}" blob files: ${n.read} of ${n.files} files read (${(n.maxBytes / 1024 ** 3).toFixed(0)} GiB of record headers at most), an evenly spread choice; the others are scaled by their size on disk`
    case 'block-size-skipped': {
      const needs = {
        'database-with-options': 'a database directory with an OPTIONS file',
        'whole-database': 'the whole database, not a shard',
        objective: 'an objective, not explicit limits',
      }
      return `block_size not advised: it needs ${needs[n.needs]}`
    }
    case 'block-size-out-of-time':
      return `block_size of column family "${n.columnFamily}" not advised: the time budget's share for it (${(n.budgetMs / 1000).toFixed(1)} s) ended before two table files of every level were re-cut (${n.recut} of ${n.files})`
    case 'block-size-unreadable':
      return `block_size of column family "${n.columnFamily}" not advised: ${n.file} could not be re-cut (${n.message})`
    case 'write-options-missing-sections':
      return `--write-options: ${n.file} has no section for column famil${n.columnFamilies.length > 1 ? 'ies' : 'y'} ${n.columnFamilies.join(', ')}: left as is`
    case 'block-size-level-left-out':
      return `L${n.level}: compression ${n.compression} is not one sstkit writes: left out`
    case 'block-size-files-sampled':
      return `${n.recut} of ${n.files} table files re-cut ${n.fileShare !== null ? `(--sample: ${+(n.fileShare * 100).toFixed(2)}% of each level's, at least two)` : 'within the time budget'}: the other levels' bytes are ratio estimates (95% intervals)`
    case 'block-size-dictionaries':
      return 'levels with a dictionary: each file re-cut gets its own dictionary from blocks of the candidate size, as RocksDB builds one'
  }
}

type WithText<T> = T & { text: string }

/**
 * The advice as `advise --json` writes it: each note (the advice's, the block sizes', the workload's)
 * with its sentence beside it as `text`, for a reader of the JSON that wants the words. A copy.
 */
export function adviceJson<T extends Partial<Advice>>(advice: T): T {
  const withText = <N extends AdviceNote | BlockSizeNote>(n: N): WithText<N> => ({ ...n, text: noteText(n) })
  const out: Partial<Advice> = { ...advice }
  if (advice.notes) out.notes = advice.notes.map(withText)
  if (advice.columnFamilies)
    out.columnFamilies = advice.columnFamilies.map((cf) =>
      cf.blockSize ? { ...cf, blockSize: { ...cf.blockSize, notes: cf.blockSize.notes.map(withText) } } : cf,
    )
  if (advice.workload) out.workload = { ...advice.workload, note: withText(advice.workload.note), readsNote: withText(advice.workload.readsNote) }
  return out as T
}
