import { Args } from '@oclif/core'
import { type PropsResult, propsReport } from '../entry/props-main.js'
import { SstCommand } from '../cli/sst-command.js'

export default class Props extends SstCommand {
  static override description = 'Show footer facts (magic, format_version, checksum type) and every table property of SST files.'

  static override examples = ['<%= config.bin %> <%= command.id %> examples/sample.sst', '<%= config.bin %> <%= command.id %> db/ --json']

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  // `props [--json] PATH...` usually runs without oclif (bin/run.js, src/entry/props-main.ts); this is every other form.
  async run(): Promise<PropsResult> {
    const { argv } = await this.parse(Props)
    return propsReport(this.files, argv as string[], this.jsonEnabled(), (line) => this.log(line))
  }
}
