import { Args, Flags } from '@oclif/core'
import { ExitCode, isBlobFile, SstCommand, writeAllSync } from '../cli/sst-command.js'
import { blobLayoutJson, blobLayoutText } from '../report/blob.js'
import { FileReportStream } from '../report/file-reports.js'
import { LayoutJsonStream, type LayoutRun, writeTableBlocks, writeTableTotals } from '../report/layout.js'
import { LineWriter } from '../report/line-writer.js'
import type { TableFormat } from '../report/table.js'

/**
 * Readahead window of the block walk. A 1 MiB window outlives enough scavenges to reach V8's old
 * space, where it stays until a full GC: memory then grew with the file (30 MB of dead windows at
 * 80k blocks); 64 KiB windows die young and RSS stays flat.
 */
const READAHEAD = 64 * 1024

export default class Layout extends SstCommand {
  static override description =
    `List every block of SST files in file order: kind, offset, size on disk, compression, uncompressed size, checksum; then totals per kind and the number of blocks, the footer included (as verify counts them).
Kinds: data, index, index partition, filter, filter partition, range-del, compression dictionary, properties, metaindex, footer, and gap (bytes no block accounts for). Sizes in KiB/MiB (--bytes: exact bytes; CSV and --json always exact). The table fits 100 columns; --wide adds meta block names; CSV and Markdown have every column. Blocks print as they are read: any number of them in memory that does not grow.
Exits 1 if any block is unreadable or fails its checksum.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/sample.sst',
    '<%= config.bin %> <%= command.id %> examples/sample.sst --summary',
    '<%= config.bin %> <%= command.id %> examples/sample.sst --format csv > blocks.csv',
  ]

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  static override flags = {
    summary: Flags.boolean({ description: 'Only the totals per block kind.' }),
    decompress: Flags.boolean({
      description: 'Decompress every block to measure it (default: read sizes from the block framing where recorded).',
    }),
    format: Flags.string({ description: 'Table format.', options: ['table', 'csv', 'markdown'], default: 'table' }),
    wide: Flags.boolean({ description: 'Add the Name column (meta block names) to the table.' }),
    bytes: Flags.boolean({ description: 'Exact byte counts instead of KiB/MiB (CSV and JSON always have them).' }),
  }

  async run(): Promise<undefined> {
    const { argv, flags } = await this.parse(Layout)
    const files = this.expandFiles(argv as string[], { blobFiles: true })
    const run: LayoutRun = {
      view: { format: flags.format as TableFormat, wide: flags.wide, bytes: flags.bytes },
      summary: flags.summary,
      decompress: flags.decompress ?? false,
      tty: this.tty,
    }
    const out = new LineWriter((bytes) => writeAllSync(1, bytes))
    const write = (s: string) => out.text(s)
    const json = this.jsonEnabled()
    const reports = new FileReportStream(write, json, files.length > 1)
    const jsonStream = json ? new LayoutJsonStream(write, reports.indent) : undefined
    for (const file of files) {
      if (isBlobFile(file)) {
        // A blob file: header, records summary and footer (not blocks), in one piece.
        if (json) reports.nextEntry()
        const blob = this.openBlob(file)
        if (!blob) {
          if (json) reports.entry(this.failure(file))
          continue
        }
        try {
          const j = blobLayoutJson(file, blob)
          if (j.problems.length > 0) this.raise(ExitCode.Finding)
          if (json) reports.entry(j)
          else {
            reports.nextText()
            write(`${blobLayoutText(j)}\n`)
          }
        } catch (e) {
          out.flush()
          const failure = this.reportFileError(file, e, 'opened')
          if (json) reports.entry(failure)
        } finally {
          blob.close()
        }
        continue
      }
      const table = this.open(file, { verifyChecksums: true, readahead: READAHEAD })
      if (!table) {
        if (json) {
          reports.nextEntry()
          reports.entry(this.failure(file))
        }
        continue
      }
      try {
        if (json) reports.nextEntry()
        else reports.nextText(file, run.view.format !== 'csv')
        const walk = writeTableBlocks(table, file, run, jsonStream, write, (error) => {
          out.flush()
          return this.reportFileError(file, error, 'opened').error
        })
        if (!walk) continue
        if (walk.problems > 0) this.raise(ExitCode.Finding)
        if (!json) writeTableTotals(walk, run, write)
      } catch (e) {
        out.flush()
        this.reportFileError(file, e, 'opened')
      } finally {
        table.close()
      }
    }
    reports.end()
    out.flush()
    return undefined
  }
}
