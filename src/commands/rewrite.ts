import { Args } from '@oclif/core'
import { statSync } from 'node:fs'
import { rewriteFlags, rewriteOptions } from '../cli/rewrite-flags.js'
import { progressLine } from '../cli/progress.js'
import { ExitCode, type FileErrorJson, SstCommand } from '../cli/sst-command.js'
import { isFileError } from '../errors.js'
import { RewriteError, rewriteFile, type RewriteResult } from '../index.js'
import { rewriteModel } from '../report/rewrite.js'
import { renderTable } from '../report/table.js'
import { rewriteTargets } from '../rewrite/plan.js'
import { isUnopenableInput } from '../rewrite/rewrite.js'
import { keepYoungGenerationSmall } from '../util/garbage.js'

export default class Rewrite extends SstCommand {
  static override description =
    `Write a new SST with the same entries (keys, sequence numbers, types, values, range tombstones) in a new physical form: compression type and level, dictionary, zstd frame checksum, block size, format_version, checksum type, index kind.
The input is verified first: one that \`verify\` flags is refused (exit 1) unless --salvage keeps the blocks that still read and says what it dropped; one that is not an SST at all exits 2. The output is written to a temporary file next to OUT, read back and compared entry by entry with what was written (--no-verify skips this), then renamed into place; on any failure no partial OUT is left behind. A full filter is carried over unchanged (it depends only on the keys); a partitioned filter is dropped, with a note. The output's unique ID gets a fresh session ID so that it never shares block-cache keys with its input.
--ingestible writes a file RocksDB's IngestExternalFile accepts (what SstFileWriter writes): the newest entry of each user key at sequence number 0, range tombstones kept, the external-file properties; older versions and what needs the merge operator are dropped, with notes.`

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
    { description: 'A directory of SSTs into another directory:', command: '<%= config.bin %> <%= command.id %> db/ -o /tmp/db-lz4 --compression lz4' },
  ]

  static override args = {
    input: Args.string({ description: 'An SST file, or a directory of .sst files', required: true }),
  }

  static override flags = rewriteFlags

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Rewrite)
    const options = this.usage(() => rewriteOptions(flags))
    const pairs = this.usage(() => rewriteTargets(args.input, flags.output))

    // Seconds of work per file on this thread: a small young generation is ~35 MB less peak RSS.
    keepYoungGenerationSmall()
    const results: (RewriteResult | FileErrorJson)[] = []
    const progress = progressLine(process.stderr.isTTY && !this.jsonEnabled() && pairs.length > 1)
    pairs.forEach(([input, output], i) => {
      progress.show(`[${i + 1}/${pairs.length}] ${input}`)
      try {
        const r = rewriteFile(input, output, options)
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
        if (e instanceof RewriteError || isFileError(e)) results.push(this.reportFileError(input, e, isUnopenableInput(e) ? 'opening' : 'opened'))
        else throw e
      }
    })
    progress.clear()
    if (this.jsonEnabled()) return pairs.length === 1 && !statSync(args.input).isDirectory() ? results[0] : results
    const written = results.filter((r): r is RewriteResult => !('error' in r))
    if (written.length > 0) this.log(renderTable(rewriteModel(written), 'table', this.tty))
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
