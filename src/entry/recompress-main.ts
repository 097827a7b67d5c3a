/**
 * `recompress`, the command's work (shared with src/commands/recompress.ts) and its start without
 * oclif: a command line of paths and the flags below, each in a form whose meaning oclif's parser
 * would not change, runs through bin/run.cjs without loading oclif (~0.1 s of CPU of every run:
 * Node's ES module loader and oclif's own code; bench/README.md, "Start-up"); any other command
 * line is oclif's, and what this path prints is what oclif's would (test/cli/recompress-main.test.ts
 * runs both).
 */
import { isatty } from 'node:tty'
import type { BlobFile } from '../blob/reader.js'
import { type BlobFlagValues, blobSettings, measureBlobFile, openBlobForMatrix } from '../cli/blob-recompress.js'
import { ExitCode } from '../cli/exit-code.js'
import { type FileErrorJson, type FileSession, isBlobFile } from '../cli/file-session.js'
import { progressLine, progressWithEta } from '../cli/progress.js'
import {
  autoSkipModes,
  type LayoutFlagValues,
  RECOMPRESS_FLAG_DEFAULTS,
  RECOMPRESS_FLAG_OPTIONS,
  type RecompressFlagValues,
  recompressOptions,
  tableLayouts,
} from '../cli/recompress-options.js'
import { isFileError } from '../errors.js'
import type { RecompressOptions, RecompressReport } from '../recompress/engine.js'
import { recompressLayouts } from '../recompress/layouts.js'
import { blobRecompressJson, blobRecompressNotes, renderBlobRecompress } from '../report/blob-recompress.js'
import { recompressJson, renderRecompress, renderRecompressNotes, type SortKey } from '../report/recompress.js'
import type { TableFormat } from '../report/table.js'
import { keepYoungGenerationSmall } from '../util/garbage.js'
import { fixMallocThresholds } from '../util/malloc.js'
import { plainPathArgs, runPlainAsync } from './plain.js'
/** bin/run.cjs ends the process with it once the command is done. */
export { exitAtOnce } from '../util/exit.js'

/** recompress's flag values, as oclif parses them (defaults filled in). */
export type RecompressRunFlags = Omit<RecompressFlagValues, 'block-size'> &
  LayoutFlagValues & {
    format: string
    'auto-skip'?: string
    'min-sample-every': number
    seed: number
    'no-carry': boolean
    sort: string
    wide: boolean
    bytes: boolean
    'verify-compression': boolean
  }

export type RecompressResultJson = ReturnType<typeof recompressJson> | ReturnType<typeof blobRecompressJson> | FileErrorJson

/** How a run prints: --json or text, its lines, and how stdout draws tables. */
export interface RecompressOutput {
  json: boolean
  log: (line: string) => void
  tty: { color: boolean; width?: number }
}

/**
 * Every file's matrix: printed with `out.log` for people, or returned for --json (one file: its
 * object). `given` holds the flags on the command line (a blob file's matrix depends on which).
 */
export async function recompressReport(
  run: FileSession,
  paths: string[],
  flags: RecompressRunFlags,
  given: ReadonlySet<string>,
  out: RecompressOutput,
): Promise<RecompressResultJson | RecompressResultJson[] | undefined> {
  // This thread is a lane for seconds: a small young generation is ~20 MB less peak RSS with 2 jobs.
  // Set at its first batch, after the lanes' workers and modules have loaded (keepYoungGenerationSmall).
  keepYoungGenerationSmall({ deferred: true })
  // Large codec contexts come and go (a zstd 19 index's ~16 MB): their pages go back when freed.
  fixMallocThresholds()
  const layouts = tableLayouts(flags)
  const options: RecompressOptions = {
    ...recompressOptions({ ...flags, 'block-size': undefined }),
    roundTrip: flags['verify-compression'] ? 'every' : 'sample',
  }
  const autoSkip = autoSkipModes(flags['auto-skip'])
  const carry = new Map<string, number | null>()
  const files = run.expandFiles(paths)
  const reports: RecompressResultJson[] = []
  const progress = progressLine(process.stderr.isTTY && !out.json)
  for (const [fileIndex, file] of files.entries()) {
    if (isBlobFile(file)) {
      reports.push(recompressBlob(run, file, flags, given, out, fileIndex, files.length))
      continue
    }
    let report: RecompressReport
    const bar = progressWithEta(progress, file)
    try {
      report = await recompressLayouts(
        file,
        {
          ...options,
          onProgress: (done, total) => bar.update(done, total),
          autoSkip,
          minSampleEvery: flags['min-sample-every'],
          seed: flags.seed,
          fileIndex,
          carry: flags['no-carry'] ? new Map() : carry,
        },
        layouts,
      )
    } catch (e) {
      progress.clear()
      // Errors from the worker threads arrive as their own classes and kinds; usage errors end the run.
      if (!isFileError(e)) throw e
      // A file that cannot be measured is one that cannot be opened (exit 2), not a finding.
      reports.push(run.reportFileError(file, e, 'opening'))
      continue
    }
    progress.clear()
    if (report.skipped.length > 0) {
      run.raise(ExitCode.Finding)
      for (const s of report.skipped) process.stderr.write(`sstkit: ${file}: skipped data block at offset ${s.offset}: ${s.message}\n`)
    }
    reports.push(recompressJson(report, { repeats: flags.repeat, options: { ...options.dict, maxCompressedBytesPerKb: flags['max-compressed-bytes-per-kb'] } }))
    if (out.json) continue
    // Markdown needs a blank line to end a paragraph or a table.
    const markdown = flags.format === 'markdown'
    if (files.length > 1) out.log(`${markdown && fileIndex > 0 ? '\n' : ''}${file}:`)
    const view = { sort: flags.sort as SortKey, wide: flags.wide, bytes: flags.bytes, repeats: flags.repeat, ...out.tty }
    out.log(renderRecompress(report, flags.format as TableFormat, view))
    for (const line of renderRecompressNotes(report.notes, flags.format as TableFormat, out.tty)) out.log(line)
  }
  if (!out.json) return undefined
  return files.length === 1 ? reports[0] : reports
}

/** A blob file's matrix (cli/blob-recompress.ts): printed, and its --json entry returned. */
function recompressBlob(
  run: FileSession,
  file: string,
  flags: BlobFlagValues & { format: string; bytes: boolean },
  given: ReadonlySet<string>,
  out: RecompressOutput,
  index: number,
  count: number,
): RecompressResultJson {
  const { settings, notes } = blobSettings(flags, given)
  let blob: BlobFile
  try {
    blob = openBlobForMatrix(file)
  } catch (e) {
    if (!isFileError(e)) throw e
    return run.reportFileError(file, e, 'opening')
  }
  let measured: ReturnType<typeof measureBlobFile>
  try {
    measured = measureBlobFile(file, blob, settings, flags)
  } catch (e) {
    // A damaged record (offset named) is a finding about an opened file: exit 1.
    if (!isFileError(e)) throw e
    return run.reportFileError(file, e, 'opened')
  }
  const { report, ctx } = measured
  if (out.json) return blobRecompressJson(file, report, ctx)
  const format = flags.format as TableFormat
  if (count > 1) out.log(`${format === 'markdown' && index > 0 ? '\n' : ''}${file}:`)
  out.log(renderBlobRecompress(report, format, { bytes: flags.bytes, ...out.tty }))
  if (format !== 'csv') for (const line of [...blobRecompressNotes(report, ctx), ...notes]) out.log(format === 'markdown' ? `\n${line}` : line)
  return blobRecompressJson(file, report, ctx)
}

/**
 * The flags the plain path takes, each with the values it takes there (any other value is left to
 * oclif, whose parser reports it): a flag with `options` only those; `integer` a plain positive
 * number (no sign, no leading zero); `text` any value not starting with `-` (our own parsers read
 * it, and their errors are the same on both paths).
 */
const PLAIN_VALUE_FLAGS: Record<string, { options?: readonly string[]; integer?: boolean }> = {
  types: {},
  levels: {},
  dict: {},
  checksum: { options: RECOMPRESS_FLAG_OPTIONS.checksum },
  'block-size': {},
  jobs: { integer: true },
  format: { options: RECOMPRESS_FLAG_OPTIONS.format },
  sort: { options: RECOMPRESS_FLAG_OPTIONS.sort },
}
const PLAIN_BOOLEAN_FLAGS = ['wide', 'bytes', 'verify-compression']

/** A command line the plain path runs: its paths, --json, and the flags given (names and values). */
export interface PlainRecompressArgs {
  paths: string[]
  json: boolean
  flags: Record<string, string | true>
}

/**
 * The paths, --json and flags of a command line (after `recompress`) that runs without oclif, or
 * null: plainPathArgs's paths and --json, with each of PLAIN_VALUE_FLAGS at most once as `--name
 * VALUE` or `--name=VALUE`, each of PLAIN_BOOLEAN_FLAGS at most once, and not --json with --format
 * (a usage error oclif's path words).
 */
export function plainRecompressArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): PlainRecompressArgs | null {
  const rest: string[] = []
  const flags: Record<string, string | true> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (!a.startsWith('--') || a === '--json') {
      rest.push(a)
      continue
    }
    const eq = a.indexOf('=')
    const name = a.slice(2, eq < 0 ? undefined : eq)
    if (name in flags) return null
    if (PLAIN_BOOLEAN_FLAGS.includes(name) && eq < 0) {
      flags[name] = true
      continue
    }
    const spec = PLAIN_VALUE_FLAGS[name]
    if (!spec) return null
    const value = eq < 0 ? argv[++i] : a.slice(eq + 1)
    if (value === undefined || value === '' || value.startsWith('-')) return null
    if (spec.options && !spec.options.includes(value)) return null
    if (spec.integer && !/^[1-9][0-9]{0,8}$/.test(value)) return null
    flags[name] = value
  }
  const plain = plainPathArgs(rest, env, platform, argv)
  if (!plain || (plain.json && 'format' in flags)) return null
  return { ...plain, flags }
}

/** The flag values oclif would parse from a plain command line: its values over the defaults. */
export function plainRecompressFlags(given: Record<string, string | true>): RecompressRunFlags {
  const text = (name: string) => (typeof given[name] === 'string' ? (given[name] as string) : undefined)
  return {
    ...RECOMPRESS_FLAG_DEFAULTS,
    types: text('types') ?? RECOMPRESS_FLAG_DEFAULTS.types,
    levels: text('levels'),
    dict: text('dict'),
    checksum: text('checksum') ?? RECOMPRESS_FLAG_DEFAULTS.checksum,
    'block-size': text('block-size'),
    jobs: text('jobs') === undefined ? undefined : Number(text('jobs')),
    format: text('format') ?? RECOMPRESS_FLAG_DEFAULTS.format,
    sort: text('sort') ?? RECOMPRESS_FLAG_DEFAULTS.sort,
    'no-carry': false,
    wide: given.wide === true,
    bytes: given.bytes === true,
    'verify-compression': given['verify-compression'] === true,
  }
}

/** Run `recompress ARGV` without oclif (plain.ts); null when the command line is not one this path takes, for oclif to run. */
export function recompressMain(argv: readonly string[]): Promise<number> | null {
  const plain = plainRecompressArgs(argv)
  if (!plain) return null
  const flags = plainRecompressFlags(plain.flags)
  const given = new Set([...Object.keys(plain.flags), ...(plain.json ? ['json'] : [])])
  // As SstCommand's tty; isatty, so that a run into a pipe or file creates no stdout stream (plain.ts).
  const isTTY = isatty(1)
  const tty = { color: isTTY, width: isTTY ? process.stdout.columns : undefined }
  return runPlainAsync(plain.json, (run, log) => recompressReport(run, plain.paths, flags, given, { json: plain.json, log, tty }))
}
