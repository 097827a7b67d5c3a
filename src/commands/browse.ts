import { Args } from '@oclif/core'
import { statSync } from 'node:fs'
import { ExitCode, type FileErrorJson, isBlobFile, SstCommand } from '../cli/sst-command.js'
import { NotSupportedError } from '../errors.js'
import { blobNotBrowsed } from '../report/blob.js'
import type { Table } from '../reader.js'
import { propsJson, type PropsJson } from '../report/props.js'
import { BrowseModel } from '../tui/model.js'
import { drawFrame, frameAnsi, INITIAL } from '../tui/screens.js'

export interface BrowseJson extends PropsJson {
  /** How the file's bytes split between kinds of blocks, from the table properties. */
  bytes: { source: 'properties' | 'layout'; fileSize: number; data: number; index: number; filter: number; meta: number }
}

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
    if (process.stdout.isTTY !== true || process.stdin.isTTY !== true) {
      // One line, like every sstkit error, naming the commands that work without a terminal.
      const which = process.stdout.isTTY === true ? 'stdin' : 'stdout'
      process.stderr.write(
        `sstkit: browse needs an interactive terminal (${which} is not one); use \`sstkit scan ${file}\` (entries), \`sstkit layout ${file}\` (blocks) or \`sstkit props ${file}\` (properties) instead, or \`browse --json\` for the overview\n`,
      )
      this.raise(ExitCode.Usage)
      return undefined
    }
    const table = this.open(file, { verifyChecksums: true })
    if (!table) return undefined
    // ink checks CI variables when it is imported and then draws only the last
    // frame; a person at a terminal (checked above) should get the live screen.
    delete process.env.CI
    delete process.env.CONTINUOUS_INTEGRATION
    // React's production build: smaller to load, no development checks.
    process.env.NODE_ENV ??= 'production'
    // Background loading starts once ink is in: its chunks would otherwise
    // slow down the many small reads of loading ink's modules.
    const model = new BrowseModel(file, table, { background: false })
    const out = process.stdout
    // Paint the first screen now, from what openTable already read, and only
    // then load ink and React (hundreds of milliseconds of module loading on a
    // slow machine). Raw mode at once, so keys typed meanwhile are neither
    // echoed nor lost: ink reads them when it starts.
    out.write(`${ALT_SCREEN_ON}${HIDE_CURSOR}\x1b[H\x1b[2J${frameAnsi(drawFrame(model, { ...INITIAL, message: STARTING }, out.columns, out.rows))}\x1b[H`)
    process.stdin.setRawMode(true)
    try {
      const { runBrowser } = await import('../tui/app.js')
      model.start()
      await runBrowser(model)
    } finally {
      model.close()
      table.close()
      out.write(`${SHOW_CURSOR}${ALT_SCREEN_OFF}`)
    }
    return undefined
  }
}

/** Status line of the first screen, until ink takes over and keys work. */
const STARTING = { text: 'starting… (keys work in a moment)', error: false }

const ALT_SCREEN_ON = '\x1b[?1049h'
const ALT_SCREEN_OFF = '\x1b[?1049l'
const HIDE_CURSOR = '\x1b[?25l'
const SHOW_CURSOR = '\x1b[?25h'

function overviewJson(file: string, table: Table): BrowseJson {
  const split = new BrowseModel(file, table, { background: false }).byteSplit()
  const part = (name: string) => split.parts.find((x) => x.name === name)?.bytes ?? 0
  return {
    ...propsJson(file, table),
    bytes: { source: split.source, fileSize: split.fileSize, data: part('data'), index: part('index'), filter: part('filter'), meta: part('meta') },
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false // opening it says why
  }
}
