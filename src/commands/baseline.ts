import { Args, Flags } from '@oclif/core'
import { availableParallelism } from 'node:os'
import { matrixFlags, sourceFlags } from '../cli/recompress-flags.js'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import { buildBaseline, DEFAULT_BASELINE, serializeBaseline } from '../ci/baseline.js'
import { writeFileAtomic } from '../util/temp-file.js'
import { measureFiles, planBaseline } from '../ci/plan.js'
import { baselineModel, baselineWrittenLine } from '../ci/report.js'
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
    const given = raw.filter((t): t is { type: 'flag'; flag: string; input: string } => t.type === 'flag' && MEASUREMENT_FLAGS.has(t.flag))
    const plan = planBaseline({
      files: argv as string[],
      output: flags.output,
      update: flags.update,
      force: flags.force,
      timings: flags.timings,
      timingsGiven: raw.some((t) => t.type === 'flag' && t.flag === 'timings'),
      config: flags.config,
      given,
      flags,
      jobs: flags.jobs ?? availableParallelism(),
    })
    for (const w of plan.warnings) this.warn(w)
    const { measured, failed } = await measureFiles(plan.files, plan.options, plan.timings, (f, e) => this.reportFileError(f.path, e, 'opening'))
    if (failed.length > 0) this.fail(`baseline not written: ${failed.length} file(s) could not be measured`, ExitCode.Usage)
    if (measured.length === 0) this.fail('baseline not written: no SST files to measure', ExitCode.Usage)

    const doc = buildBaseline(
      plan.flagsUsed,
      plan.settings,
      measured.map((m) => m.file),
    )
    try {
      writeFileAtomic(plan.out, serializeBaseline(doc))
    } catch (e) {
      this.fail(`${plan.out}: cannot write the baseline: ${(e as Error).message}`, ExitCode.Usage)
    }
    if (this.jsonEnabled()) return doc
    this.log(renderTable(baselineModel(doc, { bytes: flags.bytes, wide: flags.wide }), 'table', this.tty))
    this.log(baselineWrittenLine(plan.out, doc, plan.previous))
    return undefined
  }
}
