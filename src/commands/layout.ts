import { Args, Flags } from '@oclif/core'
import { SstCommand, ExitCode } from '../cli/sst-command.js'
import { printableLine } from '../errors.js'
import { type TableLayout, tableLayout } from '../reader.js'
import { blocksModel, type LayoutJson, layoutJson, totalsModel } from '../report/layout.js'
import { renderTable, type TableFormat } from '../report/table.js'

/** `problem: <kind> at offset N: <what>` for each block that could not be read or failed its checksum. */
function problemLines(layout: TableLayout): string[] {
  return layout.blocks
    .filter((b) => b.problem)
    .map((b) => {
      // A block outside the file has no offset to give: its message names the handle that claims it.
      const at = b.offset + b.sizeOnDisk <= layout.fileSize ? ` at offset ${b.offset}` : ''
      return printableLine(`problem: ${b.kind}${b.name && b.name !== b.kind ? ` (${b.name})` : ''}${at}: ${b.problem}`)
    })
}

export default class Layout extends SstCommand {
  static override description =
    `List every block of SST files in file order: kind, offset, size on disk, compression, uncompressed size, checksum; then totals per kind.
Kinds: data, index, index partition, filter, filter partition, range-del, compression dictionary, properties, metaindex, footer, and gap (bytes no block accounts for). Exits 1 if any block is unreadable or fails its checksum.`

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
  }

  async run(): Promise<LayoutJson | LayoutJson[] | undefined> {
    const { argv, flags } = await this.parse(Layout)
    const files = this.expandFiles(argv as string[])
    const results: LayoutJson[] = []
    for (const file of files) {
      const table = this.open(file, { verifyChecksums: true })
      if (!table) continue
      try {
        const layout = tableLayout(table, { decompress: flags.decompress ?? false, summaryOnly: flags.summary })
        const j = layoutJson(file, layout, flags.summary)
        results.push(j)
        if (j.problems > 0) this.raise(ExitCode.Finding)
        if (this.jsonEnabled()) continue
        const format = flags.format as TableFormat
        if (files.length > 1) this.log(`${file}:`)
        if (!flags.summary) this.log(renderTable(blocksModel(layout), format, this.tty))
        this.log(renderTable(totalsModel(layout), format, this.tty))
        // The totals do not show which block is bad: one line per problem says so.
        if (flags.summary) for (const line of problemLines(layout)) this.log(line)
      } catch (e) {
        this.reportFileError(file, e, 'opened')
      } finally {
        table.close()
      }
    }
    if (!this.jsonEnabled()) return undefined
    return files.length === 1 ? results[0] : results
  }
}
