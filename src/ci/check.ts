/**
 * `check-size`'s policy, apart from its flags and output: which limits apply
 * (flags over the config file over the defaults), whether the baseline can be
 * compared at all (sampling, zstd versions), and which files are checked.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Baseline, BaselineSettings } from './baseline.js'
import { parseBudget, type Budget, type Metric, type Thresholds } from './compare.js'
import type { LoadedConfig } from './config.js'
import { type NamedFile, usesDictionaryBuilder } from './measure.js'
import { parsePercent, parseSize } from '../cli/units.js'
import type { ZstdVersions } from './versions.js'

export interface ThresholdFlags {
  'max-increase'?: string
  'max-increase-bytes'?: string
  'min-change-bytes'?: string
  budget?: string[]
  metric?: string
  'allow-missing'?: boolean
}

/** Flags over the config file over the defaults (no limit: any growth fails). Throws ThresholdError. */
export function thresholdsFrom(flags: ThresholdFlags, config: LoadedConfig): Thresholds {
  const cs = config.checkSize
  const from = config.source ?? 'config'
  const maxIncrease = flags['max-increase'] ?? cs.maxIncrease
  const maxIncreaseBytes = flags['max-increase-bytes'] ?? cs.maxIncreaseBytes
  const minChange = flags['min-change-bytes'] ?? cs.minChangeBytes
  const budgets = new Map<string, Budget>()
  for (const [k, v] of Object.entries(cs.budgets ?? {})) {
    const b = parseBudget(k, v)
    budgets.set(`${b.file ?? ''}:${b.config}`, b)
  }
  for (const spec of flags.budget ?? []) {
    const b = parseBudget(spec)
    budgets.set(`${b.file ?? ''}:${b.config}`, b)
  }
  return {
    metric: (flags.metric ?? cs.metric ?? 'file') as Metric,
    maxIncrease: maxIncrease === undefined ? null : parsePercent(maxIncrease, flags['max-increase'] !== undefined ? '--max-increase' : `${from}: maxIncrease`),
    maxIncreaseBytes:
      maxIncreaseBytes === undefined
        ? null
        : parseSize(maxIncreaseBytes, flags['max-increase-bytes'] !== undefined ? '--max-increase-bytes' : `${from}: maxIncreaseBytes`),
    minChangeBytes:
      minChange === undefined ? 0 : parseSize(minChange, flags['min-change-bytes'] !== undefined ? '--min-change-bytes' : `${from}: minChangeBytes`),
    budgets: [...budgets.values()],
    allowMissing: flags['allow-missing'] ?? cs.allowMissing ?? false,
  }
}

/** Why the metric cannot be compared against this baseline, or null. */
export function metricProblem(thresholds: Thresholds, settings: BaselineSettings): string | null {
  if (thresholds.metric === 'file' && settings.samplePercent < 100) {
    return `the baseline measured a ${settings.samplePercent}% sample of the data blocks, so whole-file sizes are unknown: use --metric data`
  }
  return null
}

export interface VersionVerdict {
  /** Why the comparison would not be fair (a usage error), or null. */
  refusal: string | null
  warnings: string[]
}

/** zstd must be the one the baseline was measured with, or the comparison says nothing about the files. */
export function versionVerdict(baseline: Baseline, now: ZstdVersions, sstkitNow: string, allowChange: boolean): VersionVerdict {
  const changes: string[] = []
  if (baseline.zstd.library !== now.library) changes.push(`zstd library (compresses the blocks) ${baseline.zstd.library} → ${now.library}`)
  if (usesDictionaryBuilder(baseline.settings) && baseline.zstd.dictionaryBuilder !== now.dictionaryBuilder) {
    changes.push(`system libzstd (builds the dictionaries) ${baseline.zstd.dictionaryBuilder ?? 'none'} → ${now.dictionaryBuilder ?? 'none'}`)
  }
  const warnings: string[] = []
  if (changes.length > 0) {
    const what = `zstd changed since the baseline was taken: ${changes.join('; ')}`
    if (!allowChange) {
      return {
        refusal: `${what}. Sizes can differ for that reason alone, so the comparison would not be fair: take the baseline again with this version (sstkit baseline --update), or pass --allow-version-change to compare anyway`,
        warnings,
      }
    }
    warnings.push(`${what} (accepted with --allow-version-change): size changes may come from the new zstd`)
  }
  if (baseline.sstkitVersion !== sstkitNow) warnings.push(`the baseline was taken with sstkit ${baseline.sstkitVersion}, this is ${sstkitNow}`)
  return { refusal: null, warnings }
}

/** The baseline's own files (when none are named), as paths shown to the user; those gone are reported as missing. */
export function baselineFiles(baseline: Baseline, baseDir: string, display: (path: string) => string): NamedFile[] {
  return baseline.files.map((f) => ({ name: f.name, relPath: f.path, path: display(resolve(baseDir, f.path)) })).filter((f) => existsSync(f.path))
}
