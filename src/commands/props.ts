import { Args } from '@oclif/core'
import { ExitCode, type FileErrorJson, SstCommand } from '../cli/sst-command.js'
import { type PropsJson, propsJson, propsText } from '../report/props.js'

export default class Props extends SstCommand {
  static override description = 'Show footer facts (magic, format_version, checksum type) and every table property of SST files.'

  static override examples = ['<%= config.bin %> <%= command.id %> examples/sample.sst', '<%= config.bin %> <%= command.id %> db/ --json']

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  async run(): Promise<PropsJson | FileErrorJson | (PropsJson | FileErrorJson)[] | undefined> {
    const { argv } = await this.parse(Props)
    const files = this.expandFiles(argv as string[])
    const results: (PropsJson | FileErrorJson)[] = []
    let printed = 0
    for (const file of files) {
      const table = this.open(file)
      if (!table) {
        results.push(this.failure(file))
        continue
      }
      try {
        const j = propsJson(file, table)
        results.push(j)
        if (j.problems) this.raise(ExitCode.Finding)
        if (!this.jsonEnabled()) {
          if (printed++ > 0) this.log('')
          this.log(propsText(j))
        }
      } catch (e) {
        results.push(this.reportFileError(file, e, 'opened'))
      } finally {
        table.close()
      }
    }
    if (!this.jsonEnabled()) return undefined
    return files.length === 1 ? results[0] : results
  }
}
