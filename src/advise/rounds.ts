/**
 * The sampling rounds and the time budget. Per (column family, level) the engine samples data blocks
 * at a rate p that grows round by round (samples are nested, see sampling.ts) until every setting's
 * 95% interval is within ±precision, every block has been read, or the time budget is spent; the
 * level with the widest interval in bytes goes next. Each round's files are evaluated in worker lanes
 * (pool.ts), each lane a share of the settings, so results do not depend on --jobs.
 */
import { rateFor } from '../decide/estimate.js'
import type { Advice, AdviceNote } from '../types/advice.js'
import { AdvisePool } from './pool.js'
import { collectHeapGarbage } from '../util/garbage.js'
import { type LevelGroup, levelTotals, MIN_FILES_READ, MIN_SPREAD_FILES, readFile, type readPopulation } from './population.js'
import { inShard, roundRate } from './sampling.js'
import { firstRoundShare, leastFirstRoundMs, planFirstRound, priorBlockMs, priorFileMs, unitCosts, type UnitCosts } from './plan.js'
import { type AdviseOptions, levelsBudgetMs } from './engine-options.js'
import { type GroupState, initState, label, levelDiskBytes, sampled, widest, widestBytes } from './level-estimate.js'
import { buildDictionaries, noisyCount, retime, type Run, runRound, TIMING_MEASUREMENT_MS, TIMING_PASSES, TIMING_RATES, threadsFor } from './round-tasks.js'
import { assemble } from './assemble.js'

/** Levels with at most this many blocks are evaluated whole. */
const SMALL_LEVEL_BLOCKS = 256

/** Sampling rounds start only before this share of the time budget (the rest: timing passes, the report, the process's start and end). */
const SAMPLING_END = 0.85

/** Timing passes start only before this share of the time budget. */
const TIMING_END = 0.93

/** Under --sample (no time budget), timing again takes at most this share of the time sampling took. */
const FIXED_SAMPLE_TIMING_SHARE = 0.1

/** Under a time budget, timing again takes at most this share of the time the run took until then. */
const RETIME_SHARE = 0.25

/** The fewest blocks a level's estimate rests on (the normal interval needs them). */
const MIN_SAMPLE_BLOCKS = 128

/** First round: about this many blocks per level. */
const FIRST_ROUND_BLOCKS = 256

/** The next rate aims a little inside the target so one more round usually suffices. */
const AIM = 0.85

/** The first blocks a run evaluates (its first round's share, at most so many blocks): their cost plans the rest. */
const PROBE_SHARE = 0.25

const PROBE_BLOCKS = 16

/** Uncompressed over stored bytes assumed for a block before any was decompressed (for the priors of plan.ts). */
const PRIOR_RATIO = 3

/** A level's first round may run past the end of sampling by this share of the budget (into the timing passes' time). */
const BUDGET_SLACK = 0.05

/** A round plans to spend at most this share of the sampling time left. */
const ROUND_SHARE = 0.7

/** The margin of the budget a not-sampled note suggests over what the first rounds took per level. */
const REACH_MARGIN = 1.25

/** A level's least first round at the costs planned on now (plan.ts). */
function leastFirstRound(st: GroupState, run: Run): number {
  return leastFirstRoundMs({
    filesRead: st.group.files.length,
    filesPending: st.group.pending.length,
    dataBlocks: st.totals.dataBlocks,
    minFiles: MIN_FILES_READ,
    minBlocks: MIN_SAMPLE_BLOCKS,
    costs: costsOf(st, run),
  })
}

/** What a block and a file of this level are expected to cost: measured (the level's own blocks first), else priors. */
function costsOf(st: GroupState, run: Run): UnitCosts {
  const { dict } = run.opts
  const files = st.group.files
  const meanFile = files.length > 0 ? st.totals.fileBytes / files.length : 0
  const buffered = dict.maxDictBufferBytes > 0 ? Math.min(meanFile, dict.maxDictBufferBytes) : meanFile
  const perBlockStored = st.totals.dataBlocks > 0 ? st.totals.dataBytes / st.totals.dataBlocks : 4096
  const prior = {
    blockMs: priorBlockMs(st.settings, perBlockStored * PRIOR_RATIO, run.lanes),
    fileMs: priorFileMs(st.settings, buffered),
  }
  const units = unitCosts(run.costs, prior)
  return { blockMs: st.msPerBlock ?? units.blockMs, fileMs: units.fileMs }
}

/**
 * The engine after the first pass: sampling rounds (first every level that
 * holds data, largest first, each within its share of the time left; then the
 * level furthest from the precision asked for, with more blocks or, where the
 * spread between files dominates, more files), the timing passes, and the
 * decision. `started` is when the run began on `opts.clock`, so the first pass
 * counts against the time budget.
 */
export async function advisePopulation(
  { groups, problems }: ReturnType<typeof readPopulation>,
  opts: AdviseOptions,
  started: number,
  given?: AdvisePool,
): Promise<Advice> {
  const clock = opts.clock ?? (() => performance.now())
  const elapsed = () => clock() - started
  const notes: AdviceNote[] = []
  const states = groups.filter((g) => g.files.length + g.pending.length > 0).map((g) => initState(g, opts.settings, opts))
  let position = 0
  for (const st of states) st.mine = st.group.files.map(() => inShard(opts.shard, position++))

  const { jobs, lanes } = threadsFor(states[0]?.settings ?? opts.settings, opts.jobs)
  const pool = given ?? new AdvisePool(lanes)
  const run: Run = {
    opts,
    pool,
    jobs,
    lanes,
    problems,
    clock,
    costs: { blockMs: 0, blocks: 0, fileMs: 0, files: 0, retainedDictBytes: 0 },
  }
  let budgetHit = false
  const fixed = opts.fixedRate !== null
  const budgetMs = levelsBudgetMs(opts)
  const samplingEnd = budgetMs * SAMPLING_END
  // When sampling began and how many levels' first rounds sampled: the budget that would reach every level (the not-sampled note).
  const firstRounds = { from: elapsed(), sampled: 0 }
  try {
    for (;;) {
      // Planning a round walks every file read of its level: dead arrays V8 would let pile up on many files.
      collectHeapGarbage()
      const open = states.filter((s) => s.done === null)
      if (open.length === 0) break
      // Every level that holds data gets its first round before any level gets a second: the largest first.
      const first = open.filter((s) => s.rate === 0)
      // A small database's levels get theirs whatever the clock: a few megabytes bound their cost, and an answer
      // without evidence is no answer.
      const evidenceFirst = opts.smallDatabase === true && first.length > 0
      if (elapsed() >= samplingEnd && !fixed && !evidenceFirst) {
        for (const s of open) s.done = 'time-budget'
        budgetHit = true
        break
      }
      if (first.length > 0) {
        const pick = first.reduce((a, b) => (levelDiskBytes(b) > levelDiskBytes(a) ? b : a))
        const share = fixed
          ? Number.POSITIVE_INFINITY
          : firstRoundShare(
              Math.max(0, samplingEnd - elapsed()),
              [pick, ...first.filter((s) => s !== pick)].map((s) => leastFirstRound(s, run)),
            )
        const left = fixed || evidenceFirst ? Number.POSITIVE_INFINITY : samplingEnd - elapsed() + BUDGET_SLACK * budgetMs
        if (!(await firstRound(pick, run, share, left))) {
          pick.done = 'time-budget'
          budgetHit = true
        } else firstRounds.sampled++
      } else {
        // The level whose interval is widest in bytes goes next: what narrows the total most.
        const pick = open.reduce((a, b) => (widestBytes(b) > widestBytes(a) ? b : a))
        const grew = wantsFiles(pick) ? await admitMore(pick, run, samplingEnd - elapsed()) : await moreBlocks(pick, run, samplingEnd - elapsed())
        if (!grew) {
          pick.done = 'time-budget'
          budgetHit = true
        }
      }
    }
    // Timings: settings whose speed is still noisy are timed again on the sampled blocks, while time remains.
    // A fixed sample (--sample) has no time budget: timing again takes at most a tenth of the time sampling took.
    // Under a budget, timing again also takes at most RETIME_SHARE of the time so far: a database sampled in a second
    // (a small one) is not kept for the budget's timing passes; its noisy settings are ranked on reference speeds.
    const timingEnd = opts.fixedRate === null ? Math.min(budgetMs * TIMING_END, elapsed() * (1 + RETIME_SHARE)) : elapsed() * (1 + FIXED_SAMPLE_TIMING_SHARE)
    const retimed = new Set(states.filter((st) => sampled(st)))
    let msPerRetimed = 0
    retiming: for (let pass = 0; pass < TIMING_PASSES && retimed.size > 0; pass++) {
      for (const st of [...retimed]) {
        if (elapsed() >= timingEnd && !fixed) break retiming
        // A level whose noisy settings did not get fewer is not timed again: the machine, not the sample, is the noise.
        const before = noisyCount(st)
        // A pass measures each noisy setting TIMING_RATES times for about TIMING_MEASUREMENT_MS, across the lanes;
        // once a pass was timed, at what that one took per setting (a loaded machine takes longer than planned).
        const planned = (before * TIMING_RATES * TIMING_MEASUREMENT_MS * 1.5) / lanes
        // Before any pass was timed, twice the plan: a loaded machine's first pass took up to that.
        const passMs = msPerRetimed > 0 ? Math.max(planned, msPerRetimed * before) : 2 * planned
        if (!fixed && elapsed() + passMs >= timingEnd) {
          retimed.delete(st)
          continue
        }
        const t0 = clock()
        const timed = before > 0 && (await retime(st, run))
        if (timed) msPerRetimed = Math.max(msPerRetimed, (clock() - t0) / before)
        if (!timed || noisyCount(st) >= before) retimed.delete(st)
      }
    }
  } finally {
    await pool.close()
  }
  const unread = states.filter((st) => st.group.unread.files > 0).map((st) => st.group)
  if (unread.length > 0) notes.push(unreadNote(unread))
  if (budgetHit) notes.push({ code: 'time-budget-ended', timeBudgetMs: opts.timeBudgetMs, precision: opts.precision })
  const missing = states.filter((st) => !sampled(st))
  if (missing.length > 0)
    notes.push({
      code: 'levels-not-sampled',
      levels: missing.map((st) => ({ columnFamily: st.group.columnFamily, level: st.group.level })),
      budgetMs: reachingBudget(
        firstRounds,
        states.reduce((a, st) => a + leastFirstRound(st, run), 0),
        1 - (opts.keptShare ?? 0),
      ),
    })

  const advice = assemble(states, opts, notes)
  advice.problems = problems
  advice.elapsedSec = elapsed() / 1000
  return advice
}

/**
 * The --time-budget, ms, that would sample every level (the not-sampled note's): every level's least first
 * round at the costs the run measured, with a margin; null when no level was sampled (nothing measured).
 */
function reachingBudget(firstRounds: { from: number; sampled: number }, leastMs: number, levelsShare: number): number | null {
  if (firstRounds.sampled === 0) return null
  const ms = (firstRounds.from + leastMs * REACH_MARGIN) / SAMPLING_END / levelsShare
  const step = ms < 10_000 ? 1000 : 5000
  return Math.ceil(ms / step) * step
}

/** Files read in their size-proportional draw (not small ones read early: population.ts smallEarly). */
function largeRead(st: GroupState): number {
  return st.group.files.filter((f) => !f.small).length
}

/** More files rather than more blocks: too few files for their spread, the spread between files is at least half the level's variance, or no block is left. */
function wantsFiles(st: GroupState): boolean {
  if (st.group.pending.length === 0) return false
  if (st.rate >= 1 || largeRead(st) < MIN_SPREAD_FILES) return true
  const total = widest(st)
  const within = widest(st, true)
  return within * within <= 0.5 * total * total
}

/**
 * A level's first round: its files read so far (as many as its share of the
 * time affords, at least MIN_FILES_READ), their dictionaries, and about
 * FIRST_ROUND_BLOCKS blocks. False when nothing could be sampled.
 */
async function firstRound(st: GroupState, run: Run, shareMs: number, leftMs: number): Promise<boolean> {
  const { opts } = run
  const costs = costsOf(st, run)
  if (st.totals.dataBlocks === 0 && st.group.pending.length > 0) {
    if (Number.isFinite(leftMs) && costs.fileMs * MIN_FILES_READ > leftMs) return false
    if (!(await admitMore(st, run, shareMs))) return false
    return st.blocks > 0
  }
  const wanted = nextRate(st, opts, 0, Number.POSITIVE_INFINITY)
  if (wanted === null) return false
  // As many files and blocks as the level's share of the time affords (plan.ts); none when the fewest do not fit.
  const plan = planFirstRound({
    filesRead: st.group.files.length,
    minFiles: MIN_FILES_READ,
    dataBlocks: st.totals.dataBlocks,
    wantBlocks: Math.ceil(wanted * st.totals.dataBlocks),
    minBlocks: MIN_SAMPLE_BLOCKS,
    shareMs: opts.fixedRate !== null ? Number.POSITIVE_INFINITY : shareMs,
    leftMs,
    costs,
  })
  if (plan === null) return false
  if (plan.files < st.group.files.length) giveBack(st, st.group.files.length - plan.files)
  const rate = plan.blocks >= st.totals.dataBlocks ? 1 : roundRate(Math.min(wanted, plan.blocks / Math.max(1, st.totals.dataBlocks)))
  // A batch of files at a time (one per lane): when what the run measured says the next batch does not fit in the time
  // left, the files not yet sampled go back to pending (estimated from those sampled): no prior, however wrong, breaks
  // the budget by more than one batch.
  const started = run.clock()
  // The level's own time: its share (or what its fewest blocks were planned to cost, if more), never the whole of the
  // time left: the levels after it get theirs.
  const roomMs = Math.min(leftMs, Number.isFinite(shareMs) ? Math.max(shareMs, plan.ms) : leftMs)
  const batch = opts.fixedRate !== null ? Number.POSITIVE_INFINITY : Math.max(1, run.lanes)
  for (let from = 0; from < st.group.files.length; ) {
    const indices = st.group.files.map((_, fi) => fi).slice(from, from + batch)
    const t0 = run.clock()
    await buildDictionaries(st, run, indices)
    noteFileCost(run, st, indices.length, run.clock() - t0)
    if (run.costs.blocks === 0 && Number.isFinite(leftMs)) {
      // Nothing measured yet: a probe of the blocks first (the samples are nested), then what the time left affords.
      const batchBlocks = (st.totals.dataBlocks * indices.length) / st.group.files.length
      const probe = Math.min(rate * PROBE_SHARE, PROBE_BLOCKS / Math.max(1, batchBlocks))
      await runRound(st, 0, probe, run, indices)
      const perBlock = costsOf(st, run).blockMs
      // Aimed inside the time left: how many blocks a draw range holds is itself random.
      const affordable = (AIM * (roomMs - (run.clock() - started))) / perBlock
      const upTo = Math.min(rate, probe + affordable / Math.max(1, batchBlocks))
      if (upTo > probe) await runRound(st, probe, upTo, run, indices)
      if (upTo < rate) {
        giveBack(st, st.group.files.length - indices.length)
        break
      }
    } else await runRound(st, 0, rate, run, indices)
    from += indices.length
    const left = st.group.files.length - from
    if (left === 0 || !Number.isFinite(leftMs)) continue
    const now = costsOf(st, run)
    const next = Math.min(batch, left)
    const blocksNext = (st.totals.dataBlocks / st.group.files.length) * next * rate
    if (run.clock() - started + next * now.fileMs + blocksNext * now.blockMs > roomMs) giveBack(st, left)
  }
  afterRound(st, opts)
  return true
}

/** Put the last `n` files read back to pending (before any of their blocks is sampled). */
function giveBack(st: GroupState, n: number): void {
  const back = st.group.files.splice(st.group.files.length - n, n)
  st.mine.splice(st.mine.length - n, n)
  st.group.pending.unshift(...back.map((f) => ({ path: f.path, fileNumber: f.fileNumber, size: f.fileSize })))
  refreshTotals(st)
}

function refreshTotals(st: GroupState): void {
  st.group.unread = { files: st.group.pending.length, fileBytes: st.group.pending.reduce((a, f) => a + (f.size ?? 0), 0) }
  st.totals = levelTotals(st.group)
}

/** A file's cost is its dictionaries': without any, reading it is part of its blocks' cost. */
function noteFileCost(run: Run, st: GroupState, files: number, ms: number): void {
  if (!st.settings.some((s) => s.dict !== 'none')) return
  run.costs.files += files
  run.costs.fileMs += ms
}

function afterRound(st: GroupState, opts: AdviseOptions): void {
  if (st.rate >= 1 && st.group.pending.length === 0) st.done = 'all-blocks'
  else if (opts.fixedRate !== null) st.done = st.rate >= 1 ? 'all-blocks' : 'fixed-sample'
  else if (sampled(st) && widest(st) <= opts.precision && (st.group.pending.length === 0 || largeRead(st) >= MIN_SPREAD_FILES)) st.done = 'precision'
  opts.onProgress?.(
    `${label(st.group)}: ${st.blocks} blocks sampled (${(st.rate * 100).toFixed(1)}%) in ${st.group.files.length} of ${st.group.files.length + st.group.pending.length} files`,
  )
}

/** Read more of a level's files (doubling those read, as the time left affords) and sample them at the level's rate. */
async function admitMore(st: GroupState, run: Run, leftMs: number): Promise<boolean> {
  const { fileMs: perFile, blockMs: perBlock } = costsOf(st, run)
  const blocksPerFile = st.group.files.length > 0 ? st.totals.dataBlocks / st.group.files.length : 64
  const rate = st.rate > 0 ? st.rate : Math.min(1, FIRST_ROUND_BLOCKS / Math.max(1, blocksPerFile * MIN_FILES_READ))
  const each = perFile + blocksPerFile * rate * perBlock
  let n = Math.min(st.group.pending.length, Math.max(MIN_FILES_READ, st.group.files.length))
  if (each > 0 && Number.isFinite(leftMs)) n = Math.min(n, Math.floor((leftMs * 0.8) / each))
  if (n < 1) return false
  const t0 = run.clock()
  const taken = st.group.pending.splice(0, n)
  const added: number[] = []
  const usesDictionaries = st.settings.some((s) => s.dict !== 'none')
  for (const f of taken) {
    const file = readFile(f, usesDictionaries ? run.opts.dict : null, st.group.optionsSetting, run.problems, st.group.targetFileSize)
    if (!file) continue
    st.group.files.push(file)
    st.mine.push(true)
    added.push(st.group.files.length - 1)
  }
  refreshTotals(st)
  await buildDictionaries(st, run, added)
  noteFileCost(run, st, taken.length, run.clock() - t0)
  await runRound(st, 0, rate, run, added)
  st.rate = rate
  afterRound(st, run.opts)
  return true
}

/** Raise a level's sampling rate over the files read. */
async function moreBlocks(st: GroupState, run: Run, leftMs: number): Promise<boolean> {
  const next = nextRate(st, run.opts, 0, leftMs, costsOf(st, run).blockMs)
  if (next === null) return false
  await runRound(
    st,
    st.rate,
    next,
    run,
    st.group.files.map((_, fi) => fi),
  )
  afterRound(st, run.opts)
  return true
}

/** The levels whose files were not all read, and what that means for their estimates. */
function unreadNote(groups: LevelGroup[]): AdviceNote {
  const files = groups.reduce((a, g) => a + g.unread.files, 0)
  const all = groups.reduce((a, g) => a + g.unread.files + g.files.length, 0)
  const levels = groups.map((g) => ({ columnFamily: g.columnFamily, level: g.level, read: g.files.length, files: g.files.length + g.unread.files }))
  return { code: 'files-sampled', read: all - files, files: all, levels }
}

/** The next sampling rate for a level, or null when the time left (`budgetMs − spentMs`) leaves no room for another round. */
function nextRate(st: GroupState, opts: AdviseOptions, spentMs: number, budgetMs: number, perBlock: number | null = st.msPerBlock): number | null {
  const n = st.totals.dataBlocks
  if (n === 0) return null
  // A level this small is evaluated whole, and no level is estimated from fewer than MIN_SAMPLE_BLOCKS.
  if (opts.fixedRate !== null) return n <= SMALL_LEVEL_BLOCKS ? 1 : Math.min(1, Math.max(opts.fixedRate, MIN_SAMPLE_BLOCKS / n))
  if (st.rate === 0) return n <= SMALL_LEVEL_BLOCKS ? 1 : roundRate(Math.min(1, FIRST_ROUND_BLOCKS / n))
  if (st.rate >= 1) return null
  const w = widest(st, true)
  let rate = rateFor(w, st.rate, opts.precision * AIM)
  rate = Math.min(1, Math.max(rate, st.rate * 1.5), st.rate * 8)
  if (rate * n - st.rate * n < 16) rate = Math.min(1, st.rate + 16 / n)
  // Most of the level: all of it, when the budget affords it (below), so that its totals are exact.
  rate = roundRate(rate)
  if (perBlock !== null) {
    // One round spends at most ROUND_SHARE of the time left: a round's cost per block is a measurement, not a promise.
    const affordable = (ROUND_SHARE * (budgetMs - spentMs)) / perBlock
    if (affordable < 8) return null
    rate = Math.min(rate, st.rate + affordable / n)
  }
  return rate
}
