import { Args } from '@oclif/core'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { decodeFooter, FOOTER_BYTES } from '../format/footer.js'
import { CorruptionError, openTable, verifyTable } from '../reader.js'

export interface VerifyJson {
  file: string
  ok: boolean
  blocksChecked: number
  dataBlocks: number
  entries: number
  rangeDeletions: number
  problems: { block: string; offset: number | null; message: string }[]
}

export default class Verify extends SstCommand {
  static override description = `Check SST files thoroughly: every block's checksum (data, index and partitions, filter and partitions, meta blocks, and the footer for format_version >= 6), every block decompressed, keys in order, index separators consistent, and the entry count equal to rocksdb.num.entries.
Exit 0 when every file is clean, 1 when anything is wrong, 2 when a file cannot be opened as an SST at all.`

  static override examples = ['<%= config.bin %> <%= command.id %> examples/sample.sst', '<%= config.bin %> <%= command.id %> db/ --json']

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  async run(): Promise<VerifyJson | VerifyJson[] | undefined> {
    const { argv } = await this.parse(Verify)
    const files = this.expandFiles(argv as string[])
    const results: VerifyJson[] = []
    for (const file of files) {
      const r = this.verifyFile(file)
      if (!r) continue
      results.push(r)
      if (!r.ok) this.raise(ExitCode.Finding)
      if (this.jsonEnabled()) continue
      if (r.ok) {
        this.log(`${file}: OK (${r.blocksChecked} blocks, ${r.dataBlocks} data blocks, ${r.entries} entries, ${r.rangeDeletions} range deletions)`)
      } else {
        this.log(`${file}: CORRUPT (${r.problems.length} problem${r.problems.length === 1 ? '' : 's'})`)
        for (const p of r.problems) this.log(`  ${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`)
      }
    }
    if (!this.jsonEnabled()) return undefined
    return files.length === 1 ? results[0] : results
  }

  private verifyFile(file: string): VerifyJson | null {
    let table
    try {
      // Open without checksum verification so that a damaged meta block is
      // reported as a finding alongside everything else, not as a failure to open.
      table = openTable(file, { verifyChecksums: false })
    } catch (e) {
      // A readable footer makes this an SST whose insides are damaged: a finding.
      // No footer (too short, bad magic, ...) or an unsupported kind/feature: cannot open.
      if (e instanceof CorruptionError && footerDecodes(file)) {
        return { file, ok: false, blocksChecked: 0, dataBlocks: 0, entries: 0, rangeDeletions: 0, problems: [{ block: 'table', offset: e.offset ?? null, message: e.message }] }
      }
      this.reportFileError(file, e, 'opening')
      return null
    }
    try {
      return { file, ...verifyTable(table) }
    } finally {
      table.close()
    }
  }
}

/** Whether the file's footer decodes (magic, format_version, handles), whatever the rest holds. */
function footerDecodes(file: string): boolean {
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const size = fstatSync(fd).size
    const n = Math.min(FOOTER_BYTES, size)
    const tail = new Uint8Array(n)
    readSync(fd, tail, 0, n, size - n)
    decodeFooter(tail, size)
    return true
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
