import { Args, Flags } from '@oclif/core'
import { availableParallelism } from 'node:os'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import { DEFAULT_BASELINE } from '../ci/baseline.js'
import { compare, METRICS } from '../ci/compare.js'
import { measureFiles, planCheck, publishCheck } from '../ci/plan.js'
import { checkJson, checkModel, limitsLine, renderMarkdown, summaryLine, type CheckContext } from '../ci/report.js'
import { renderTable } from '../report/table.js'

export default class CheckSize extends SstCommand {
  static override description = `Measure SST files again with a baseline's own settings and fail when they grew past the limits.
Files are matched to the baseline by name (their path relative to the baseline's directory, or NAME=PATH); files not in the baseline are reported as new, baseline files not measured as missing (a failure unless --allow-missing). With no files given, the baseline's own files are measured.
Each file × configuration row compares one byte count (--metric, default the whole file). A row fails when it grew by more than --max-increase (relative) or --max-increase-bytes (absolute), or is larger than a --budget; changes smaller than --min-change-bytes are ignored. With no limit at all, any growth fails: sizes are deterministic. Timings are never compared.
Configuration names: \`stored\` (the file as it is), or TYPE-LEVEL-DICT-CHECKSUM as the baseline lists them (zstd-3-none-off, zstd-19-finalize-on, lz4-default-raw-off). Sizes: bytes, or with B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
Thresholds can also come from sstkit.config.json or the "sstkit" key of package.json ({"checkSize": {"maxIncrease": "1%", "budgets": {"stored": "64MiB"}}}); flags override them.
Exit codes: 0 within limits, 1 a regression (or a missing file), 2 a usage or I/O error: unreadable or malformed baseline, schema mismatch, a zstd version change (unless --allow-version-change), an SST that cannot be read.
Output: a table (worst first), or Markdown (--format markdown, or --markdown), or --json; --junit FILE writes JUnit XML (one test case per file × configuration). The Markdown is appended to $GITHUB_STEP_SUMMARY when it is set, and under GITHUB_ACTIONS=true each failing row is also an ::error annotation (growth within limits: ::warning).`

  static override examples = [
    {
      description: 'Fail when any file grows more than 1% under any configuration:',
      command: '<%= config.bin %> <%= command.id %> testdata/db/ --baseline sstkit-baseline.json --max-increase 1%',
    },
    {
      description: 'Ignore changes under 64 bytes; absolute budgets for the stored files and zstd level 3:',
      command: '<%= config.bin %> <%= command.id %> --min-change-bytes 64 --budget stored=64MiB --budget zstd-3-none-off=48MiB',
    },
    {
      description: 'CI: JUnit for the test dashboard, Markdown for a PR comment:',
      command: '<%= config.bin %> <%= command.id %> --max-increase 0.5% --junit sst-size.xml --markdown > sst-size.md',
    },
  ]

  static override strict = false
  static override args = {
    files: Args.string({ description: "SST files or directories of .sst files; NAME=PATH gives a stable name (default: the baseline's files)." }),
  }

  static override flags = {
    baseline: Flags.string({ char: 'b', description: `Baseline file (default: checkSize.baseline from the config file, else ${DEFAULT_BASELINE}).` }),
    'max-increase': Flags.string({ description: 'Fail a row that grew by more than this percentage of its baseline size, e.g. 1% or 0.25%.' }),
    'max-increase-bytes': Flags.string({ description: 'Fail a row that grew by more than this many bytes (units allowed: 4KiB).' }),
    'min-change-bytes': Flags.string({ description: 'Treat changes smaller than this many bytes as unchanged (default 0: every byte counts).' }),
    budget: Flags.string({
      description:
        'Absolute budget [FILE:]CONFIG=SIZE, e.g. stored=64MiB, zstd-3-none-off=10MB, users.sst:stored=512KiB, *=1GB (every configuration). Repeatable or comma-separated.',
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ',',
    }),
    metric: Flags.string({
      description: 'The byte count compared: file (whole file), data (data + dictionary blocks), index or filter. Default: file.',
      options: [...METRICS],
    }),
    'allow-missing': Flags.boolean({ description: 'Baseline files that were not measured are a warning, not a failure.', allowNo: true }),
    'allow-version-change': Flags.boolean({ description: 'Compare even though the zstd library differs from the one the baseline was taken with.' }),
    config: Flags.string({ description: 'Config file (default: sstkit.config.json, or the "sstkit" key of package.json).' }),
    format: Flags.string({ description: 'Output format (as layout and recompress spell it).', options: ['table', 'markdown'], default: 'table' }),
    markdown: Flags.boolean({ description: 'Print the report as GitHub-flavoured Markdown (the same as --format markdown).' }),
    wide: Flags.boolean({
      description: 'Show why each row passed or failed in a column of the table (default: a line under the table), and the change in bytes.',
    }),
    bytes: Flags.boolean({ description: 'Exact byte counts in the table instead of KiB/MiB (JSON, JUnit and Markdown always have them).' }),
    junit: Flags.string({ description: 'Also write a JUnit XML report to this file.' }),
    jobs: Flags.integer({ description: 'Worker threads (default: all cores). Sizes do not depend on it.', min: 1 }),
  }

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(CheckSize)
    const plan = planCheck({
      files: argv as string[],
      baseline: flags.baseline,
      config: flags.config,
      thresholds: flags,
      allowVersionChange: flags['allow-version-change'],
      jobs: flags.jobs ?? availableParallelism(),
    })
    for (const w of plan.warnings) this.warn(w)
    const { measured, failed } = await measureFiles(plan.files, plan.options, false, (f, e) => this.reportFileError(f.path, e, 'opening'))
    const result = compare(plan.baseline.files, measured, failed, plan.thresholds)
    if (result.failed) this.raise(ExitCode.Finding)
    if (result.errored) this.raise(ExitCode.Usage)
    const ctx: CheckContext = { baselinePath: plan.baselinePath, thresholds: plan.thresholds, warnings: plan.versionWarnings, configSource: plan.config.source }

    const published = publishCheck(result, ctx, flags.junit, this.jsonEnabled())
    for (const w of published.warnings) this.warn(w)
    for (const e of published.errors) {
      process.stderr.write(`sstkit: ${e}\n`)
      this.raise(ExitCode.Usage)
    }
    if (this.jsonEnabled()) return checkJson(result, ctx)
    if (flags.markdown || flags.format === 'markdown') {
      this.log(renderMarkdown(result, ctx))
      return undefined
    }
    for (const w of plan.versionWarnings) process.stderr.write(`sstkit: warning: ${w}\n`)
    if (result.rows.length > 0) {
      // The table fits 100 columns: reasons go under it, the change in bytes is After - Before (both in the table with --wide).
      const wide = flags.wide === true
      this.log(renderTable(checkModel(result, { human: true, bytes: flags.bytes, reasons: wide, change: wide }), 'table', this.tty))
      if (!flags.wide) for (const r of result.rows) if (r.reason) this.log(`  ${r.name} ${r.config}: ${r.reason}`)
    }
    for (const n of result.notes) this.log(`note: ${n}`)
    this.log(summaryLine(result))
    this.log(`${limitsLine(plan.thresholds)}.`)
    return undefined
  }
}
