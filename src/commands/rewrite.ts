import { Args } from '@oclif/core'
import { statSync } from 'node:fs'
import type { ColumnFamilyAdvice } from '../types/advice.js'
import { advisedOptionsFile, applyBlockSizes } from '../db/apply-options.js'
import { type RewriteFlagValues, rewriteFlags, rewriteOptions } from '../cli/rewrite-flags.js'
import { progressBar, progressLine } from '../cli/progress.js'
import { ExitCode, isBlobFile, type FileErrorJson, SstCommand } from '../cli/sst-command.js'
import { isFileError, NotSupportedError } from '../errors.js'
import { RewriteError, type RewriteResult } from '../rewrite/rewrite.js'
import { BLOB_NOT_REWRITTEN } from '../report/blob.js'
import { rewriteDbModel, rewriteDbSummary, rewriteModel } from '../report/rewrite.js'
import { dbOptionsFrom } from '../db/options.js'
import { parseOptionsFile } from '../format/options-file.js'
import { type DbRewriteResult, defaultOptionsText, isDatabaseInput, newestOptionsText, rewriteDatabase } from '../rewrite/database.js'
import { readDbAdvice } from '../rewrite/db-advice.js'
import { renderTable } from '../report/table.js'
import { rewriteTargets } from '../rewrite/plan.js'
import type { RewriteOptions } from '../rewrite/rewrite.js'
import { isUnopenableRewriteInput, RewriteThread } from '../rewrite/thread.js'

export default class Rewrite extends SstCommand {
  static override description =
    `Write a new SST with the same entries (keys, sequence numbers, types, values, range tombstones) in a new physical form: compression type and level, dictionary, zstd frame checksum, block size, format_version, checksum type, index kind.
The input is verified first: one that \`verify\` flags is refused (exit 1) unless --salvage keeps the blocks that still read and says what it dropped; one that is not an SST at all exits 2. The output is written to a temporary file next to OUT, read back and compared entry by entry with what was written (--no-verify skips this), then renamed into place; on any failure no partial OUT is left behind. A full filter is carried over unchanged (it depends only on the keys); a partitioned filter is dropped, with a note. The output's unique ID gets a fresh session ID so that it never shares block-cache keys with its input.
--ingestible writes a file RocksDB's IngestExternalFile accepts (what SstFileWriter writes): the newest entry of each user key at sequence number 0, range tombstones kept, the external-file properties; older versions and what needs the merge operator are dropped, with notes.
A database directory (one holding CURRENT) becomes a new database OUT: every live table of every column family rewritten on its level with the same entries, sequence numbers and key ranges (--advice: each level's recommended setting from \`sstkit advise --json\`; else the flags for every level; --format-version: each table's own, 5 where below 2), blob files copied, or written again under the advice's blob_compression_type with every blob index moved to its new offset, write-ahead logs copied (RocksDB replays them on open), the newest OPTIONS file with the advice applied, a new IDENTITY and a MANIFEST written from scratch. A LevelDB database becomes a RocksDB one; old formats RocksDB 11 no longer reads are written anew. OUT must not exist (--force: an empty directory); it is written beside and renamed into place; the source is only read (no LOCK).`

  static override examples = [
    {
      description: 'The setting recompress found best:',
      command: '<%= config.bin %> <%= command.id %> examples/sample.sst -o /tmp/sample-zstd19.sst --compression zstd --level 19 --dict finalize',
    },
    {
      description: 'Newest format, XXH3 checksums, 16 KiB blocks:',
      command: '<%= config.bin %> <%= command.id %> in.sst -o out.sst --format-version 7 --checksum-type xxh3 --block-size 16384',
    },
    {
      description: 'A file from a live DB, made ingestible (ldb ingest_extern_sst, IngestExternalFile):',
      command: '<%= config.bin %> <%= command.id %> db/000012.sst -o /tmp/000012-ingest.sst --ingestible',
    },
    { description: 'A directory of SSTs into another directory:', command: '<%= config.bin %> <%= command.id %> ssts/ -o /tmp/ssts-lz4 --compression lz4' },
    {
      description: 'A whole database (it holds CURRENT) with the advice applied, per column family and level:',
      command: '<%= config.bin %> advise db --json > advice.json && <%= config.bin %> <%= command.id %> db -o db-advised --advice advice.json',
    },
  ]

  static override args = {
    input: Args.string({ description: 'An SST file, a directory of .sst files, or a database directory (one holding CURRENT)', required: true }),
  }

  static override flags = rewriteFlags

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Rewrite)
    if (isDatabaseInput(args.input)) return this.rewriteDb(args.input, flags)
    if (flags.advice !== undefined || flags.jobs !== undefined) {
      this.fail(
        `--${flags.advice !== undefined ? 'advice' : 'jobs'} needs a database directory (one holding CURRENT); ${args.input} is not one`,
        ExitCode.Usage,
      )
    }
    const options = this.usage(() => rewriteOptions(flags))
    const pairs = this.usage(() => rewriteTargets(args.input, flags.output))

    const results: (RewriteResult | FileErrorJson)[] = []
    const progress = progressLine(process.stderr.isTTY && !this.jsonEnabled() && pairs.length > 1)
    // Files are written on a worker thread: a signal meanwhile is handled at once (rewrite/thread.ts).
    const thread = new RewriteThread()
    try {
      for (const [i, [input, output]] of pairs.entries())
        await this.rewriteOne(thread, input, output, options, results, progress, `[${i + 1}/${pairs.length}] ${input}`)
    } finally {
      await thread.close()
    }
    progress.clear()
    if (this.jsonEnabled()) return pairs.length === 1 && !statSync(args.input).isDirectory() ? results[0] : results
    const written = results.filter((r): r is RewriteResult => !('error' in r))
    if (written.length > 0) this.log(renderTable(rewriteModel(written), 'table', this.tty))
    return undefined
  }

  private async rewriteOne(
    thread: RewriteThread,
    input: string,
    output: string,
    options: RewriteOptions,
    results: (RewriteResult | FileErrorJson)[],
    progress: ReturnType<typeof progressLine>,
    label: string,
  ): Promise<void> {
    progress.show(label)
    if (isBlobFile(input)) {
      results.push(this.reportFileError(input, new NotSupportedError(BLOB_NOT_REWRITTEN), 'opening'))
      return
    }
    try {
      const r = await thread.rewrite(input, output, options)
      results.push(r)
      // Damage in the input is a finding even when what still reads was written.
      if (r.salvaged) this.raise(ExitCode.Finding)
      for (const n of r.notes) {
        progress.clear()
        process.stderr.write(`sstkit: ${input}: note: ${n}\n`)
      }
    } catch (e) {
      progress.clear()
      // RewriteError's kind says usage (would overwrite), io (cannot write) or corruption (verification failed).
      if (e instanceof RewriteError || isFileError(e)) results.push(this.reportFileError(input, e, isUnopenableRewriteInput(e) ? 'opening' : 'opened'))
      else throw e
    }
  }

  /** A whole database (rewrite/database.ts): every live table on its level, a new MANIFEST, OPTIONS, IDENTITY. */
  private async rewriteDb(input: string, flags: RewriteFlagValues & { output: string }): Promise<DbRewriteResult | undefined> {
    for (const f of ['ingestible', 'keep-blocks'] as const) if (flags[f]) this.fail(`--${f} rewrites single files, not a database`, ExitCode.Usage)
    const base = this.usage(() => rewriteOptions(flags))
    const advice = flags.advice === undefined ? null : this.usage(() => readDbAdvice(flags.advice as string))
    const given = (name: string) => this.argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`))
    const blockSizeFromOptions = !given('block-size') && !given('restart-interval')
    const progress = progressLine(process.stderr.isTTY && !this.jsonEnabled())
    let result: DbRewriteResult
    try {
      result = await rewriteDatabase(input, flags.output, {
        base,
        advice,
        blockSizeFromOptions,
        optionsText: (view) => {
          const text = newestOptionsText(view) ?? defaultOptionsText(view)
          if (!advice) return text
          const today = view.options ?? dbOptionsFrom(parseOptionsFile(text), 'OPTIONS')
          const advised = advisedOptionsFile(text, today, advice.options as ColumnFamilyAdvice[]).text
          if (!blockSizeFromOptions) return advised
          const blockSizes = [...advice.blockSizes].map(([columnFamily, b]) => ({ columnFamily, ...b }))
          return applyBlockSizes(advised, today.path, blockSizes)
        },
        force: flags.force,
        jobs: flags.jobs,
        onProgress: (p) => progress.show(progressBar(`[${p.filesDone}/${p.files}] ${p.current}`, p.bytesDone, p.bytes)),
      })
    } catch (e) {
      progress.clear()
      if (e instanceof RewriteError) this.fail(e.message, e.code === 'usage' ? ExitCode.Usage : e.code === 'corruption' ? ExitCode.Finding : ExitCode.Usage)
      throw e
    }
    progress.clear()
    if (result.salvaged.length > 0) this.raise(ExitCode.Finding)
    if (this.jsonEnabled()) return result
    this.log(renderTable(rewriteDbModel(result), 'table', this.tty))
    for (const line of rewriteDbSummary(result)) this.log(line)
    for (const n of result.notes) process.stderr.write(`sstkit: note: ${n}\n`)
    return undefined
  }

  /** Settings and targets are checked before anything is written: a problem is one line, exit 2. */
  private usage<T>(f: () => T): T {
    try {
      return f()
    } catch (e) {
      if (!(e instanceof RewriteError)) throw e
      process.stderr.write(`sstkit: ${e.message}\n`)
      this.exit(ExitCode.Usage)
    }
  }
}
