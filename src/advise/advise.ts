/**
 * `advise()` as a library: from a database directory (or plain SST files) to the advice, doing what
 * `sstkit advise` does: the inputs resolved and the database's version held for the run (released
 * however it ends), the release the options are written for, the info LOG's write workload, the
 * sampling and the decision (engine.ts), blob_compression_type per column family, the held paths
 * named as the database's own, the change against today's OPTIONS and, when asked, the OPTIONS file
 * with the advice applied, written atomically. The defaults are the CLI's.
 */
import { COMPRESSION_DEFAULTS, defaultTrainBytes } from '../codec/setting.js'
import { addOptionsChanges, advisedOptionsFile } from '../db/apply-options.js'
import { optionsRelease } from '../db/option-syntax.js'
import { DEFAULT_PRICES, SHORT_SPAN_SECONDS } from '../decide/cost.js'
import { defaultSettings } from '../decide/settings.js'
import { UsageError } from '../errors.js'
import { exactTextBytes } from '../format/exact-text.js'
import type { Advice, AdviceNote, DictOptions, ExplicitLimits, Objective, Prices, SettingSpec, WorkloadAdvice } from '../types/advice.js'
import { writeFileAtomic } from '../util/temp-file.js'
import { adviseBlobs, mergeBlobAdvice } from './blob.js'
import { applyBlockSizes, attachBlockSizes, BLOCK_SIZE_CANDIDATES, levelCompressionOf } from './block-size.js'
import { adviseGroups, liveBytes, SMALL_DATABASE_BYTES, smallDatabaseBudgetMs } from './engine.js'
import type { AdviseOptions } from './engine-options.js'
import { heldToOriginal, resolveInputs } from './inputs.js'
import { applyPlan } from './apply-plan.js'
import { levelDbAdvice } from './leveldb.js'
import { mergeAdvice } from './merge.js'
import { unreadableColumnFamilies } from './unreadable.js'
import type { Shard } from './sampling.js'
import { atWriteRate, measureWorkload } from './workload.js'

/** What `advise` optimises for unless told. */
export const DEFAULT_OBJECTIVE: Objective = 'balanced'
/** The time budget: sampling and timing end within it (the report and the exit after). */
export const DEFAULT_TIME_BUDGET_MS = 60_000
/** Sampling of a level stops when every setting's 95% interval is within ±this share of its bytes. */
export const DEFAULT_PRECISION = 0.005
/** The seed of the block sample: the same seed gives the same sample, for any number of jobs. */
export const DEFAULT_SEED = 0
/** The dictionary options evaluated: RocksDB's max_dict_bytes, zstd_max_train_bytes and max_dict_buffer_bytes as the CLI sets them. */
export const DEFAULT_DICTIONARY: Readonly<DictOptions> = Object.freeze({
  maxDictBytes: COMPRESSION_DEFAULTS.maxDictBytes,
  trainBytes: defaultTrainBytes(COMPRESSION_DEFAULTS.maxDictBytes),
  maxDictBufferBytes: COMPRESSION_DEFAULTS.maxDictBufferBytes,
})
/** RocksDB's acceptance rule (max_compressed_bytes_per_kb): a block compressed above it is stored raw. */
export const DEFAULT_MAX_COMPRESSED_BYTES_PER_KB = COMPRESSION_DEFAULTS.maxCompressedBytesPerKb

/** The block sizes advised among (with today's) per column family of a database with an OPTIONS file: 4, 8, 16, 32 and 64 KiB. */
export const DEFAULT_BLOCK_SIZES: readonly number[] = BLOCK_SIZE_CANDIDATES

/**
 * The share of the time budget kept for the block size evaluation (the levels' sampling gets the
 * rest): it ends within the budget but for its floor (two files a level re-cut).
 */
export const BLOCK_SIZE_BUDGET_SHARE = 0.2

export interface AdviseRequest {
  /** Default DEFAULT_OBJECTIVE; ignored when `limits` are given. */
  objective?: Objective
  /** Explicit limits instead of an objective. */
  limits?: ExplicitLimits | null
  /** Bytes flushed a day to price on instead of the info LOG's measured rate (its shape across levels kept; workload.ts atWriteRate). */
  writeRate?: number | null
  /** The cost objective's prices (default decide/cost.ts DEFAULT_PRICES). */
  prices?: Prices | null
  /** Default DEFAULT_TIME_BUDGET_MS; when not given, a database under 10 MiB answers at once on a smaller matrix. */
  timeBudgetMs?: number
  /** Default DEFAULT_PRECISION. */
  precision?: number
  /** A fixed share of blocks (0..1] instead of rounds to the precision (required with `shard`). */
  sampleRate?: number | null
  /** Shard K of N: the files dealt to it (combine the shards' advice with mergeAdviceParts). */
  shard?: Shard | null
  /** Default DEFAULT_SEED. */
  seed?: number
  /** Worker threads (default: all cores); the advice does not depend on it. */
  jobs?: number
  /** The settings to evaluate (default: decide/settings.ts defaultSettings()). */
  settings?: SettingSpec[]
  /** max_dict_bytes and max_dict_buffer_bytes to evaluate (zstd_max_train_bytes follows max_dict_bytes as in RocksDB). */
  maxDictBytes?: number
  maxDictBufferBytes?: number
  /** The RocksDB release to write options for when the database does not say ("7.8" or "7.8.3"). */
  rocksdbVersion?: string
  /**
   * The block sizes to advise block_size among per column family (block-size.ts; with today's): in the advice as
   * columnFamilies[].blockSize and applied by writeOptions. Default DEFAULT_BLOCK_SIZES; false: not evaluated. Only
   * for a database directory with an OPTIONS file, not for a shard nor under explicit limits (a note says so when
   * a list was given).
   */
  blockSizes?: readonly number[] | false
  /** Write the database's newest OPTIONS file with the advice applied to this path (a database directory only). */
  writeOptions?: string
  /** Notes to put first (e.g. what a caller's own matrix left out). */
  notes?: AdviceNote[]
  onProgress?: (message: string) => void
  /** When the run began on performance.now()'s clock (the CLI: 0, the process's start); default: now. */
  startedAt?: number
}

/** Nothing could be advised on though the inputs opened: no live file could be read (a finding, not a usage error). */
export class NothingToAdviseError extends Error {
  override name = 'NothingToAdviseError'
  constructor(
    message: string,
    /** What is known without advice (the source, notes, problems; the advice so far when files were left out). */
    readonly document: Partial<Advice>,
    /** The first file left out and why, when one was. */
    readonly firstProblem: Advice['problems'][number] | null = null,
  ) {
    super(message)
  }
}

/** The LOG's workload, at the rate given when there is one. */
function workloadAt(w: WorkloadAdvice, writeRate: number | null): WorkloadAdvice {
  return writeRate === null ? w : atWriteRate(w, writeRate)
}

/** The advice for a database directory or SST files (and directories of them). */
export async function advise(paths: string[], request: AdviseRequest = {}): Promise<Advice> {
  const began = performance.now()
  const inputs = resolveInputs(paths, { pin: true })
  const pin = inputs.pin
  let held = pin !== undefined
  try {
    if (inputs.problem) throw new UsageError(inputs.problem)
    const release = optionsRelease(inputs.source.rocksdbVersion ?? null, request.rocksdbVersion)
    if ('problem' in release) throw new UsageError(release.problem)
    if (request.writeOptions !== undefined && !inputs.options)
      throw new UsageError(
        `--write-options: ${inputs.source.kind === 'database' ? `${paths[0]} has no OPTIONS file to apply the advice to` : 'needs a database directory (its newest OPTIONS file)'}`,
      )
    if (inputs.finding) throw new NothingToAdviseError(inputs.finding, { version: 1, source: inputs.source, notes: inputs.notes, problems: inputs.problems })
    const maxDictBytes = request.maxDictBytes ?? DEFAULT_DICTIONARY.maxDictBytes
    const objective = request.objective ?? DEFAULT_OBJECTIVE
    const timeBudgetMs = request.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS
    const blockSizes = request.blockSizes ?? DEFAULT_BLOCK_SIZES
    // block_size per column family (block-size.ts): a database with an OPTIONS file, its whole (not a shard), under an objective.
    const blockSizeSkipped: (AdviceNote & { code: 'block-size-skipped' })['needs'] | null =
      blockSizes === false || blockSizes.length === 0
        ? null
        : !inputs.options || inputs.source.kind !== 'database'
          ? 'database-with-options'
          : request.shard
            ? 'whole-database'
            : request.limits != null
              ? 'objective'
              : null
    const withBlockSizes = blockSizes !== false && blockSizes.length > 0 && blockSizeSkipped === null
    // A database under SMALL_DATABASE_BYTES: its levels keep the whole budget, and its block size re-cuts its two files a
    // level whatever the clock (a few megabytes bound their cost), so that neither depends on how busy the machine is.
    const small = withBlockSizes && liveBytes(inputs.groups) < SMALL_DATABASE_BYTES
    let advice: Advice
    let smallBudgetMs: number | null = null
    try {
      const engineOptions: AdviseOptions = {
        settings: request.settings ?? defaultSettings(),
        objective,
        limits: request.limits ?? null,
        prices: request.prices ?? null,
        precision: request.precision ?? DEFAULT_PRECISION,
        timeBudgetMs,
        // The block size evaluation's share of the budget is kept for it: the levels' sampling ends before.
        keptShare: withBlockSizes && !small ? BLOCK_SIZE_BUDGET_SHARE : 0,
        // Without a time budget of its own, a small database answers at once.
        smallAtOnce: request.timeBudgetMs === undefined,
        seed: request.seed ?? DEFAULT_SEED,
        jobs: request.jobs,
        shard: request.shard ?? null,
        fixedRate: request.sampleRate ?? null,
        dict: {
          maxDictBytes,
          trainBytes: defaultTrainBytes(maxDictBytes),
          maxDictBufferBytes: request.maxDictBufferBytes ?? DEFAULT_DICTIONARY.maxDictBufferBytes,
        },
        maxCompressedBytesPerKb: DEFAULT_MAX_COMPRESSED_BYTES_PER_KB,
        dynamicLevels: inputs.dynamicLevels,
        baseLevels: inputs.baseLevels,
        todayCompression: new Map(
          (inputs.options?.parsed.columnFamilies ?? []).map((c) => [c.name, { compression: c.compression, compressionPerLevel: c.compressionPerLevel }]),
        ),
        source: { ...inputs.source, rocksdbVersion: release.source },
        rocksdbVersion: release.version,
        // the write rate per level, from the database's info LOGs (plain files have none)
        workload: inputs.source.kind === 'database' ? workloadAt(measureWorkload(paths[0]), request.writeRate ?? null) : null,
        onProgress: request.onProgress,
        startedAt: request.startedAt,
      }
      smallBudgetMs = smallDatabaseBudgetMs(inputs.groups, engineOptions)
      advice = await adviseGroups(inputs.groups, engineOptions)
    } catch (e) {
      // A message naming a held (linked) file names the database's own.
      if (pin && e instanceof Error) e.message = pin.originalPaths(e.message)
      throw e
    }
    // blob_compression_type per column family with blob files (blob.ts)
    adviseBlobs(advice, inputs.blobColumnFamilies ?? [], { objective, rocksdbVersion: release.version })
    // block_size per column family (block-size.ts): each level re-cut under the compression advised for it, which
    // --write-options has RocksDB write with the block size; until the time budget's end (a small database's: its own).
    if (withBlockSizes && inputs.options) {
      const run = {
        maxDictBytes,
        trainBytes: defaultTrainBytes(maxDictBytes),
        maxDictBufferBytes: request.maxDictBufferBytes ?? DEFAULT_DICTIONARY.maxDictBufferBytes,
      }
      const advised = (columnFamily: string, level: number) => {
        const l = advice.columnFamilies.find((c) => c.name === columnFamily)?.levels.find((x) => x.level === level)
        return l?.recommended ? levelCompressionOf(l.recommended.estimate.setting, run, DEFAULT_MAX_COMPRESSED_BYTES_PER_KB) : null
      }
      request.onProgress?.('block_size: re-cutting table files under each candidate')
      const started = request.startedAt ?? began
      const end = started + (smallBudgetMs ?? timeBudgetMs)
      // The files the levels' advice left out (unreadable) are left out here too.
      const leftOut = new Set(advice.problems.map((p) => p.file))
      const groups = inputs.groups.map((g) => ({ ...g, files: g.files.filter((f) => !leftOut.has(f.path)) }))
      const { notes, problems } = await attachBlockSizes(
        advice.columnFamilies,
        groups,
        inputs.options.parsed,
        {
          objective,
          candidates: blockSizes as readonly number[],
          dataBlockMissesPerSec: advice.workload?.measured?.reads?.dataBlockMissesPerSec ?? null,
          prices: request.prices ?? DEFAULT_PRICES,
          seed: request.seed ?? DEFAULT_SEED,
          budgetMs: Math.max(0, end - performance.now()),
          floorAnyTime: small,
          // --sample: the same share of each level's files, not the clock.
          fileShare: request.sampleRate ?? null,
          jobs: request.jobs,
        },
        advised,
      )
      advice.notes.push(...notes)
      advice.problems.push(...problems.filter((p) => !leftOut.has(p.file)))
    } else if (blockSizeSkipped !== null && request.blockSizes) {
      advice.notes.push({ code: 'block-size-skipped', needs: blockSizeSkipped })
    }
    if (pin) {
      held = false
      advice = heldToOriginal(advice, pin)
    }
    advice.notes.unshift(...(request.notes ?? []), ...inputs.notes, ...release.notes)
    const short = advice.workload?.measured?.shortSpan ? advice.workload.measured : null
    if (objective === 'cost' && short) advice.notes.push({ code: 'cost-short-log-span', spanSeconds: short.spanSeconds, shortSpanSeconds: SHORT_SPAN_SECONDS })
    advice.problems.unshift(...inputs.problems)
    const unreadable = unreadableColumnFamilies(advice, inputs.listed ?? [])
    if (unreadable.length) advice.source.unreadableColumnFamilies = unreadable
    if (inputs.options) addOptionsChanges(advice.columnFamilies, inputs.options.parsed)
    advice.applyPlan = applyPlan(advice)
    if (request.writeOptions !== undefined && inputs.options) {
      const { text, note } = advisedOptionsFile(inputs.options.text, inputs.options.parsed, advice.columnFamilies)
      if (note) advice.notes.push(note)
      const blockSizes = advice.columnFamilies.flatMap((cf) => (cf.blockSize ? [cf.blockSize] : []))
      writeFileAtomic(request.writeOptions, exactTextBytes(applyBlockSizes(text, inputs.options.parsed.path, blockSizes)))
    }
    const liveFiles = inputs.groups.reduce((n, g) => n + g.files.length, 0)
    const advised = advice.columnFamilies.reduce((n, cf) => n + cf.levels.reduce((m, l) => m + l.files, 0), 0)
    if (liveFiles > 0 && advised === 0)
      throw new NothingToAdviseError(`every live file (${liveFiles}) was left out, nothing to advise on`, advice, advice.problems[0] ?? null)
    // LevelDB's one option, from the evaluation.
    if (advice.source.engine === 'leveldb') advice.leveldb = levelDbAdvice(advice)
    return advice
  } finally {
    if (held) pin?.release()
  }
}

/** One advice from the advice of every `--shard K/N` run (MergeError where they do not fit together). */
export function mergeAdviceParts(parts: Advice[]): Advice {
  const merged = mergeAdvice(parts)
  mergeBlobAdvice(merged, parts)
  if (merged.source.engine === 'leveldb') merged.leveldb = levelDbAdvice(merged)
  return merged
}
