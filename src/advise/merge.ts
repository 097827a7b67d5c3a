/** `--merge`: the JSON of `--shard K/N` runs combined into the advice one run gives. */
import type { ExplicitLimits, Advice } from '../types/advice.js'
import { emptySums, mergeSums } from '../decide/estimate.js'
import { parseRocksdbVersion } from '../db/option-syntax.js'
import { sameSetting } from '../decide/settings.js'
import { UsageError } from '../errors.js'
import type { GroupState } from './level-estimate.js'
import { assemble } from './assemble.js'
import { uniqueNotes, withoutText } from './notes.js'

/**
 * Combine the JSON of `--shard K/N` runs into the advice one run gives: the
 * integer sums add up exactly, and the decision is recomputed from them.
 */
export function mergeAdvice(parts: Advice[]): Advice {
  if (parts.length === 0) throw new MergeError('--merge needs the JSON of every shard')
  const first = parts[0]
  const count = first.shard?.count
  if (count === undefined) throw new MergeError('--merge takes the JSON of --shard runs; the first part is not a shard')
  const seen = new Set<number>()
  for (const p of parts) {
    if (p.version !== 1) throw new MergeError(`--merge: unknown advice version ${String(p.version)}`)
    if (!p.shard || p.shard.count !== count) throw new MergeError(`--merge: parts come from different shard counts`)
    if (seen.has(p.shard.index)) throw new MergeError(`--merge: shard ${p.shard.index}/${count} given twice`)
    seen.add(p.shard.index)
    if (p.seed !== first.seed || JSON.stringify(p.evaluation) !== JSON.stringify(first.evaluation))
      throw new MergeError('--merge: parts were run with different seeds or settings')
    // Notes are coded ({code, ...}); a release that wrote them as sentences wrote other shapes too.
    if (!(p.notes ?? []).every((n) => typeof n === 'object' && n !== null && typeof n.code === 'string'))
      throw new MergeError(`--merge: shard ${p.shard.index}/${count} was written by an earlier sstkit (its notes are sentences): run every shard with this one`)
  }
  if (seen.size !== count) throw new MergeError(`--merge: ${count - seen.size} of ${count} shards missing`)
  const states: GroupState[] = []
  for (const cf of first.columnFamilies) {
    for (const level of cf.levels) {
      const same = parts.map((p) => p.columnFamilies.find((c) => c.name === cf.name)?.levels.find((l) => l.level === level.level))
      if (same.some((l) => !l || l.matrix.length !== level.matrix.length)) throw new MergeError(`--merge: ${cf.name} L${level.level} differs between the parts`)
      const settings = level.matrix.map((m) => m.setting)
      // A part that sampled the level says what today is and at what rate (one without its files did not look).
      const seen = same.find((l) => l!.sample.stopped !== 'not-sampled') ?? level
      const todayIndex = seen.today ? settings.findIndex((s) => sameSetting(s, seen.today!.setting)) : -1
      states.push({
        group: {
          columnFamily: cf.name,
          level: level.level,
          bottommost: level.bottommost,
          optionsSetting: level.todayOptions,
          files: [],
          pending: [],
          unread: { files: 0, fileBytes: 0 },
        },
        totals: {
          files: level.files,
          fileBytes: level.fileBytes,
          dataBytes: level.dataBytes,
          dataBlocks: level.dataBlocks,
          entries: level.entries,
          dictBytes: level.todayDictBytes,
        },
        settings,
        todayIndex: todayIndex >= 0 ? todayIndex : null,
        rate: seen.sample.share,
        sums: settings.map((_, i) => same.reduce((acc, l) => mergeSums(acc, l!.matrix[i].sums), emptySums())),
        dict: settings.map((_, i) => ({
          files: same.reduce((a, l) => a + l!.matrix[i].dictFilesBuilt, 0),
          bytes: same.reduce((a, l) => a + l!.matrix[i].dictBytesBuilt, 0),
          ms: same.reduce((a, l) => a + l!.matrix[i].dictMsPerFile * l!.matrix[i].dictFilesBuilt, 0),
          referenceMs: same.reduce((a, l) => a + l!.matrix[i].dictReferenceMsPerFile * l!.matrix[i].dictFilesBuilt, 0),
          // The data the dictionaries were built for: the level's, in the share of its files built.
          dataBytes: (level.dataBytes * same.reduce((a, l) => a + l!.matrix[i].dictFilesBuilt, 0)) / Math.max(1, level.files),
        })),
        todayCompression: level.todayCompression,
        done: seen.sample.stopped,
        blocks: same.reduce((a, l) => a + l!.sample.blocks, 0),
        msPerBlock: null,
        fileDicts: new Map(),
        fileSums: new Map(),
        mine: [],
        fileDictBytes: new Map(),
      })
    }
  }
  const dynamicLevels = new Map(first.columnFamilies.map((c) => [c.name, c.dynamicLevels]))
  const baseLevels = new Map(first.columnFamilies.flatMap((c) => (c.baseLevel === null || c.baseLevel === undefined ? [] : [[c.name, c.baseLevel] as const])))
  const { sampleRate, maxCompressedBytesPerKb, ...dict } = first.evaluation
  const advice = assemble(
    states,
    {
      settings: [],
      objective: first.objective.name === 'limits' ? 'balanced' : first.objective.name,
      limits: first.objective.name === 'limits' ? (first.objective.limits as ExplicitLimits) : null,
      precision: first.precision,
      timeBudgetMs: first.timeBudgetSec * 1000,
      seed: first.seed,
      shard: null,
      fixedRate: sampleRate,
      dict,
      maxCompressedBytesPerKb,
      dynamicLevels,
      baseLevels,
      source: { ...first.source, paths: [...new Set(parts.flatMap((p) => p.source.paths))] },
      // The shards read the same LOGs and OPTIONS: the first part's workload prices and weighs the merge, and its
      // release's syntax writes the options.
      workload: first.workload ? { ...first.workload, note: withoutText(first.workload.note), readsNote: withoutText(first.workload.readsNote) } : null,
      prices: first.workload?.prices ?? null,
      rocksdbVersion: parseRocksdbVersion(first.source.rocksdbVersion?.version ?? null),
    },
    uniqueNotes(parts.flatMap((p) => p.notes)),
  )
  // Every shard of a database reports its missing live files: each problem once.
  const problems = new Map(parts.flatMap((p) => p.problems ?? []).map((q) => [JSON.stringify([q.file, q.offset, q.message]), q]))
  advice.problems = [...problems.values()]
  advice.elapsedSec = Math.max(...parts.map((p) => p.elapsedSec))
  return advice
}

export class MergeError extends UsageError {
  override name = 'MergeError'
}
