/**
 * The flags of `advise` and their translation into AdviseOptions: durations,
 * percentages and the matrix, each validated with a one-line message naming
 * the flag and what it accepts.
 */
import { Flags } from '@oclif/core'
import { sizeFlag } from './units.js'
import { UsageError } from '../errors.js'
import { COMPRESSION_DEFAULTS } from '../codec/setting.js'
import { parseByteSizes, parseChecksums, parseDicts, parseLevels } from '../recompress/config.js'
import { DEFAULT_BLOCK_SIZES } from '../advise/advise.js'
import { defaultSettings } from '../decide/settings.js'
import { settingsFromMatrix } from '../advise/matrix.js'
import { parseSize } from './units.js'
import { parseShard, type Shard } from '../advise/sampling.js'
import type { DictMode, Objective, SettingSpec, ExplicitLimits, Prices } from '../types/advice.js'
import type { MatrixNote } from '../types/advice.js'
import { OBJECTIVES } from '../decide/rule.js'
import { DEFAULT_PRICES } from '../decide/cost.js'

export class AdviseFlagError extends UsageError {
  override name = 'AdviseFlagError'
}

/** `60s`, `2m`, `90` (seconds), `1.5m`, `500ms` → milliseconds. */
export function parseDuration(flag: string, spec: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(spec.trim())
  if (!m) throw new AdviseFlagError(`${flag} takes a duration such as 60s, 2m or 90 (got "${spec}")`)
  const n = Number(m[1])
  const unit = m[2] ?? 's'
  const ms = unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000
  if (ms <= 0) throw new AdviseFlagError(`${flag} must be above zero (got "${spec}")`)
  return ms
}

/**
 * A percentage, `0.5%` or `0.5` (the % is optional, as in recompress's --sample: a number here is
 * always a percentage) → the fraction 0.005; bounded to (0, max].
 */
export function parsePercentShare(flag: string, spec: string, max = 1): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(spec.trim())
  if (!m) throw new AdviseFlagError(`${flag} takes a percentage such as 0.5% or 0.5 (got "${spec}")`)
  const v = Number(m[1]) / 100
  if (!(v > 0) || v > max) throw new AdviseFlagError(`${flag} must be above 0% and at most ${max * 100}% (got "${spec}")`)
  return v
}

/** What a --merge run takes from its parts, not from flags: each of these beside --merge would be silently ignored. */
const MERGE_EXCLUSIVE = [
  'objective',
  'max-compress-cpu-ratio',
  'min-decompress-mbps',
  'max-bytes',
  'time-budget',
  'precision',
  'sample',
  'seed',
  'jobs',
  'shard',
  'types',
  'levels',
  'dict',
  'checksum',
  'max-dict-bytes',
  'max-dict-buffer-bytes',
  'block-size',
]

/** The largest block size advise evaluates (a candidate's blocks of every file re-cut are held while it is written). */
export const MAX_ADVISE_BLOCK_SIZE = 1 << 20

/**
 * Flags of the table format that do nothing beside `--format markdown`: a usage error (oclif's
 * `exclusive` cannot name a flag's value). null when there is no conflict.
 */
export function formatConflict(f: { format?: string; wide?: boolean; bytes?: boolean }): string | null {
  if (f.format !== 'markdown') return null
  if (f.wide) return '--wide cannot be used together with --format markdown (Markdown always lists every evaluated setting)'
  if (f.bytes) return '--bytes cannot be used together with --format markdown (it is an option of the table format)'
  return null
}

/** `sstkit advise --help`'s description. */
export const ADVISE_DESCRIPTION = `Recommend the compression settings of a RocksDB database, per column family and level, with evidence.
Reads the database as RocksDB opens it (CURRENT, the MANIFEST's live files per column family and level, the newest OPTIONS file), samples data blocks of every level, compresses them under each setting exactly as RocksDB's table builder would (each file's own dictionary, the max_compressed_bytes_per_kb rule), and estimates each level's bytes with a 95% confidence interval (a regression estimator over blocks, against their size on disk today). Sampling stops per level at --precision, or when --time-budget is spent. Then it picks, per level, the setting the --objective asks for, the runner-up and why, and prints the RocksDB options to set in OPTIONS-file syntax. With an OPTIONS file it also advises block_size per column family (--block-size): its table files re-cut into blocks of each candidate size under the compression advised per level, within a fifth of the time budget.
Plain SST files or directories of them are grouped by the column family their properties name; their levels are unknown, so each column family gets one setting.`

/** `sstkit advise --help`'s examples. */
export const ADVISE_EXAMPLES = [
  { description: 'A RocksDB database directory:', command: '<%= config.bin %> <%= command.id %> examples/db' },
  { description: 'Plain files, grouped by column family:', command: '<%= config.bin %> <%= command.id %> a.sst b.sst dir/' },
  {
    description: 'A pull-request comment within a minute, favouring size:',
    command: '<%= config.bin %> <%= command.id %> /var/lib/mydb --time-budget 60s --objective size --format markdown > advice.md',
  },
  { description: 'A self-contained HTML page with charts:', command: '<%= config.bin %> <%= command.id %> examples/db --report advice.html' },
  {
    description: 'Explicit limits instead of an objective:',
    command: '<%= config.bin %> <%= command.id %> examples/db --max-compress-cpu-ratio 2 --min-decompress-mbps 500',
  },
  {
    description: 'The least compression CPU that keeps the database within 80% of its bytes today (or --max-bytes 500MiB):',
    command: '<%= config.bin %> <%= command.id %> examples/db --max-bytes 80%',
  },
  {
    description: 'Four machines, each next to its share of the files (shard 0/4 here; 1/4, 2/4 and 3/4 on the others):',
    command: '<%= config.bin %> <%= command.id %> DB --sample 5% --shard 0/4 --json > part0.json',
  },
  {
    description: 'Then one advice from the four parts:',
    command: '<%= config.bin %> <%= command.id %> --merge part0.json part1.json part2.json part3.json',
  },
]

export const adviseFlags = {
  objective: Flags.string({
    description: `What to optimise for. balanced (default): ${OBJECTIVES.balanced}; with the database's info LOG, each level's multiple is weighted by its measured write rate. size: ${OBJECTIVES.size}. speed: ${OBJECTIVES.speed}. cost: ${OBJECTIVES.cost}.`,
    options: ['balanced', 'size', 'speed', 'cost'],
    default: 'balanced',
    // An objective and explicit limits are two ways of saying what to optimise for: giving both is a usage error.
    exclusive: ['max-compress-cpu-ratio', 'min-decompress-mbps', 'max-bytes'],
  }),
  'cpu-price': Flags.string({
    description: `With --objective cost: $ per core-hour (default ${DEFAULT_PRICES.cpuPerCoreHour}).`,
  }),
  'storage-price': Flags.string({
    description: `With --objective cost: $ per GB-month of storage (default ${DEFAULT_PRICES.storagePerGBMonth}).`,
  }),
  'write-rate': Flags.string({
    description:
      "Bytes flushed a day (e.g. 50GB) to price compression CPU at, instead of the rate the info LOG measured; the LOG's shape across levels is kept. --objective cost prices a LOG spanning under an hour only with it.",
  }),
  'max-compress-cpu-ratio': Flags.string({
    description: "Explicit limit instead of an objective: compression CPU at most this multiple of today's setting's (e.g. 2).",
  }),
  'min-decompress-mbps': Flags.string({ description: 'Explicit limit instead of an objective: decompression at least this many MB/s.' }),
  'max-bytes': Flags.string({
    description:
      "Explicit limit instead of an objective: the projected total of every column family and level at most this size (500MiB, 2GB) or share of today's (80%), met at the least compression CPU (a level's CPU counted per GB it holds, so bytes are saved where they cost least, usually the bottommost level); when nothing fits, each level says so and gets its smallest setting.",
  }),
  'time-budget': Flags.string({
    description:
      'Stop sampling when this much time is spent (e.g. 60s, 2m; default 60s, and without it a database under 10 MiB answers at once on a smaller matrix). The output says which levels it stopped.',
  }),
  precision: Flags.string({
    description: "Stop sampling a level when every setting's 95% interval is within ±this percentage (0.5% or 0.5).",
    default: '0.5%',
  }),
  sample: Flags.string({
    description:
      'Evaluate a fixed percentage of the data blocks of every level (5% or 5, as recompress --sample) instead of sampling until --precision or --time-budget; needed with --shard.',
    exclusive: ['precision', 'time-budget'],
  }),
  seed: Flags.integer({ description: 'Seed of the block sample: the same seed gives the same sample, for any --jobs.', default: 0 }),
  jobs: Flags.integer({ description: 'Worker threads (default: all cores). Results do not depend on it.', min: 1 }),
  shard: Flags.string({ description: 'Evaluate shard K of N (K/N, 0-based): the files dealt to it. Combine the --json outputs with --merge.' }),
  merge: Flags.boolean({
    description: "The arguments are --json outputs of --shard runs: combine them into one advice (with the parts' own objective, sample and settings).",
    exclusive: MERGE_EXCLUSIVE,
  }),
  types: Flags.string({ description: 'Evaluate these compression types instead of the default matrix (none, snappy, lz4, lz4hc, zlib, bzip2, zstd).' }),
  levels: Flags.string({ description: 'With --types: levels as a range or list (1..19, 1,3,6).' }),
  dict: Flags.string({ description: 'With --types: dictionary modes (none, raw, finalize, train).' }),
  checksum: Flags.string({ description: 'With --types: zstd frame checksum off, on or both.', options: ['off', 'on', 'both'] }),
  'max-dict-bytes': sizeFlag({
    description: "Dictionary size (RocksDB's max_dict_bytes) for the dictionary settings.",
    default: COMPRESSION_DEFAULTS.maxDictBytes,
    min: 1,
  }),
  'max-dict-buffer-bytes': sizeFlag({
    description: "Data bytes buffered before a file's dictionary is built (max_dict_buffer_bytes).",
    default: COMPRESSION_DEFAULTS.maxDictBufferBytes,
    min: 0,
  }),
  'block-size': Flags.string({
    description: `The block sizes to advise block_size among, per column family, besides today's: a list (4KiB,16KiB,64KiB or bytes; default ${DEFAULT_BLOCK_SIZES.map((b) => `${b >> 10}KiB`).join(',')}), or none to leave block size out. A database directory with an OPTIONS file, under an objective (not --shard, not explicit limits).`,
  }),
  format: Flags.string({ description: 'Output format (--json for everything).', options: ['table', 'markdown'], default: 'table', exclusive: ['json'] }),
  report: Flags.string({ description: 'Also write a self-contained HTML page with charts to this file.' }),
  'rocksdb-version': Flags.string({
    description:
      "The RocksDB release the options are for, when the database does not say (its newest OPTIONS file's rocksdb_version, else its LOG header, win): recommend only what it parses, in its syntax.",
  }),
  'write-options': Flags.string({
    description:
      "Write the database's newest OPTIONS file with the advice applied to this file (atomically; RocksDB loads it, e.g. as the newest OPTIONS file of a copy).",
  }),
  wide: Flags.boolean({
    description: 'Also print every evaluated setting per level (the table format; Markdown and --json always have them).',
    exclusive: ['json'],
  }),
  bytes: Flags.boolean({ description: 'Exact byte counts instead of KiB/MiB/GiB in the table format (--json always has them).', exclusive: ['json'] }),
}

export interface AdviseFlagValues {
  objective: string
  'cpu-price'?: string
  'write-rate'?: string
  'storage-price'?: string
  'max-compress-cpu-ratio'?: string
  'min-decompress-mbps'?: string
  'max-bytes'?: string
  'time-budget'?: string
  precision: string
  sample?: string
  seed: number
  jobs?: number
  shard?: string
  types?: string
  levels?: string
  dict?: string
  checksum?: string
  'max-dict-bytes': number
  'max-dict-buffer-bytes': number
  'block-size'?: string
}

export interface ParsedAdviseFlags {
  settings: SettingSpec[]
  notes: MatrixNote[]
  objective: Objective
  limits: ExplicitLimits | null
  /** --objective cost's prices (null otherwise). */
  prices: Prices | null
  /** --write-rate: bytes flushed a day (null: the LOG's own rate). */
  writeRate: number | null
  /** undefined: not given (the library's default, and a small database answers at once). */
  timeBudgetMs: number | undefined
  precision: number
  fixedRate: number | null
  shard: Shard | null
  /** --block-size: the candidates, false for none; undefined: not given (the library's default). */
  blockSizes: readonly number[] | false | undefined
}

/** `--block-size`: `none`, or a list of sizes (at most MAX_ADVISE_BLOCK_SIZE each). */
export function parseAdviseBlockSizes(spec: string): readonly number[] | false {
  if (spec.trim().toLowerCase() === 'none') return false
  let sizes: number[]
  try {
    sizes = parseByteSizes(spec, 'block size', 64)
  } catch (e) {
    throw new AdviseFlagError(`--block-size: ${(e as Error).message}, or none`)
  }
  const big = sizes.find((b) => b > MAX_ADVISE_BLOCK_SIZE)
  if (big !== undefined) throw new AdviseFlagError(`--block-size: ${big} is above advise's largest block size, ${MAX_ADVISE_BLOCK_SIZE >> 10}KiB`)
  return sizes.sort((a, b) => a - b)
}

function positive(flag: string, v: string): number {
  const n = Number(v)
  if (!(n > 0) || !Number.isFinite(n)) throw new AdviseFlagError(`${flag} takes a number above zero (got "${v}")`)
  return n
}

/** A price: a number at or above zero, with or without a leading $. */
function price(flag: string, v: string): number {
  const n = Number(v.trim().replace(/^\$/, ''))
  if (!(n >= 0) || !Number.isFinite(n) || v.trim() === '') throw new AdviseFlagError(`${flag} takes a price in dollars such as 0.04 (got "${v}")`)
  return n
}

/**
 * `--max-bytes`: `80%` (a share of today's total, above 0) or a size, read by
 * `parseSize` (cli/units.ts's unless a caller hands in another).
 */
export function parseMaxBytes(spec: string, parseSize: (spec: string) => number): Pick<ExplicitLimits, 'maxBytes' | 'maxBytesShare'> {
  const share = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(spec)
  if (share) {
    const v = Number(share[1]) / 100
    if (!(v > 0)) throw new AdviseFlagError(`--max-bytes must be above 0% (got "${spec}")`)
    return { maxBytesShare: v }
  }
  let bytes: number
  try {
    bytes = parseSize(spec)
  } catch (e) {
    throw new AdviseFlagError(`--max-bytes takes a size such as 500MiB or 2GB, or a share of today's bytes such as 80% (${(e as Error).message})`)
  }
  if (!(bytes > 0)) throw new AdviseFlagError(`--max-bytes must be above zero (got "${spec}")`)
  return { maxBytes: bytes }
}

export function parseAdviseFlags(f: AdviseFlagValues, sizeOf: (spec: string) => number = (spec) => parseSize(spec, '--max-bytes')): ParsedAdviseFlags {
  let settings = defaultSettings()
  let notes: MatrixNote[] = []
  if (f.types !== undefined) {
    try {
      ;({ settings, notes } = settingsFromMatrix(
        f.types,
        f.levels !== undefined ? parseLevels(f.levels) : undefined,
        f.dict !== undefined ? (parseDicts(f.dict) as DictMode[]) : undefined,
        parseChecksums(f.checksum ?? 'off'),
      ))
    } catch (e) {
      throw new AdviseFlagError((e as Error).message)
    }
  } else if (f.levels !== undefined || f.dict !== undefined || f.checksum !== undefined) {
    throw new AdviseFlagError('--levels, --dict and --checksum narrow --types: give --types too')
  }
  const limits: ExplicitLimits = {}
  if (f['max-compress-cpu-ratio'] !== undefined) limits.maxCompressCpuRatio = positive('--max-compress-cpu-ratio', f['max-compress-cpu-ratio'])
  if (f['min-decompress-mbps'] !== undefined) limits.minDecompressMBps = positive('--min-decompress-mbps', f['min-decompress-mbps'])
  if (f['max-bytes'] !== undefined) Object.assign(limits, parseMaxBytes(f['max-bytes'], sizeOf))
  let prices: Prices | null = null
  if (f.objective === 'cost') {
    if (Object.keys(limits).length > 0)
      throw new AdviseFlagError(
        '--objective cost prices every level itself: it does not combine with --max-compress-cpu-ratio, --min-decompress-mbps or --max-bytes',
      )
    prices = {
      cpuPerCoreHour: f['cpu-price'] !== undefined ? price('--cpu-price', f['cpu-price']) : DEFAULT_PRICES.cpuPerCoreHour,
      storagePerGBMonth: f['storage-price'] !== undefined ? price('--storage-price', f['storage-price']) : DEFAULT_PRICES.storagePerGBMonth,
    }
  } else if (f['cpu-price'] !== undefined || f['storage-price'] !== undefined) {
    throw new AdviseFlagError('--cpu-price and --storage-price price --objective cost: give --objective cost too')
  }
  let shard: Shard | null = null
  if (f.shard !== undefined) {
    try {
      shard = parseShard(f.shard)
    } catch (e) {
      throw new AdviseFlagError((e as Error).message)
    }
  }
  const fixedRate = f.sample !== undefined ? parsePercentShare('--sample', f.sample) : null
  if (shard && fixedRate === null) throw new AdviseFlagError('--shard needs --sample (a fixed share of blocks), so that the shards together are one run')
  const blockSizes = f['block-size'] === undefined ? undefined : parseAdviseBlockSizes(f['block-size'])
  // Block size is advised over the whole database under an objective: a list beside these would be silently ignored.
  if (blockSizes) {
    if (shard) throw new AdviseFlagError('--block-size is advised over the whole database, not a --shard (give --block-size none, or leave it out)')
    if (Object.keys(limits).length > 0)
      throw new AdviseFlagError(
        '--block-size is advised under an objective: it does not combine with --max-compress-cpu-ratio, --min-decompress-mbps or --max-bytes',
      )
  }
  return {
    settings,
    notes,
    objective: f.objective as Objective,
    limits: Object.keys(limits).length ? limits : null,
    prices,
    writeRate: f['write-rate'] === undefined ? null : positive('--write-rate', String(parseSize(f['write-rate'], '--write-rate'))),
    timeBudgetMs: f['time-budget'] === undefined ? undefined : parseDuration('--time-budget', f['time-budget']),
    precision: parsePercentShare('--precision', f.precision, 0.5),
    fixedRate,
    shard,
    blockSizes,
  }
}
