import { Args, Flags } from '@oclif/core'
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, relative, resolve } from 'node:path'
import { matrixFlags, sourceFlags } from '../cli/recompress-flags.js'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import {
  BASELINE_SCHEMA,
  BASELINE_SCHEMA_VERSION,
  DEFAULT_BASELINE,
  changedSizes,
  readBaseline,
  serializeBaseline,
  writeFileAtomic,
  type Baseline as BaselineDoc,
  type BaselineFile,
  type BaselineSettings,
} from '../ci/baseline.js'
import { loadConfig } from '../ci/config.js'
import { isFileError, isUsageError } from '../ci/errors.js'
import { baselineSettings, expandNamed, measureFile, optionsFromSettings, type NamedFile } from '../ci/measure.js'
import { baselineModel } from '../ci/report.js'
import { sstkitVersion, zstdVersions } from '../ci/versions.js'
import type { RecompressOptions } from '../index.js'
import { renderTable } from '../report/table.js'

const MATRIX_FLAGS = matrixFlags({
  levelsHelp: "Levels as a range or list (1..19, 1,3,6,9, -5..3, default). Default: 3,9 for the default --types; with --types, each type's default level.",
  dictHelp: 'Dictionary modes: none, raw, finalize, train. Default: none.',
})
/** Flags that change what is measured: recorded in the baseline, refused with --update. */
const MEASUREMENT_FLAGS = new Set([...Object.keys(MATRIX_FLAGS), ...Object.keys(sourceFlags).filter((k) => k !== 'jobs'), 'strip'])

export default class Baseline extends SstCommand {
  static override description = `Measure SST files and write a size baseline for \`sstkit check-size\`.
For each file: the file as stored, and the file rebuilt under each configuration of the recompress matrix (default: zstd levels 3 and 9, no dictionary, no frame checksum). Per file and configuration it records exact byte counts (data, dictionary, index, filter, meta, whole file), block and entry counts and the ratio, plus the sstkit and zstd versions, the flags given and the resolved settings, which check-size reuses. Timings are recorded for information and never compared.
Files are named by their path relative to the baseline file's directory (or NAME=PATH; --strip removes a pattern such as RocksDB file numbers). --update re-measures with the baseline's own settings and replaces it atomically: the "accept this change" step.`

  static override examples = [
    { description: 'Baseline of a directory of SSTs:', command: '<%= config.bin %> <%= command.id %> testdata/db/ -o sstkit-baseline.json' },
    {
      description: 'Stable names for numbered RocksDB files:',
      command: "<%= config.bin %> <%= command.id %> users=db/users/ --strip '^\\d+' -o sstkit-baseline.json",
    },
    {
      description: 'A wider matrix: zstd 1..9 with and without a finalized dictionary:',
      command: '<%= config.bin %> <%= command.id %> db/ --levels 1..9 --dict none,finalize',
    },
    { description: 'Accept the current sizes (same files, same settings):', command: '<%= config.bin %> <%= command.id %> --update -o sstkit-baseline.json' },
  ]

  static override strict = false
  static override args = {
    files: Args.string({
      description: 'SST files or directories of .sst files; NAME=PATH gives a stable name. With --update: default the files in the baseline.',
    }),
  }

  static override flags = {
    output: Flags.string({ char: 'o', description: `Baseline file to write (default: checkSize.baseline from the config file, else ${DEFAULT_BASELINE}).` }),
    update: Flags.boolean({
      description: "Re-measure with the existing baseline's settings (and its files, unless files are given) and replace it atomically.",
    }),
    force: Flags.boolean({ description: 'Replace an existing baseline with one taken with these flags.' }),
    strip: Flags.string({ description: 'Regular expression removed from names derived from paths (e.g. "\\d{6}(?=\\.sst$)" for RocksDB file numbers).' }),
    timings: Flags.boolean({
      description: "Record timings (information only; --no-timings makes the file byte-for-byte reproducible). --update keeps the baseline's choice.",
      default: true,
      allowNo: true,
    }),
    config: Flags.string({ description: 'Config file (default: sstkit.config.json, or the "sstkit" key of package.json).' }),
    bytes: Flags.boolean({ description: 'Exact byte counts in the table instead of KiB/MiB (the baseline file always has them).' }),
    wide: Flags.boolean({ description: 'Add the Compression column (the configuration name says it too).' }),
    ...MATRIX_FLAGS,
    ...sourceFlags,
  }

  async run(): Promise<unknown> {
    const { argv, flags, raw } = await this.parse(Baseline)
    const config = this.usage(() => loadConfig(process.cwd(), flags.config))
    const out = flags.output ?? (config.checkSize.baseline ? relativeOrAbsolute(resolve(config.dir, config.checkSize.baseline)) : DEFAULT_BASELINE)
    const baseDir = dirname(resolve(out))
    const given = raw.filter((t): t is { type: 'flag'; flag: string; input: string } => t.type === 'flag' && MEASUREMENT_FLAGS.has(t.flag))

    let settings: BaselineSettings
    let flagsUsed: string[]
    let files: NamedFile[]
    let previous: BaselineDoc | undefined
    if (flags.update) {
      if (given.length > 0) {
        this.fail(
          `--update re-measures with the baseline's own settings: drop ${[...new Set(given.map((t) => `--${t.flag}`))].join(', ')}, or take a new baseline with --force`,
          ExitCode.Usage,
        )
      }
      previous = this.usage(() => readBaseline(out))
      settings = previous.settings
      flagsUsed = previous.flags
      if (argv.length > 0) files = this.expand(argv as string[], baseDir, settings.strip)
      else {
        files = previous.files.map((f) => ({ name: f.name, relPath: f.path, path: relativeOrAbsolute(resolve(baseDir, f.path)) }))
        const gone = files.filter((f) => !existsSync(f.path))
        if (gone.length > 0) this.fail(`${gone.map((f) => f.path).join(', ')}: no such file (name the current files to update from)`, ExitCode.Usage)
      }
    } else {
      if (existsSync(out) && !flags.force)
        this.fail(`${out} exists: use --update to re-measure it with its own settings, or --force to replace it`, ExitCode.Usage)
      if (argv.length === 0) this.fail('give the SST files or directories to measure', ExitCode.Usage)
      if (flags.strip !== undefined) this.usage(() => new RegExp(flags.strip!, 'g'))
      settings = this.usage(() => baselineSettings(flags, baseDir))
      flagsUsed = given.flatMap((t) => [`--${t.flag}`, t.input])
      files = this.expand(argv as string[], baseDir, settings.strip)
    }

    // --update keeps the baseline's choice about timings unless told otherwise.
    const timings =
      raw.some((t) => t.type === 'flag' && t.flag === 'timings') || !previous
        ? flags.timings
        : previous.files.some((f) => f.rows.some((r) => r.timings !== undefined))
    const options: RecompressOptions = this.usage(() => optionsFromSettings(settings, baseDir, flags.jobs ?? availableParallelism()))
    if (settings.samplePercent < 100 && settings.blockSize !== null)
      this.fail("--sample works on the file's own blocks: it cannot be combined with --block-size", ExitCode.Usage)
    const measured: BaselineFile[] = []
    let failures = 0
    for (const f of files) {
      try {
        measured.push(await measureFile(f.path, f.name, f.relPath, options, timings))
      } catch (e) {
        if (isUsageError(e)) this.fail(e.message, ExitCode.Usage)
        if (isFileError(e)) {
          this.reportFileError(f.path, e, 'opening')
          failures++
          continue
        }
        throw e
      }
    }
    if (failures > 0) this.fail(`baseline not written: ${failures} file(s) could not be measured`, ExitCode.Usage)
    if (measured.length === 0) this.fail('baseline not written: no SST files to measure', ExitCode.Usage)

    const doc: BaselineDoc = {
      schema: BASELINE_SCHEMA,
      schemaVersion: BASELINE_SCHEMA_VERSION,
      sstkitVersion: sstkitVersion(),
      zstd: zstdVersions(),
      flags: flagsUsed,
      settings,
      files: measured,
    }
    try {
      writeFileAtomic(out, serializeBaseline(doc))
    } catch (e) {
      this.fail(`${out}: cannot write the baseline: ${(e as Error).message}`, ExitCode.Usage)
    }
    if (this.jsonEnabled()) return doc
    this.log(renderTable(baselineModel(doc, { bytes: flags.bytes, wide: flags.wide }), 'table', this.tty))
    const rows = measured.reduce((a, f) => a + f.rows.length, 0)
    const changed = previous ? ` (${changedSizes(previous.files, measured)} of ${rows} sizes changed)` : ''
    this.log(`${previous ? 'updated' : 'wrote'} ${out}: ${measured.length} file(s) × ${measured[0].rows.length} configuration(s)${changed}`)
    return undefined
  }

  private expand(args: string[], baseDir: string, strip: string | null): NamedFile[] {
    const { files, warnings } = this.usage(() => expandNamed(args, baseDir, strip))
    for (const w of warnings) this.warn(w)
    return files
  }

  /** Run `f`; its configuration, threshold or argument errors are usage errors (exit 2). */
  protected usage<T>(f: () => T): T {
    try {
      return f()
    } catch (e) {
      if (isUsageError(e)) this.fail((e as Error).message, ExitCode.Usage)
      throw e
    }
  }
}

function relativeOrAbsolute(p: string): string {
  const r = relative(process.cwd(), p)
  return r.startsWith('..') || r === '' ? p : r
}
