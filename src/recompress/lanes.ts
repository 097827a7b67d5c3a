/**
 * How recompress spreads a matrix over its lanes: what each setting costs (relative units, measured),
 * the groups of settings one task evaluates side by side (one per lane, or passes of settings when a
 * lane cannot hold every writer at once), and their order.
 */
import { effectiveLevel } from '../codec/setting.js'
import { CompressionType, compressionShortName } from '../format/compression-type.js'
import type { RecompressConfig } from './config.js'
import { buildsFromSamples } from './dictionary.js'
import type { SourceOptions } from './source.js'

/**
 * Relative cost of a configuration's compression, for balancing work across jobs (1: zstd 1 without a
 * dictionary; zstd 3 measured 1.15-1.35x zstd 1 on the 224 MB bench file, round trip included). The
 * other codecs' from compressMs on layout-25k.sst (16 KiB blocks, --repeat 3, zstd 1 = 34 ms, which
 * also reproduced zstd 3..12 within 10%): none 0 (its table writer only), snappy 0.45, lz4 0.53,
 * lz4hc 1.9 at level 1 to 2.8 at 9 and 7.7 at 12, zlib 2.8 at 1 to 4.5 at 6 (its default) and 5.1
 * at 9, bzip2 34. zstd from level 10 on: ZSTD_HIGH_LEVELS.
 */
function compressionCost(name: string, l: number): number {
  switch (name) {
    case 'zstd':
      return l <= 3 ? 1 + 0.1 * (Math.max(l, 1) - 1) : 1 + (l - 3)
    case 'none':
      return 0.2
    case 'snappy':
    case 'lz4':
      return 0.5
    case 'lz4hc':
      return l <= 9 ? 1.8 + 0.11 * Math.max(l, 1) : 2.8 + (l - 9) * 1.6
    case 'zlib':
      return 2.7 + 0.27 * (l < 0 ? 6 : l)
    case 'bzip2':
      return 34
    default:
      return 1
  }
}

/**
 * zstd 9, 12, 15 and 19, without a dictionary and with one (its cost included), in the units above
 * (zstd 9 = 7 and 7.5, as the model below level 10 has it). Measured by recompress's default matrix on bench/data/per-file/lz4-4k-8MB.sst
 * (commit ea80237, 2026-12-06), compression MB/s: without 43, 22, 6.1, 3.2; with a dictionary (raw,
 * finalize, train alike) 52, 28, 14, 5.5. A dictionary makes the high levels faster, where the
 * model had it cost 0.5 more, and zstd 15 and 19 cost 49 and 94, not 20 and 80. The default
 * matrix's pass without a dictionary, its costliest, was handed out last, and one lane ran its end
 * alone (~3 s of a 15 s run on that file).
 */
const ZSTD_HIGH_LEVELS = { levels: [9, 12, 15, 19], none: [7, 14, 49, 94], dict: [7.5, 10.7, 21, 55] }

function zstdHighLevelCost(level: number, dictionary: boolean): number {
  const { levels } = ZSTD_HIGH_LEVELS
  const costs = dictionary ? ZSTD_HIGH_LEVELS.dict : ZSTD_HIGH_LEVELS.none
  const i = levels.findIndex((x) => x >= level)
  // Past 19 (the ultra levels, not measured): as much more a level as from 15 to 19.
  if (i < 0) return costs[3] + ((level - 19) * (costs[3] - costs[2])) / 4
  if (levels[i] === level) return costs[i]
  return costs[i - 1] + ((level - levels[i - 1]) * (costs[i] - costs[i - 1])) / (levels[i] - levels[i - 1])
}

/**
 * What a dictionary adds to a configuration, in the same units: zstd copies the digested dictionary's
 * tables into its context for every block. Measured on the 224 MB bench file, 16 KiB blocks, one
 * thread: zstd 1 and 3 with a finalized dictionary compress and round-trip in 1.3-1.5x the time without.
 */
const DICTIONARY_COST = 0.5

/**
 * What sampling the file for dictionaries costs a task, in the same units: one re-cut pass over the
 * data and a re-cut of the ~100 chosen blocks (1.15 s of CPU on the bench file against ~2-3 s for a
 * zstd 1..3 configuration's compression and round trip, both measured under load).
 */
const SAMPLING_COST = 0.25

/**
 * What reading the file for every lane costs the lane that reads it (feed.ts), in the same units:
 * read, checksum, decode, (re-cut) cut again, and copy to the other lanes. Measured on the 224 MB
 * bench file, 16 KiB blocks, under load: the reading lane's CPU exceeded the other's by 1.4 s with
 * 0.6 units less of settings (~1.9 s a unit), i.e. ~1.3 units. The file's own blocks need no re-cut
 * (not measured: half of it, roughly).
 */
export function readingCost(source: SourceOptions): number {
  return source.blockSize === null ? 0.6 : 1.3
}

/**
 * What a zstd setting with the content checksum adds beside the same setting without it in one task
 * (evaluate.ts checksumTwins: its frames are the other's, flagged, with XXH64 of the block appended),
 * in the same units: the hash and a copy of each block. Apart, in two tasks, it compresses every block
 * again: recompress of zstd 3 with and without the checksum on a 64 MB file took 2.43 s on two lanes
 * against 1.86 s on one (commit e753790, 2026-12-07).
 */
const CHECKSUM_TWIN_COST = 0.05

/** Whether `a` and `b` are checksum twins: zstd, the same level, dictionary and strategy, one with the checksum. */
function twins(a: RecompressConfig, b: RecompressConfig): boolean {
  return (
    a.type === CompressionType.ZSTD && b.type === a.type && a.level === b.level && a.dict === b.dict && a.strategy === b.strategy && a.checksum !== b.checksum
  )
}

/**
 * The settings as units a task keeps together, in their order (a pair where its first comes): a zstd
 * setting with the checksum and its twin without it, every other setting alone.
 */
function units(configs: RecompressConfig[]): RecompressConfig[][] {
  const out: RecompressConfig[][] = []
  const taken = new Set<RecompressConfig>()
  for (const c of configs) {
    if (taken.has(c)) continue
    taken.add(c)
    const twin = configs.find((o) => !taken.has(o) && twins(c, o))
    if (twin) taken.add(twin)
    out.push(twin ? [c, twin] : [c])
  }
  return out
}

/** How many lanes the matrix can keep busy at most: its units (a checksum pair is one). */
export function laneUnits(configs: RecompressConfig[]): number {
  return units(configs).length
}

/** What a task evaluating `items` side by side costs in compression: a checksum twin beside its pair costs only its hash. */
function groupCost(items: readonly RecompressConfig[]): number {
  let total = 0
  const paired = new Set<RecompressConfig>()
  for (const c of items) {
    const twin = c.checksum ? items.find((o) => !o.checksum && !paired.has(o) && twins(c, o)) : undefined
    if (twin) paired.add(twin)
    total += twin ? CHECKSUM_TWIN_COST : cost(c)
  }
  return total
}

function cost(c: RecompressConfig): number {
  const name = compressionShortName(c.type)
  const l = effectiveLevel(c.type, c.level) ?? 1
  const dictionary = c.dict !== 'none'
  // zstd's high levels were measured with a dictionary and without: their table holds its cost.
  if (name === 'zstd' && l > 9) return zstdHighLevelCost(l, dictionary)
  return compressionCost(name, l) + (dictionary ? DICTIONARY_COST : 0)
}

/**
 * Split configurations into `n` groups of similar cost, keeping matrix order
 * inside each: longest first, each to the group it leaves cheapest. A group
 * with a dictionary built from samples pays for sampling once (each task
 * builds its own configurations' dictionaries), so those configurations stay
 * together unless balance asks otherwise.
 */
export function partition(configs: RecompressConfig[], n: number, reading = 0): RecompressConfig[][] {
  type Group = { cost: number; sampling: boolean; items: RecompressConfig[]; reads: boolean }
  const groups: Group[] = Array.from({ length: n }, () => ({ cost: 0, sampling: false, items: [], reads: false }))
  // With a reading cost, one lane reads the file for all (feed.ts) and samples it for all: it starts with
  // those costs and comes last (this thread's lane).
  const shared = reading > 0 && n > 1
  if (shared) Object.assign(groups[n - 1], { cost: reading + (configs.some(buildsFromSamples) ? SAMPLING_COST : 0), reads: true, sampling: true })
  // Checksum twins stay together: apart, the second compresses every block again.
  for (const u of units(configs).sort((a, b) => groupCost(b) - groupCost(a) || a[0].id - b[0].id)) {
    const samples = buildsFromSamples(u[0])
    const setup = (g: Group) => (samples && !g.sampling && !shared ? SAMPLING_COST : 0)
    const after = (g: Group) => g.cost + groupCost(u) + setup(g)
    // Cheapest afterwards; on a tie, the group that needs no new sampling, then the first.
    const g = groups.reduce((best, x) => (after(x) < after(best) || (after(x) === after(best) && setup(x) < setup(best)) ? x : best))
    g.cost = after(g)
    g.sampling ||= samples
    g.items.push(...u)
  }
  if (n === 2) improveTwoLanes(groups, shared)
  return groups
    .filter((g) => g.items.length > 0)
    .sort((a, b) => Number(a.reads) - Number(b.reads) || b.cost - a.cost)
    .map((g) => g.items.sort((a, b) => a.id - b.id))
}

/**
 * Memory a lane may give its table writers (one per setting and auto-skip variant, side by side in
 * one pass), and what each costs: its codec contexts (a zstd compression context with a digested
 * dictionary, a decompression context for the round trip: 0.2-0.8 MB by level), its scratch
 * buffers and JS objects, and 4 bytes a data block for its index (format/index-block.ts
 * SeparatorLog). A matrix with more writers than the lanes hold runs in several passes: the
 * default zstd matrix (56 settings) held 3-4 MB of each in one pass, 254-335 MB in all.
 */
const LANE_WRITER_BUDGET_BYTES = 24 << 20
const WRITER_BYTES = 1.5 * (1 << 20)

/** How many settings one pass evaluates at most: the lane's writer budget over each setting's writers. */
export function settingsPerPass(dataBlocks: number, writersPerSetting: number): number {
  const perSetting = writersPerSetting * (WRITER_BYTES + 4 * dataBlocks)
  return Math.max(1, Math.floor(LANE_WRITER_BUDGET_BYTES / perSetting))
}

/** Which dictionary a setting's pass builds: settings sharing one go into the same pass where they can. */
function dictionaryKind(c: RecompressConfig): number {
  return c.dict === 'raw' ? 1 : c.dict === 'finalize' ? 2 : c.dict === 'train' ? 3 : 0
}

/**
 * Passes of at most `perPass` settings each, for a matrix larger than the lanes hold in one pass:
 * settings of one dictionary kind together (each pass samples and builds only its own
 * dictionaries), split evenly, in matrix order inside each; the costliest pass first, so that the
 * lanes, taking passes in turn, end together.
 */
export function passes(configs: RecompressConfig[], perPass: number): RecompressConfig[][] {
  const out: { cost: number; items: RecompressConfig[] }[] = []
  for (let kind = 0; kind <= 3; kind++) {
    const bucket = units(configs.filter((c) => dictionaryKind(c) === kind).sort((a, b) => a.id - b.id))
    const count = bucket.reduce((a, u) => a + u.length, 0)
    const n = Math.ceil(count / perPass)
    if (n === 0) continue
    const sizes = Array.from({ length: n }, (_, k) => Math.floor(count / n) + (k < count % n ? 1 : 0))
    const items: RecompressConfig[][] = Array.from({ length: n }, () => [])
    let k = 0
    for (const u of bucket) {
      const rest = [...u]
      while (rest.length > 0) {
        while (k < n - 1 && items[k].length >= sizes[k]) k++
        const room = sizes[k] - items[k].length
        if (room >= rest.length) items[k].push(...rest.splice(0))
        // A pair that does not fit: this pass ends short where the next can take the difference, else the pair is split.
        else if (k < n - 1 && sizes[k + 1] + room <= perPass) {
          sizes[k + 1] += room
          sizes[k] -= room
        } else items[k].push(...rest.splice(0, room))
      }
    }
    for (const p of items) out.push({ cost: groupCost(p) + (kind > 0 ? SAMPLING_COST : 0), items: p })
  }
  return out.sort((a, b) => b.cost - a.cost || a.items[0].id - b.items[0].id).map((p) => p.items)
}

/** Units (a setting, or a checksum pair) up to which two lanes are split by trying every split (2^n) rather than greedily. */
const EXHAUSTIVE_MAX_CONFIGS = 16

/**
 * Two lanes: the split with the cheapest costlier lane, where the greedy one is not already it.
 * Greedy is poor with few configurations and a reading lane: for zstd 1..3 x none/finalize it left
 * the reading lane 0.5 units above the other, where every setting without a dictionary on the
 * reading lane balances them (measured: 9.2 s against 7.7 s of CPU, greedy, under load).
 */
function improveTwoLanes(groups: { cost: number; sampling: boolean; items: RecompressConfig[]; reads: boolean }[], shared: boolean): void {
  const all = units(groups.flatMap((g) => g.items))
  if (all.length > EXHAUSTIVE_MAX_CONFIGS) return
  // Shared: the reading lane's reading and sampling, whatever the split; else each lane samples for its own.
  const base = groups.map((g) => (g.reads ? g.cost - groupCost(g.items) : 0))
  const costOf = (items: RecompressConfig[], lane: number) => base[lane] + groupCost(items) + (!shared && items.some(buildsFromSamples) ? SAMPLING_COST : 0)
  let best = { worst: Math.max(groups[0].cost, groups[1].cost), total: groups[0].cost + groups[1].cost }
  let bestMask = -1
  for (let mask = 0; mask < 1 << all.length; mask++) {
    const lanes: RecompressConfig[][] = [[], []]
    for (const [k, u] of all.entries()) lanes[(mask >> k) & 1].push(...u)
    const a = costOf(lanes[0], 0)
    const b = costOf(lanes[1], 1)
    const worst = Math.max(a, b)
    // Strictly better only (by more than rounding), then less in all (sampling once): else greedy's, with its tie rules.
    if (worst < best.worst - 1e-9 || (worst < best.worst + 1e-9 && a + b < best.total - 1e-9)) {
      best = { worst, total: a + b }
      bestMask = mask
    }
  }
  if (bestMask < 0) return
  groups.forEach((g, lane) => {
    g.items = all.filter((_, k) => ((bestMask >> k) & 1) === lane).flat()
    g.cost = costOf(g.items, lane)
    g.sampling = g.reads || g.items.some(buildsFromSamples)
  })
}
