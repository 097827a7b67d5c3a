import type { Choice, SettingEstimate, SettingSpec } from '../types/advice.js'
import { cpuComparison, pct } from './rule.js'

/**
 * `--max-bytes`: a limit on the projected total, met at the least compression
 * CPU. A level's CPU is its setting's s/GB times the level's uncompressed GB,
 * so the bytes are saved where they cost least (usually the bottommost level,
 * which holds most of them). The levels are coupled only through the total:
 * the choice is exact, over every combination, kept small by dropping any
 * partial combination that another beats on both bytes and CPU (a Pareto
 * front per column family, then across them). Levels of one column family
 * that are not the bottommost share compression_opts, so each family's front
 * is the union over the settings that could carry them.
 */
export interface BudgetLevel {
  /** Levels with the same family and `sharesOpts` must agree on compression_opts. */
  family: string
  sharesOpts: boolean
  /** The settings within the other limits, with the CPU figures decide() ranks on. */
  candidates: SettingEstimate[]
  /** Uncompressed GB of the level: what its s/GB figures are per. */
  inputGB: number
}

export interface BudgetResult {
  /** Per level, its candidate chosen. */
  picks: SettingEstimate[]
  met: boolean
  projected: number
}

/** A partial choice: some levels' settings, their bytes and CPU seconds. */
interface Combination {
  bytes: number
  cpu: number
  picks: (SettingEstimate | undefined)[]
}

/** Fronts are thinned beyond this many combinations (never reached with a few levels and the default matrix). */
const MAX_FRONT = 4096

/** The combinations no other beats on both bytes and CPU, fewest bytes first. */
function paretoFront(xs: Combination[]): Combination[] {
  const sorted = [...xs].sort((a, b) => a.bytes - b.bytes || a.cpu - b.cpu)
  const out: Combination[] = []
  for (const x of sorted) if (out.length === 0 || x.cpu < out[out.length - 1].cpu) out.push(x)
  if (out.length <= MAX_FRONT) return out
  const step = out.length / MAX_FRONT
  return out.filter((_, i) => i === 0 || i === out.length - 1 || Math.floor(i / step) !== Math.floor((i - 1) / step))
}

function combine(a: Combination[], b: Combination[]): Combination[] {
  const out: Combination[] = []
  for (const x of a) for (const y of b) out.push({ bytes: x.bytes + y.bytes, cpu: x.cpu + y.cpu, picks: x.picks.map((p, i) => p ?? y.picks[i]) })
  return paretoFront(out)
}

export function withinBytes(levels: BudgetLevel[], maxBytes: number, compatible: (s: SettingSpec, carrier: SettingSpec) => boolean): BudgetResult {
  const cpuOf = (l: BudgetLevel, x: SettingEstimate) => (x.setting.type === 'none' ? 0 : (x.compressSecPerGB.value ?? 0) * l.inputGB)
  const levelFront = (i: number, xs: SettingEstimate[]): Combination[] =>
    paretoFront(
      xs.map((x) => {
        const picks: (SettingEstimate | undefined)[] = new Array(levels.length).fill(undefined)
        picks[i] = x
        return { bytes: x.bytes.estimate, cpu: cpuOf(levels[i], x), picks }
      }),
    )
  const empty: Combination[] = [{ bytes: 0, cpu: 0, picks: new Array(levels.length).fill(undefined) }]
  let all = empty
  for (const family of new Set(levels.map((l) => l.family))) {
    const own = levels.flatMap((l, i) => (l.family === family && !l.sharesOpts ? [i] : []))
    const upper = levels.flatMap((l, i) => (l.family === family && l.sharesOpts ? [i] : []))
    let fronts = own.reduce((acc, i) => combine(acc, levelFront(i, levels[i].candidates)), empty)
    if (upper.length > 0) {
      const carriers = new Map(upper.flatMap((i) => levels[i].candidates.map((x) => [x.setting.label, x.setting] as const)))
      const shared: Combination[] = []
      for (const carrier of carriers.values()) {
        const options = upper.map((i) => levels[i].candidates.filter((x) => compatible(x.setting, carrier)))
        if (options.some((o) => o.length === 0)) continue
        shared.push(...upper.reduce((acc, i, k) => combine(acc, levelFront(i, options[k])), empty))
      }
      // No carrier suits every upper level (the other limits left them nothing in common): each takes its own.
      if (shared.length === 0) shared.push(...upper.reduce((acc, i) => combine(acc, levelFront(i, levels[i].candidates)), empty))
      fronts = combine(fronts, paretoFront(shared))
    }
    all = combine(all, fronts)
  }
  const fitting = all.filter((c) => c.bytes <= maxBytes)
  // The front is sorted by bytes with CPU falling: the last that fits needs the least CPU; the first is the smallest.
  const chosen = fitting.length > 0 ? fitting[fitting.length - 1] : all[0]
  const picks = chosen.picks.map((p, i) => p ?? levels[i].candidates[0])
  return { picks, met: fitting.length > 0, projected: chosen.bytes }
}

/** The recommendation and runner-up of one level under `--max-bytes`, from the allocation's pick. */
export function budgetChoice(
  candidates: SettingEstimate[],
  pick: SettingEstimate,
  met: boolean,
  describe: string,
): { recommended: Choice; runnerUp: Choice | null } {
  const cpu = (x: SettingEstimate) => (x.setting.type === 'none' ? 0 : (x.compressSecPerGB.value ?? 0))
  const cheapest = candidates.reduce((a, b) => (cpu(b) < cpu(a) || (cpu(b) === cpu(a) && b.bytes.estimate < a.bytes.estimate) ? b : a))
  const reason = !met
    ? `the smallest: no choice of settings fits ${describe}`
    : pick === cheapest
      ? `the cheapest to compress: the total fits ${describe}`
      : `least CPU for the total to fit ${describe}`
  // The runner-up: the next smaller setting (what squeezing this level further would cost), else the next cheaper.
  const smaller = candidates
    .filter((x) => x !== pick && x.bytes.estimate < pick.bytes.estimate)
    .sort((a, b) => b.bytes.estimate - a.bytes.estimate || cpu(a) - cpu(b))
  const cheaper = candidates.filter((x) => x !== pick && cpu(x) <= cpu(pick)).sort((a, b) => a.bytes.estimate - b.bytes.estimate)
  const other = smaller[0] ?? cheaper[0] ?? null
  if (!other) return { recommended: { estimate: pick, reason }, runnerUp: null }
  const bytes = other.bytes.estimate / pick.bytes.estimate - 1
  const ratio = cpuComparison(other, pick, null)
  return { recommended: { estimate: pick, reason }, runnerUp: { estimate: other, reason: `${bytes >= 0 ? '+' : '−'}${pct(Math.abs(bytes))} bytes${ratio}` } }
}
