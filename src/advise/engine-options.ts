/** What the advise engine is asked (engine.ts adviseGroups): the matrix, objective, budget, and what the database says. */
import type { DictionaryOptions } from '../recompress/dictionary.js'
import type { ExplicitLimits, Advice, Objective, SettingSpec, Prices, WorkloadAdvice } from '../types/advice.js'
import type { RocksdbVersion } from '../db/option-syntax.js'
import type { TodayCompression } from '../db/compression-options.js'
import type { Shard } from './sampling.js'

export interface AdviseOptions {
  settings: SettingSpec[]
  objective: Objective
  limits: ExplicitLimits | null
  precision: number
  timeBudgetMs: number
  /** The share of the time budget kept for what advise() does after the levels (block size): the levels' sampling ends before it. */
  keptShare?: number
  seed: number
  jobs?: number
  shard: Shard | null
  /** Fixed sampling rate (0..1]: no adaptive rounds (required with shards). */
  fixedRate: number | null
  dict: DictionaryOptions
  maxCompressedBytesPerKb: number
  /** The write workload of the database's info LOGs (cost.ts measureWorkload); null or absent: none. */
  workload?: WorkloadAdvice | null
  /** Prices for the cost objective (default DEFAULT_PRICES). */
  prices?: Prices | null
  /** Also dynamic level bytes, per column family, when the OPTIONS file says so. */
  dynamicLevels?: Map<string, boolean>
  /** Under dynamic level bytes, the base level per column family (inputs.ts); absent: the first level below L0 that holds data. */
  baseLevels?: Map<string, number>
  /** Today's compression and compression_per_level per column family, from the OPTIONS file (absent: unknown). */
  todayCompression?: Map<string, TodayCompression>
  source: Advice['source']
  onProgress?: (message: string) => void
  /** Milliseconds, for the time budget (default performance.now; tests inject their own). */
  clock?: () => number
  /** The database's RocksDB release: recommend only what it parses, in its syntax (null/absent: unknown). */
  rocksdbVersion?: RocksdbVersion | null
  /** A database under SMALL_DATABASE_BYTES answers at once (the command's default when --time-budget is not given). */
  smallAtOnce?: boolean
  /** Set by advise() for a small database answering at once: every level gets its first round whatever the clock. */
  smallDatabase?: boolean
  /** When the run began on `clock` (the command: 0, the process's start); default: when advise() is called. */
  startedAt?: number
}

/** The part of the time budget the levels' sampling and timing end within: the budget less what is kept for later. */
export function levelsBudgetMs(opts: Pick<AdviseOptions, 'timeBudgetMs' | 'keptShare'>): number {
  return opts.timeBudgetMs * (1 - (opts.keptShare ?? 0))
}
