import { adviseBlobs, mergeBlobAdvice } from '../advise/blob.js'
import { Args } from '@oclif/core'
import { readFileSync } from 'node:fs'
import { adviseFlags, formatConflict, parseAdviseFlags } from '../cli/advise-flags.js'
import { progressLine } from '../cli/progress.js'
import { COMPRESSION_DEFAULTS, defaultTrainBytes } from '../codec/setting.js'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import { adviseGroups } from '../advise/engine.js'
import { mergeAdvice } from '../advise/merge.js'
import { heldToOriginal, resolveInputs } from '../advise/inputs.js'
import { measureWorkload } from '../advise/workload.js'
import { levelDbAdvice } from '../advise/leveldb.js'
import type { Advice } from '../types/advice.js'
import { addOptionsChanges, advisedOptionsFile } from '../db/apply-options.js'
import { optionsRelease } from '../db/option-syntax.js'
import { writeFileAtomic } from '../util/temp-file.js'
import { parseSize } from '../util/units.js'
import { keepYoungGenerationSmall } from '../util/garbage.js'

export default class Advise extends SstCommand {
  static override description = `Recommend the compression settings of a RocksDB database, per column family and level, with evidence.
Reads the database as RocksDB opens it (CURRENT, the MANIFEST's live files per column family and level, the newest OPTIONS file), samples data blocks of every level, compresses them under each setting exactly as RocksDB's table builder would (each file's own dictionary, the max_compressed_bytes_per_kb rule), and estimates each level's bytes with a 95% confidence interval (a regression estimator over blocks, against their size on disk today). Sampling stops per level at --precision, or when --time-budget is spent. Then it picks, per level, the setting the --objective asks for, the runner-up and why, and prints the RocksDB options to set in OPTIONS-file syntax.
Plain SST files or directories of them are grouped by the column family their properties name; their levels are unknown, so each column family gets one setting.`

  static override examples = [
    { description: 'A RocksDB database directory:', command: '<%= config.bin %> <%= command.id %> examples/db' },
    { description: 'Plain files, grouped by column family:', command: '<%= config.bin %> <%= command.id %> a.sst b.sst dir/' },
    {
      description: 'A pull-request comment within a minute, favouring size:',
      command: '<%= config.bin %> <%= command.id %> /var/lib/mydb --time-budget 60s --objective size --format markdown > advice.md',
    },
    { description: 'A self-contained HTML page with charts:', command: '<%= config.bin %> <%= command.id %> examples/db --report advice.html' },
    {
      description: 'Explicit limits instead of an objective:',
      command: '<%= config.bin %> <%= command.id %> examples/db --max-compress-cpu-ratio 2 --min-decompress-mbps 500',
    },
    {
      description: 'The least compression CPU that keeps the database within 80% of its bytes today (or --max-bytes 500MiB):',
      command: '<%= config.bin %> <%= command.id %> examples/db --max-bytes 80%',
    },
    {
      description: 'Four machines, each next to its share of the files (shard 0/4 here; 1/4, 2/4 and 3/4 on the others):',
      command: '<%= config.bin %> <%= command.id %> DB --sample 5% --shard 0/4 --json > part0.json',
    },
    {
      description: 'Then one advice from the four parts:',
      command: '<%= config.bin %> <%= command.id %> --merge part0.json part1.json part2.json part3.json',
    },
  ]

  static override strict = false
  static override args = {
    paths: Args.string({ description: 'A RocksDB database directory, or SST files and directories of them (with --merge: the JSON parts)', required: true }),
  }

  static override flags = adviseFlags

  async run(): Promise<Advice | undefined> {
    const { argv, flags } = await this.parse(Advise)
    // This thread reads and samples every file, then is a lane: a small young generation is ~35 MB less peak RSS.
    keepYoungGenerationSmall()
    const paths = argv as string[]
    let advice: Advice
    if (flags.merge && flags['write-options']) this.fail('--write-options needs a database directory, not --merge parts', ExitCode.Usage)
    const conflict = formatConflict(flags)
    if (conflict) this.fail(conflict, ExitCode.Usage)
    if (flags.merge) advice = this.merged(paths)
    else {
      // A flag's usage error, or a database or file that cannot be opened as one, is one line with exit 2:
      // SstCommand.catch decides by the error's code (usage, corruption, not-supported, io at opening).
      const parsed = parseAdviseFlags(flags, (spec) => parseSize(spec, '--max-bytes'))
      const inputs = resolveInputs(paths, { pin: true })
      if (inputs.problem) {
        inputs.pin?.release()
        this.fail(inputs.problem, ExitCode.Usage)
      }
      const pin = inputs.pin
      const release = optionsRelease(inputs.source.rocksdbVersion ?? null, flags['rocksdb-version'])
      if ('problem' in release) {
        pin?.release()
        this.fail(release.problem, ExitCode.Usage)
      }
      if (flags['write-options'] && !inputs.options) {
        pin?.release()
        this.fail(
          `--write-options: ${inputs.source.kind === 'database' ? `${paths[0]} has no OPTIONS file to apply the advice to` : 'needs a database directory (its newest OPTIONS file)'}`,
          ExitCode.Usage,
        )
      }
      // Nothing can be read: one line, a finding, and no report of empty tables.
      if (inputs.finding) {
        inputs.pin?.release()
        this.fail(inputs.finding, ExitCode.Finding)
      }
      const progress = progressLine(process.stderr.isTTY && !this.jsonEnabled())
      try {
        advice = await adviseGroups(inputs.groups, {
          ...parsed,
          jobs: flags.jobs,
          seed: flags.seed,
          dict: {
            maxDictBytes: flags['max-dict-bytes'],
            trainBytes: defaultTrainBytes(flags['max-dict-bytes']),
            maxDictBufferBytes: flags['max-dict-buffer-bytes'],
          },
          maxCompressedBytesPerKb: COMPRESSION_DEFAULTS.maxCompressedBytesPerKb,
          dynamicLevels: inputs.dynamicLevels,
          source: { ...inputs.source, rocksdbVersion: release.source },
          rocksdbVersion: release.version,
          // the write rate per level, from the database's info LOGs (plain files have none)
          workload: inputs.source.kind === 'database' ? measureWorkload(paths[0]) : null,
          onProgress: (m) => progress.show(m),
          // Without a --time-budget of its own, a small database answers at once.
          smallAtOnce: !this.argv.some((a) => a === '--time-budget' || a.startsWith('--time-budget=')),
          // The budget counts from the process's start (performance.now()'s origin): reading the MANIFEST is part of it.
          startedAt: 0,
        })
      } catch (e) {
        // A message naming a held (linked) file names the database's own.
        if (pin && e instanceof Error) e.message = pin.originalPaths(e.message)
        pin?.release()
        throw e
      }
      progress.clear()
      // blob_compression_type per column family with blob files (advise/blob.ts)
      adviseBlobs(advice, inputs.blobColumnFamilies ?? [], { objective: parsed.objective, rocksdbVersion: release.version })
      if (pin) advice = heldToOriginal(advice, pin)
      advice.notes.unshift(...parsed.notes, ...inputs.notes, ...release.notes)
      advice.problems.unshift(...inputs.problems)
      if (inputs.options) addOptionsChanges(advice.columnFamilies, inputs.options.parsed)
      if (flags['write-options'] && inputs.options) {
        const { text, note } = advisedOptionsFile(inputs.options.text, inputs.options.parsed, advice.columnFamilies)
        if (note) advice.notes.push(note)
        writeFileAtomic(flags['write-options'], text)
      }
      const liveFiles = inputs.groups.reduce((n, g) => n + g.files.length, 0)
      const advised = advice.columnFamilies.reduce((n, cf) => n + cf.levels.reduce((m, l) => m + l.files, 0), 0)
      if (liveFiles > 0 && advised === 0) {
        const first = advice.problems[0]
        const { problemLine } = await import('../report/advise.js')
        const why = first ? `; the first, ${problemLine(first)}` : ''
        this.fail(`every live file (${liveFiles}) was left out, nothing to advise on${why}`, ExitCode.Finding)
      }
    }
    // LevelDB's one option, from the evaluation (also of merged shards).
    if (advice.source.engine === 'leveldb') advice.leveldb = levelDbAdvice(advice)
    if (advice.problems.length) {
      const { problemLine } = await import('../report/advise.js')
      for (const p of advice.problems) process.stderr.write(`sstkit: ${problemLine(p)}\n`)
      this.raise(ExitCode.Finding)
    }
    if (flags.report) {
      const { renderAdviceHtml } = await import('../report/advise-html.js')
      writeFileAtomic(flags.report, renderAdviceHtml(advice))
    }
    if (this.jsonEnabled()) return advice
    const { renderAdviceMarkdown, renderAdviceText } = await import('../report/advise.js')
    this.log(flags.format === 'markdown' ? renderAdviceMarkdown(advice) : renderAdviceText(advice, { ...this.tty, bytes: flags.bytes, wide: flags.wide }))
    if (flags.report) this.log(`report written to ${flags.report}`)
    return undefined
  }

  private merged(paths: string[]): Advice {
    const parts: Advice[] = []
    for (const p of paths) {
      try {
        parts.push(JSON.parse(readFileSync(p, 'utf8')) as Advice)
      } catch (e) {
        this.fail(
          `--merge: cannot read ${p}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not an advise --json output'}`,
          ExitCode.Usage,
        )
      }
    }
    // Parts that do not fit together are a usage error (MergeError), one line with exit 2 from SstCommand.catch.
    const merged = mergeAdvice(parts)
    mergeBlobAdvice(merged, parts)
    return merged
  }
}
