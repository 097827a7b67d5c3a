import { Args, Flags } from '@oclif/core'
import { ExitCode, type FileErrorJson, isBlobFile, SstCommand, writeAllSync } from '../cli/sst-command.js'
import { blobLayoutJson, blobLayoutText } from '../report/blob.js'
import { printableLine } from '../errors.js'
import { type LayoutBlock, layoutBlocks, type Table } from '../reader.js'
import { blockCount, blockCountText, LayoutJsonStream, type LayoutView, layoutColumns, layoutNote, layoutRow, totalsModel } from '../report/layout.js'
import { LineWriter } from '../report/line-writer.js'
import { renderTable, TableStream, type TableFormat } from '../report/table.js'
import { LayoutTotalsBuilder, layoutKinds } from '../table/layout.js'

/**
 * Readahead window of the block walk. A 1 MiB window outlives enough scavenges to reach V8's old
 * space, where it stays until a full GC: memory then grew with the file (30 MB of dead windows at
 * 80k blocks); 64 KiB windows die young and RSS stays flat.
 */
const READAHEAD = 64 * 1024

/** Problem lines kept for `--summary` (the totals do not show which block is bad); more are counted. */
const MAX_SUMMARY_PROBLEMS = 100

/** `problem: <kind> at offset N: <what>` for a block that could not be read or failed its checksum. */
function problemLine(b: LayoutBlock, fileSize: number): string {
  // A block outside the file has no offset to give: its message names the handle that claims it.
  const at = b.offset + b.sizeOnDisk <= fileSize ? ` at offset ${b.offset}` : ''
  return printableLine(`problem: ${b.kind}${b.name && b.name !== b.kind ? ` (${b.name})` : ''}${at}: ${b.problem}`)
}

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
    const view: LayoutView = { format: flags.format as TableFormat, wide: flags.wide, bytes: flags.bytes }
    const out = new LineWriter((bytes) => writeAllSync(1, bytes))
    const write = (s: string) => out.text(s)
    const json = this.jsonEnabled()
    const several = files.length > 1
    const jsonStream = new LayoutJsonStream(write, json && several ? '  ' : '')
    let printed = 0
    if (json && several) write('[')
    for (const file of files) {
      if (isBlobFile(file)) {
        // A blob file: header, records summary and footer (not blocks), in one piece.
        const blob = this.openBlob(file)
        if (json) write(printed++ > 0 ? ',\n' : several ? '\n' : '')
        if (!blob) {
          if (json) jsonStream.entry(this.failure(file))
          continue
        }
        try {
          const j = blobLayoutJson(file, blob)
          if (j.problems.length > 0) this.raise(ExitCode.Finding)
          if (json) jsonStream.entry(j)
          else write(`${printed++ > 0 ? '\n' : ''}${blobLayoutText(j)}\n`)
        } catch (e) {
          out.flush()
          const failure = this.reportFileError(file, e, 'opened')
          if (json) jsonStream.entry(failure)
        } finally {
          blob.close()
        }
        continue
      }
      const table = this.open(file, { verifyChecksums: true, readahead: READAHEAD })
      if (!table) {
        if (json) {
          write(printed++ > 0 ? ',\n' : several ? '\n' : '')
          jsonStream.entry(this.failure(file))
        }
        continue
      }
      const totals = new LayoutTotalsBuilder()
      try {
        if (json) {
          write(printed > 0 ? ',\n' : several ? '\n' : '')
          jsonStream.begin(file, table.fileSize)
        } else if (several) write(`${printed > 0 && view.format !== 'csv' ? '\n' : ''}${file}:\n`)
        printed++
        const rows = json || flags.summary ? undefined : this.blockTable(table, view, write)
        const problems: string[] = []
        // A walk that stops part-way keeps what it listed, and its JSON object says why it stopped.
        let stopped: { error: unknown } | undefined
        try {
          for (const b of layoutBlocks(table, { decompress: flags.decompress ?? false })) {
            totals.add(b)
            if (json && (!flags.summary || b.problem)) jsonStream.block(b)
            rows?.row(layoutRow(b, view), layoutNote(b, view))
            if (flags.summary && b.problem && problems.length < MAX_SUMMARY_PROBLEMS) problems.push(problemLine(b, table.fileSize))
          }
        } catch (e) {
          stopped = { error: e }
        } finally {
          rows?.end()
          let error: FileErrorJson['error'] | undefined
          if (stopped) {
            out.flush()
            error = this.reportFileError(file, stopped.error, 'opened').error
          }
          if (json) jsonStream.end(totals.totals, totals.problems, error)
        }
        if (stopped) continue
        if (totals.problems > 0) this.raise(ExitCode.Finding)
        if (!json) {
          if (rows && view.format !== 'csv') write('\n')
          write(`${renderTable(totalsModel(totals.totals, table.fileSize, view), view.format, this.tty)}\n`)
          if (view.format === 'table') write(`${blockCountText(blockCount(totals.totals))}\n`)
          // In Markdown a line right under a table is one more row of it.
          if (view.format === 'markdown' && totals.problems > 0) write('\n')
          for (const line of problems) write(`${line}\n`)
          if (totals.problems > problems.length) write(`... and ${totals.problems - problems.length} more problems\n`)
        }
      } catch (e) {
        out.flush()
        this.reportFileError(file, e, 'opened')
      } finally {
        table.close()
      }
    }
    if (json) write(several ? '\n]\n' : printed > 0 ? '\n' : '')
    out.flush()
    return undefined
  }

  /** The blocks table, its column widths fixed from what the file can hold. */
  private blockTable(table: Table, view: LayoutView, write: (s: string) => void): TableStream {
    const bounds = { fileSize: table.fileSize, kinds: layoutKinds(table), names: table.metaindexEntries.map((e) => e.name) }
    return new TableStream(layoutColumns(view, bounds), view.format, write, this.tty.color)
  }
}
