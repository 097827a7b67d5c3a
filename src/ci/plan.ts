/**
 * What `baseline` and `check-size` measure, decided from their arguments, the
 * config file and (for --update and check-size) the baseline itself: which
 * files, with which settings. Every refusal is a UsageError (exit 2).
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { UsageError } from '../errors.js'
import type { RecompressOptions } from '../index.js'
import { DEFAULT_BASELINE, readBaseline, type Baseline, type BaselineFile, type BaselineSettings } from './baseline.js'
import { baselineFiles, metricProblem, thresholdsFrom, type ThresholdFlags, versionVerdict } from './check.js'
import { checkBudgetNames, type Comparison, type FailedFile, type Thresholds } from './compare.js'
import { loadConfig, type LoadedConfig } from './config.js'
import { isFileError } from './errors.js'
import { baselineSettings, expandNamed, measureFile, optionsFromSettings, type BaselineFlagValues, type NamedFile } from './measure.js'
import { annotations, renderJunit, renderMarkdown, type CheckContext } from './report.js'
import { sstkitVersion, zstdVersions } from './versions.js'

/** A path as the user would type it: relative to the working directory when inside it. */
export function displayPath(p: string): string {
  const r = relative(process.cwd(), p)
  return r.startsWith('..') || r === '' ? p : r
}

/** A measurement flag as given on the command line (recorded in the baseline). */
export interface GivenFlag {
  flag: string
  input: string
}

export interface BaselineRequest {
  files: string[]
  output?: string
  update: boolean
  force: boolean
  /** --timings / --no-timings, and whether it was given at all. */
  timings: boolean
  timingsGiven: boolean
  config?: string
  /** The measurement flags given, in order (refused with --update). */
  given: GivenFlag[]
  flags: BaselineFlagValues
  jobs: number
}

export interface BaselinePlan {
  out: string
  files: NamedFile[]
  settings: BaselineSettings
  /** The flags recorded in the baseline. */
  flagsUsed: string[]
  /** The baseline replaced by --update. */
  previous?: Baseline
  timings: boolean
  options: RecompressOptions
  warnings: string[]
}

/** What `baseline` measures: new (from its flags) or --update (the existing baseline's settings and files). */
export function planBaseline(req: BaselineRequest): BaselinePlan {
  const config = loadConfig(process.cwd(), req.config)
  const out = req.output ?? (config.checkSize.baseline ? displayPath(resolve(config.dir, config.checkSize.baseline)) : DEFAULT_BASELINE)
  const baseDir = dirname(resolve(out))
  const warnings: string[] = []
  const expand = (strip: string | null): NamedFile[] => {
    const expanded = expandNamed(req.files, baseDir, strip)
    warnings.push(...expanded.warnings)
    return expanded.files
  }

  let settings: BaselineSettings
  let flagsUsed: string[]
  let files: NamedFile[]
  let previous: Baseline | undefined
  if (req.update) {
    if (req.given.length > 0) {
      const names = [...new Set(req.given.map((t) => `--${t.flag}`))].join(', ')
      throw new UsageError(`--update re-measures with the baseline's own settings: drop ${names}, or take a new baseline with --force`)
    }
    previous = readBaseline(out)
    settings = previous.settings
    flagsUsed = previous.flags
    if (req.files.length > 0) files = expand(settings.strip)
    else {
      files = previous.files.map((f) => ({ name: f.name, relPath: f.path, path: displayPath(resolve(baseDir, f.path)) }))
      const gone = files.filter((f) => !existsSync(f.path))
      if (gone.length > 0) throw new UsageError(`${gone.map((f) => f.path).join(', ')}: no such file (name the current files to update from)`)
    }
  } else {
    if (existsSync(out) && !req.force) throw new UsageError(`${out} exists: use --update to re-measure it with its own settings, or --force to replace it`)
    if (req.files.length === 0) throw new UsageError('give the SST files or directories to measure')
    if (req.flags.strip !== undefined) validRegExp(req.flags.strip)
    settings = baselineSettings(req.flags, baseDir)
    flagsUsed = req.given.flatMap((t) => [`--${t.flag}`, t.input])
    files = expand(settings.strip)
  }
  // --update keeps the baseline's choice about timings unless told otherwise.
  const timings = req.timingsGiven || !previous ? req.timings : previous.files.some((f) => f.rows.some((r) => r.timings !== undefined))
  const options = optionsFromSettings(settings, baseDir, req.jobs)
  return { out, files, settings, flagsUsed, previous, timings, options, warnings }
}

function validRegExp(pattern: string): void {
  try {
    new RegExp(pattern, 'g')
  } catch (e) {
    throw new UsageError(`--strip: ${(e as Error).message}`)
  }
}

/** Measure each file; a file that cannot be measured is reported through `onFileError` and listed, usage errors throw. */
export async function measureFiles(
  files: readonly NamedFile[],
  options: RecompressOptions,
  timings: boolean,
  onFileError: (file: NamedFile, e: Error) => void,
): Promise<{ measured: { file: BaselineFile; path: string }[]; failed: FailedFile[] }> {
  const measured: { file: BaselineFile; path: string }[] = []
  const failed: FailedFile[] = []
  for (const f of files) {
    try {
      measured.push({ file: await measureFile(f.path, f.name, f.relPath, options, timings), path: f.path })
    } catch (e) {
      if (!isFileError(e)) throw e
      onFileError(f, e)
      failed.push({ name: f.name, path: f.path, message: e.message })
    }
  }
  return { measured, failed }
}

export interface CheckRequest {
  files: string[]
  baseline?: string
  config?: string
  thresholds: ThresholdFlags
  allowVersionChange: boolean
  jobs: number
}

export interface CheckPlan {
  baselinePath: string
  baseline: Baseline
  config: LoadedConfig
  thresholds: Thresholds
  files: NamedFile[]
  options: RecompressOptions
  /** About the files given (printed as they are found). */
  warnings: string[]
  /** About the versions the baseline was taken with (part of the report). */
  versionWarnings: string[]
}

/** What `check-size` measures and against which limits; refuses a baseline it cannot compare with. */
export function planCheck(req: CheckRequest): CheckPlan {
  const config = loadConfig(process.cwd(), req.config)
  const cs = config.checkSize
  const baselinePath = req.baseline ?? (cs.baseline ? displayPath(resolve(config.dir, cs.baseline)) : DEFAULT_BASELINE)
  const thresholds = thresholdsFrom(req.thresholds, config)
  const baseline = readBaseline(baselinePath)
  const settings = baseline.settings
  const metricRefusal = metricProblem(thresholds, settings)
  if (metricRefusal) throw new UsageError(metricRefusal)
  const { refusal, warnings } = versionVerdict(baseline, zstdVersions(), sstkitVersion(), req.allowVersionChange)
  if (refusal) throw new UsageError(refusal)

  const baseDir = dirname(resolve(baselinePath))
  let files: NamedFile[]
  const fileWarnings: string[] = []
  if (req.files.length > 0) {
    const expanded = expandNamed(req.files, baseDir, settings.strip)
    fileWarnings.push(...expanded.warnings)
    files = expanded.files
  } else files = baselineFiles(baseline, baseDir, displayPath)
  const configs = new Set(baseline.files.flatMap((f) => f.rows.map((r) => r.config)))
  const names = new Set([...baseline.files.map((f) => f.name), ...files.map((f) => f.name)])
  const budgetProblem = checkBudgetNames(thresholds.budgets, configs, names)
  if (budgetProblem) throw new UsageError(budgetProblem)
  const options = optionsFromSettings(settings, baseDir, req.jobs)
  return { baselinePath, baseline, config, thresholds, files, options, warnings: fileWarnings, versionWarnings: warnings }
}

/**
 * The side outputs of a check: the Markdown appended to $GITHUB_STEP_SUMMARY,
 * the JUnit file, and under GITHUB_ACTIONS the workflow annotations (on stderr
 * when stdout carries JSON). Returns what went wrong, one line each: a summary
 * that cannot be appended is a warning, a JUnit file that cannot be written an error.
 */
export function publishCheck(result: Comparison, ctx: CheckContext, junit: string | undefined, json: boolean): { warnings: string[]; errors: string[] } {
  const warnings: string[] = []
  const errors: string[] = []
  const summaryFile = process.env.GITHUB_STEP_SUMMARY
  if (summaryFile) {
    try {
      appendFileSync(summaryFile, `${renderMarkdown(result, ctx)}\n`)
    } catch (e) {
      warnings.push(`cannot append to $GITHUB_STEP_SUMMARY (${summaryFile}): ${(e as Error).message}`)
    }
  }
  if (junit !== undefined) {
    try {
      writeFileSync(junit, renderJunit(result, ctx))
    } catch (e) {
      errors.push(`${junit}: cannot write the JUnit report: ${(e as Error).message}`)
    }
  }
  if (process.env.GITHUB_ACTIONS === 'true') {
    const lines = annotations(result, ctx)
      .map((l) => `${l}\n`)
      .join('')
    if (lines) (json ? process.stderr : process.stdout).write(lines)
  }
  return { warnings, errors }
}
