/**
 * The advice assembled from every level's state: each level decided (level-advice.ts), the upper
 * levels brought under one compression_opts, the options per column family, the totals and the
 * notes. Both a run (rounds.ts) and a merge of shards (merge.ts) end here.
 */
import { budgetChoice, withinBytes } from '../decide/max-bytes.js'
import { MIN_GAIN, OBJECTIVES } from '../decide/rule.js'
import type { ExplicitLimits, Advice, AdviceNote, ColumnFamilyAdvice, LevelAdvice, SettingEstimate, SettingSpec } from '../types/advice.js'
import { type LevelChoice, needsOpts, optionsFor, optionsNeed, optionsText, sharesOpts } from '../db/compression-options.js'
import { bottommostOwnOpts, optionSince, supportedBy } from '../db/option-syntax.js'
import { Z95 } from '../util/quantiles.js'
import { attachCosts, DEFAULT_PRICES, NEGLIGIBLE_CORES } from '../decide/cost.js'
import type { AdviseOptions } from './engine-options.js'
import { type GroupState, sampled, scaleOf, todayOf } from './level-estimate.js'
import { levelAdvice, UNKNOWN_TYPE, withinOtherLimits, withNewerRelease } from './level-advice.js'
import { sameNote } from './notes.js'

export function assemble(states: GroupState[], opts: AdviseOptions, inherited: AdviceNote[]): Advice {
  const notes = [...inherited]
  const byFamily = new Map<string, GroupState[]>()
  for (const st of states) byFamily.set(st.group.columnFamily, [...(byFamily.get(st.group.columnFamily) ?? []), st])
  const families: ColumnFamilyAdvice[] = []
  let todayTotal = 0
  let projected = 0
  let variance = 0
  const budget = bytesBudget(states, opts)
  for (const [name, sts] of byFamily) {
    const version = opts.rocksdbVersion ?? null
    const parses = version ? (s: SettingSpec) => supportedBy(version, s) : () => true
    const levels: LevelAdvice[] = sts.map((st) => {
      const pick = budget?.picks.get(st)
      if (!pick) return withNewerRelease(levelAdvice(st, opts, version ? parses : null), st, opts)
      return levelAdvice(st, opts, null, () => budgetChoice(pick.candidates, pick.pick, budget!.met, budget!.describe))
    })
    // Upper levels share one compression_opts: the largest upper level whose choice needs them (a level, a dictionary,
    // a checksum) sets them; the others choose among settings that behave as evaluated under them.
    // (Under --max-bytes the allocation has chosen them sharing already.)
    // A level not sampled keeps today's setting whatever the others choose.
    // Before RocksDB 5.15 (no bottommost_compression_opts) the bottommost level shares them too.
    const ownBottom = bottommostOwnOpts(version)
    const upper = levels.filter((l) => (!l.bottommost || !ownBottom) && l.level !== null && l.dataBlocks > 0 && l.sample.stopped !== 'not-sampled')
    const needing = upper.filter((l) => needsOpts(l.recommended.estimate.setting))
    if (needing.length > 0 && !budget) {
      const lead = needing.reduce((a, b) => (b.dataBytes > a.dataBytes ? b : a))
      // Each upper level under `carrier`'s compression_opts: its own choice where that shares them, else re-decided among
      // the settings that do (`from`: the level whose setting carries them, kept as chosen).
      const under = (carrier: SettingSpec, from: LevelAdvice) =>
        upper.map((l) => {
          if (l === from || sharesOpts(l.recommended.estimate.setting, carrier)) return l
          const at = levels.indexOf(l)
          const fixed = withNewerRelease(
            levelAdvice(sts[at], opts, (s) => parses(s) && sharesOpts(s, carrier)),
            sts[at],
            opts,
            l.bottommost ? optionSince('bottommost_compression_opts') : null,
          )
          fixed.recommended.reason += ` (shares compression_opts with L${from.level})`
          return fixed
        })
      let shared = under(lead.recommended.estimate.setting, lead)
      // No change without a gain: a level the lead's options would change (its today's setting does not behave as
      // evaluated under them) for less than MIN_GAIN keeps today's instead, and today's options are the shared ones.
      const loser = shared.find(
        (l, k) =>
          l !== upper[k] &&
          l.today !== null &&
          !sharesOpts(l.today.setting, lead.recommended.estimate.setting) &&
          l.recommended.estimate.bytes.estimate > l.today.bytes.estimate * (1 - MIN_GAIN),
      )
      if (loser?.today) {
        const original = upper[shared.indexOf(loser)]
        const keep = sharesOpts(original.recommended.estimate.setting, loser.today.setting) ? original : null
        if (keep) shared = under(loser.today.setting, keep)
      }
      shared.forEach((l, k) => {
        levels[levels.indexOf(upper[k])] = l
      })
    }
    const choices: LevelChoice[] = levels
      .filter((l) => l.level !== null && l.dataBlocks > 0)
      .map((l) => ({ level: l.level!, bottommost: l.bottommost, setting: l.recommended.estimate.setting }))
    const single = levels.length === 1 && levels[0].level === null ? levels[0].recommended.estimate.setting : null
    // compression_per_level under dynamic level bytes: entry 0 is L0's, entry 1 the base level's (RocksDB's GetCompressionType).
    const dataLevels = choices.filter((c) => c.level > 0).map((c) => c.level)
    const baseLevel = opts.dynamicLevels?.get(name) ? (opts.baseLevels?.get(name) ?? (dataLevels.length ? Math.min(...dataLevels) : 1)) : null
    // A level neither sampled nor known today (no OPTIONS, no compression property): no option can be written for it.
    const unknown = levels.filter((l) => l.recommended.estimate.setting.type === UNKNOWN_TYPE)
    const options = unknown.length
      ? {}
      : optionsFor(
          {
            columnFamily: name,
            levels: single ? null : choices,
            single,
            dynamicLevels: baseLevel === null ? null : { baseLevel },
            today: opts.todayCompression?.get(name) ?? null,
          },
          opts.dict,
          version,
        )
    const onlyBottom = choices.length > 0 && choices.every((c) => c.bottommost)
    if (onlyBottom && !unknown.length && options.compression === undefined && options.compression_per_level === undefined)
      notes.push({ code: 'only-bottommost-level', columnFamily: name, level: choices[0].level })
    if (unknown.length) notes.push({ code: 'options-not-printed', columnFamily: name, levels: unknown.map((l) => l.level) })
    families.push({
      name,
      dynamicLevels: opts.dynamicLevels?.get(name) ?? false,
      baseLevel,
      levels,
      options,
      optionsText: unknown.length ? '' : optionsText(name, options),
      optionsNeed: optionsNeed(options),
    })
    for (const l of levels) {
      if (l.dataBlocks === 0) continue
      todayTotal += todayOf(sts[levels.indexOf(l)])
      const b = l.recommended.estimate.bytes
      projected += b.estimate
      const half = (b.high - b.low) / 2 / Z95
      variance += half * half
    }
  }
  const half = Z95 * Math.sqrt(variance)
  const total = {
    todayBytes: todayTotal,
    projected: { estimate: projected, low: projected - half, high: projected + half },
    change:
      todayTotal > 0
        ? { estimate: projected / todayTotal - 1, low: (projected - half) / todayTotal - 1, high: (projected + half) / todayTotal - 1 }
        : { estimate: 0, low: 0, high: 0 },
    maxBytes: budget ? { bytes: budget.maxBytes, met: budget.met } : null,
  }
  // Once each: a merge of shards inherits the notes this adds.
  const add = (n: AdviceNote) => {
    if (!notes.some((m) => sameNote(m, n))) notes.push(n)
  }
  if (states.some((s) => s.group.level === null)) add({ code: 'no-manifest' })
  const workload = opts.workload ? { ...opts.workload, prices: opts.objective === 'cost' && !opts.limits ? (opts.prices ?? DEFAULT_PRICES) : null } : null
  attachCosts(families, workload)
  if (opts.workload) {
    add(opts.workload.note)
    if (opts.workload.measured) add(opts.workload.readsNote)
    if (opts.objective === 'balanced' && !opts.limits && opts.workload.measured) add({ code: 'balanced-write-weighted', negligibleCores: NEGLIGIBLE_CORES })
    if (opts.objective === 'cost' && !opts.limits && !opts.workload.measured) add({ code: 'cost-without-workload' })
  }
  // Only where a compression_per_level is printed: without one, the base level changes nothing.
  if (families.some((f) => f.dynamicLevels && f.options.compression_per_level !== undefined)) add({ code: 'dynamic-level-bytes' })
  return {
    version: 1,
    source: opts.source,
    objective: {
      name: opts.limits ? 'limits' : opts.objective,
      description: opts.limits ? 'explicit limits' : OBJECTIVES[opts.objective],
      limits: {
        ...(opts.limits ?? {}),
        ...(opts.objective === 'cost' && !opts.limits ? { ...(opts.prices ?? DEFAULT_PRICES) } : {}),
      } as Record<string, number>,
    },
    seed: opts.seed,
    evaluation: { ...opts.dict, maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb, sampleRate: opts.fixedRate },
    precision: opts.precision,
    timeBudgetSec: opts.timeBudgetMs / 1000,
    elapsedSec: 0,
    shard: opts.shard,
    columnFamilies: families,
    total,
    notes,
    ...(workload ? { workload } : {}),
    problems: [],
  }
}

/** `--max-bytes` in bytes, from the limit as given (bytes, or a share of today's total). */
function maxBytesOf(limits: ExplicitLimits | null, todayTotal: number): number | null {
  if (limits?.maxBytes !== undefined) return limits.maxBytes
  if (limits?.maxBytesShare !== undefined) return limits.maxBytesShare * todayTotal
  return null
}

/**
 * Under `--max-bytes`: every level's setting, chosen together so that the
 * projected total fits at the least compression CPU (decide.ts withinBytes).
 */
function bytesBudget(
  states: GroupState[],
  opts: AdviseOptions,
): { picks: Map<GroupState, { pick: SettingEstimate; candidates: SettingEstimate[] }>; met: boolean; maxBytes: number; describe: string } | null {
  const withData = states.filter((st) => st.totals.dataBlocks > 0)
  const today = withData.reduce((a, st) => a + todayOf(st), 0)
  const maxBytes = maxBytesOf(opts.limits, today)
  // A level without an estimate (the time budget ended before it was sampled) keeps today's bytes, and says so.
  const advised = withData.filter((st) => sampled(st) && withinOtherLimits(st, opts).length > 0)
  if (maxBytes === null || advised.length === 0) return null
  const kept = withData.filter((st) => !advised.includes(st)).reduce((a, st) => a + todayOf(st), 0)
  const levels = advised.map((st) => {
    const candidates = withinOtherLimits(st, opts)
    const s0 = st.sums[0]
    const uncompressed = s0.sumS + s0.certainS > 0 ? (s0.sumU / (s0.sumS + s0.certainS)) * st.totals.dataBytes * scaleOf(st) : 0
    return {
      family: st.group.columnFamily,
      sharesOpts: (!st.group.bottommost || !bottommostOwnOpts(opts.rocksdbVersion ?? null)) && st.group.level !== null,
      candidates,
      inputGB: uncompressed / 1e9,
    }
  })
  const result = withinBytes(levels, maxBytes - kept, sharesOpts)
  const share = `${Number(((maxBytes / today) * 100).toFixed(1))}% of today's total`
  const describe = `--max-bytes (${share})`
  return {
    picks: new Map(advised.map((st, i) => [st, { pick: result.picks[i], candidates: levels[i].candidates }])),
    met: result.met,
    maxBytes,
    describe,
  }
}
