/**
 * The advise engine over resolved inputs: the first pass over the files (population.ts), then the
 * sampling rounds (rounds.ts). A small database answers at once, on a smaller matrix.
 */
import { statSync } from 'node:fs'
import type { Advice, AdviceNote, SettingSpec } from '../types/advice.js'
import { AdvisePool } from './pool.js'
import { collectPhaseGarbage, reapplyGrowthFactor } from '../util/garbage.js'
import { type GroupInput, MIN_FILES_READ, readPopulation } from './population.js'
import { defaultSettings, smallDatabaseSettings } from '../decide/settings.js'
import { type AdviseOptions, levelsBudgetMs } from './engine-options.js'
import { threadsFor } from './round-tasks.js'
import { advisePopulation } from './rounds.js'

/** The first pass (the files' indexes and dictionary framing) ends at this share of the time budget at the latest. */
const FIRST_PASS_SHARE = 0.15

/** A database whose live files hold fewer bytes than this is small: it answers within SMALL_DATABASE_BUDGET_MS. */
export const SMALL_DATABASE_BYTES = 10 << 20
/** A small database's time budget (from the process's start; the rest of 2 s is the report and the exit). */
const SMALL_DATABASE_BUDGET_MS = 1800

/**
 * A small database answers at once (`smallAtOnce`: no --time-budget given) when its matrix is the
 * default one: its time budget is SMALL_DATABASE_BUDGET_MS and, unless --objective size, its matrix the
 * small database's (settings.ts). Null: not small, or not asked.
 */
function forSmallDatabase(inputs: GroupInput[], opts: AdviseOptions): { opts: AdviseOptions; note: AdviceNote } | null {
  const labels = (xs: SettingSpec[]) => xs.map((s) => s.label).join(',')
  // Asked for (no --time-budget), with the default matrix (no --types): a matrix of one's own gets the budget.
  if (!opts.smallAtOnce || opts.fixedRate !== null || labels(opts.settings) !== labels(defaultSettings())) return null
  const bytes = liveBytes(inputs)
  if (bytes >= SMALL_DATABASE_BYTES) return null
  const narrowed = opts.objective !== 'size'
  const budget = Math.min(opts.timeBudgetMs, SMALL_DATABASE_BUDGET_MS)
  const note: AdviceNote = { code: 'small-database', bytes, limitBytes: SMALL_DATABASE_BYTES, timeBudgetMs: budget, narrowed }
  // One thread: starting a worker costs more than it would save on a few megabytes.
  return { opts: { ...opts, settings: narrowed ? smallDatabaseSettings() : opts.settings, timeBudgetMs: budget, jobs: 1, smallDatabase: true }, note }
}

/** The bytes of the inputs' live files. */
export function liveBytes(inputs: GroupInput[]): number {
  let bytes = 0
  for (const g of inputs) for (const f of g.files) bytes += f.size ?? sizeOnDisk(f.path)
  return bytes
}

/** The time budget a small database answers within (forSmallDatabase), ms; null when it is not answered at once. */
export function smallDatabaseBudgetMs(inputs: GroupInput[], opts: AdviseOptions): number | null {
  return forSmallDatabase(inputs, opts)?.opts.timeBudgetMs ?? null
}

function sizeOnDisk(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

export async function adviseGroups(inputs: GroupInput[], given: AdviseOptions): Promise<Advice> {
  const small = forSmallDatabase(inputs, given)
  const opts = small?.opts ?? given
  const advice = await adviseWithin(inputs, opts)
  if (small) {
    advice.notes.push(small.note)
    // The budget asked for, as given: the small database's own is in the note.
    advice.timeBudgetSec = given.timeBudgetMs / 1000
  }
  return advice
}

async function adviseWithin(inputs: GroupInput[], opts: AdviseOptions): Promise<Advice> {
  const clock = opts.clock ?? (() => performance.now())
  const started = opts.startedAt ?? clock()

  // Population: the first files of each level in size-proportional order (files outside this shard included, so every
  // shard sees the same levels), within FIRST_PASS_SHARE of the budget; more are read later where the spread between
  // files asks for them. A fixed sample (shards) reads every file, so that shards add up.
  const usesDictionaries = opts.settings.some((s) => s.dict !== 'none')
  const fixed = opts.fixedRate !== null
  // What the start left (the MANIFEST replayed, the info LOG read) goes before the workers add their memory.
  collectPhaseGarbage()
  // The worker threads start now, so that they load while this thread reads the first files.
  const pool = new AdvisePool(threadsFor(opts.settings, opts.jobs).lanes)
  let population: ReturnType<typeof readPopulation>
  try {
    population = readPopulation(inputs, {
      dict: usesDictionaries ? opts.dict : null,
      seed: opts.seed,
      deadline: fixed ? Number.POSITIVE_INFINITY : started + FIRST_PASS_SHARE * levelsBudgetMs(opts),
      clock,
      filesPerLevel: fixed ? Number.POSITIVE_INFINITY : MIN_FILES_READ,
    })
  } catch (e) {
    await pool.close()
    throw e
  }
  // The workers' start put V8's flags back while this thread read: its young generation is kept small again.
  reapplyGrowthFactor()
  collectPhaseGarbage()
  return advisePopulation(population, opts, started, pool)
}
