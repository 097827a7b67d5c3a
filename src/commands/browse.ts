import { Args } from '@oclif/core'
import { statSync } from 'node:fs'
import { ExitCode, type FileErrorJson, isBlobFile, SstCommand } from '../cli/sst-command.js'
import { NotSupportedError } from '../errors.js'
import { blobNotBrowsed } from '../report/blob.js'
import { BrowseModel, type BrowseJson, overviewJson } from '../tui/model.js'
import { browseInTerminal, notInteractive } from '../tui/terminal.js'

export type { BrowseJson } from '../tui/model.js'

export default class Browse extends SstCommand {
  static override description =
    `Browse an SST file interactively in the terminal: an overview (footer, grouped properties, where the bytes go), every block in file order, and the entries with their values (text or hex; blob indexes and wide columns decoded), with seek by key.
Needs an interactive terminal. Without one (piped, CI) it exits 2: use scan, layout or props there. With --json it prints the overview as JSON (props --json plus the byte split) and exits, terminal or not.
Keys: arrows or j/k, PgUp/PgDn, g/G, Tab next pane, Enter open, Esc back, / seek, x hex, h or ? help, q quit.`

  static override examples = ['<%= config.bin %> <%= command.id %> examples/sample.sst', '<%= config.bin %> <%= command.id %> examples/sample.sst --json']

  static override args = {
    file: Args.string({ description: 'SST file to browse', required: true }),
  }

  async run(): Promise<BrowseJson | FileErrorJson | undefined> {
    const { args } = await this.parse(Browse)
    const file = args.file
    if (isDirectory(file)) this.fail(`browse takes one file; ${file} is a directory (sstkit layout ${file} lists its files' blocks)`, ExitCode.Usage)
    // A blob file: one line naming the commands that read it (exit 2), terminal or not.
    if (isBlobFile(file)) return this.reportFileError(file, new NotSupportedError(blobNotBrowsed(file)), 'opening')
    if (this.jsonEnabled()) {
      const table = this.open(file)
      // As every command's --json: the file's error entry, not nothing.
      if (!table) return this.failure(file)
      try {
        return overviewJson(file, table)
      } finally {
        table.close()
      }
    }
    const which = notInteractive()
    if (which) {
      // One line, like every sstkit error, naming the commands that work without a terminal.
      process.stderr.write(
        `sstkit: browse needs an interactive terminal (${which} is not one); use \`sstkit scan ${file}\` (entries), \`sstkit layout ${file}\` (blocks) or \`sstkit props ${file}\` (properties) instead, or \`browse --json\` for the overview\n`,
      )
      this.raise(ExitCode.Usage)
      return undefined
    }
    const table = this.open(file, { verifyChecksums: true })
    if (!table) return undefined
    const model = new BrowseModel(file, table, { background: false })
    try {
      await browseInTerminal(model)
    } finally {
      model.close()
      table.close()
    }
    return undefined
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false // opening it says why
  }
}
