import { Flags } from '@oclif/core'
import { existsSync } from 'node:fs'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import { parseSize } from '../cli/units.js'
import { parseTypes } from '../recompress/config.js'
import { writeSynth } from '../synth/synth.js'

export default class Synth extends SstCommand {
  static override description =
    `Write a synthetic SST (a real one, through sstkit's table writer) whose values mix compressible and incompressible data in a controlled way: each value independently (--run-length 1) or in alternating regions. For evaluating auto-skip and for large benchmark files.`

  static override examples = [
    {
      description: 'Incompressible values, 16 KiB each (about one per block):',
      command: '<%= config.bin %> <%= command.id %> -o /tmp/random.sst --size 64MB --compressible-fraction 0',
    },
    {
      description: 'Half the values compress hard, the others not at all, mixed per value:',
      command: '<%= config.bin %> <%= command.id %> -o /tmp/mix.sst --size 64MB --compressible-fraction 0.5 --compressible-ratio 0.3',
    },
    {
      description: 'Alternating 1000-value regions:',
      command: '<%= config.bin %> <%= command.id %> -o /tmp/regions.sst --size 64MB --compressible-fraction 0.5 --run-length 1000',
    },
  ]

  static override flags = {
    output: Flags.string({ char: 'o', description: 'Output SST.', required: true }),
    size: Flags.string({ description: 'Total value bytes (e.g. 100MB, 512KiB).', default: '64MB' }),
    'value-size': Flags.integer({ description: 'Bytes per value.', default: 16384, min: 1 }),
    'compressible-fraction': Flags.string({ description: 'Share of compressible values, 0..1.', default: '0.5' }),
    'run-length': Flags.integer({ description: 'Values per region (1 = independent per value).', default: 1, min: 1 }),
    'compressible-ratio': Flags.string({
      description: 'A compressible value is this share random bytes, the rest repetitive text (its zstd ratio is about this).',
      default: '0.3',
    }),
    compression: Flags.string({ description: 'Compression of the written file.', default: 'none' }),
    'block-size': Flags.integer({ description: 'Data block size (default: the value size, about one value per block).', min: 64 }),
    seed: Flags.integer({ description: 'Seed of the generator.', default: 1 }),
    force: Flags.boolean({ description: 'Replace an existing output.' }),
  }

  async run(): Promise<unknown> {
    const { flags } = await this.parse(Synth)
    let size = 0
    try {
      size = parseSize(flags.size, '--size')
    } catch (e) {
      this.fail((e as Error).message, ExitCode.Usage)
    }
    if (size <= 0) this.fail(`--size: "${flags.size}" is no bytes at all (e.g. 100MB)`, ExitCode.Usage)
    const fraction = Number(flags['compressible-fraction'])
    const ratio = Number(flags['compressible-ratio'])
    if (!(fraction >= 0 && fraction <= 1)) this.fail('--compressible-fraction must be between 0 and 1', ExitCode.Usage)
    if (!(ratio >= 0 && ratio <= 1)) this.fail('--compressible-ratio must be between 0 and 1', ExitCode.Usage)
    if (existsSync(flags.output) && !flags.force) this.fail(`${flags.output} exists (use --force to replace it)`, ExitCode.Usage)
    let type: number
    try {
      ;[type] = parseTypes(flags.compression)
    } catch (e) {
      this.fail((e as Error).message, ExitCode.Usage)
    }
    const summary = writeSynth(flags.output, {
      sizeBytes: size,
      valueSize: flags['value-size'],
      compressibleFraction: fraction,
      runLength: flags['run-length'],
      compressibleRatio: ratio,
      seed: flags.seed,
      compressionType: type,
      blockSize: flags['block-size'],
    })
    if (this.jsonEnabled()) return { file: flags.output, ...summary }
    this.log(`${flags.output}: ${summary.fileSize} bytes, ${summary.entries} entries, ${summary.dataBlocks} data blocks`)
    return undefined
  }
}
