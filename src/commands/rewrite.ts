import { Args, Flags } from '@oclif/core'
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import {
  CorruptionError,
  NotSupportedError,
  parseTypes,
  RewriteError,
  rewriteFile,
  type RewriteOptions,
  type RewriteResult,
} from '../index.js'
import { renderTable } from '../report/table.js'
import { formatBytes, signedPercent } from '../report/text.js'

const CHECKSUM_TYPES: Record<string, number> = { none: 0, crc32c: 1, xxhash: 2, xxhash64: 3, xxh3: 4 }

export default class Rewrite extends SstCommand {
  static override description = `Write a new SST with the same entries (keys, sequence numbers, types, values, range tombstones) in a new physical form: compression type and level, dictionary, zstd frame checksum, block size, format_version, checksum type, index kind.
The output is written to a temporary file next to OUT, read back and compared entry by entry with the input (--no-verify skips this), then renamed into place; on any failure no partial OUT is left behind. A full filter is carried over unchanged (it depends only on the keys); a partitioned filter is dropped, with a note. The output's unique ID gets a fresh session ID so that it never shares block-cache keys with its input.`

  static override examples = [
    { description: 'The setting recompress found best:', command: '<%= config.bin %> <%= command.id %> examples/sample.sst -o /tmp/sample-zstd19.sst --compression zstd --level 19 --dict finalize' },
    { description: 'Newest format, XXH3 checksums, 16 KiB blocks:', command: '<%= config.bin %> <%= command.id %> in.sst -o out.sst --format-version 7 --checksum-type xxh3 --block-size 16384' },
    { description: 'A directory of SSTs into another directory:', command: '<%= config.bin %> <%= command.id %> db/ -o /tmp/db-lz4 --compression lz4' },
  ]

  static override args = {
    input: Args.string({ description: 'An SST file, or a directory of .sst files', required: true }),
  }

  static override flags = {
    output: Flags.string({ char: 'o', description: 'Output file (or directory, for a directory input).', required: true }),
    compression: Flags.string({ description: 'none, snappy, zlib, bzip2, lz4, lz4hc, zstd.', default: 'zstd' }),
    level: Flags.string({ description: 'Compression level (e.g. 3, 19, -5), or "default".', default: 'default' }),
    dict: Flags.string({ description: 'Dictionary: none, raw, finalize, train (RocksDB\'s modes), or a path to a dictionary file.', default: 'none' }),
    'max-dict-bytes': Flags.integer({ description: "RocksDB's max_dict_bytes.", default: 16384, min: 1 }),
    'train-bytes': Flags.integer({ description: "RocksDB's zstd_max_train_bytes (default 100 × --max-dict-bytes).", min: 1 }),
    'max-dict-buffer-bytes': Flags.integer({ description: "RocksDB's max_dict_buffer_bytes (0 = the whole file).", default: 64 * 1024 * 1024, min: 0 }),
    checksum: Flags.string({ description: 'zstd frame checksum.', options: ['on', 'off'], default: 'off' }),
    'block-size': Flags.integer({ description: 'Data block size.', default: 4096, min: 64, exclusive: ['keep-blocks'] }),
    'keep-blocks': Flags.boolean({ description: "Keep the input's data block boundaries (what `recompress` evaluates by default)." }),
    'restart-interval': Flags.integer({ description: 'Data block restart interval.', default: 16, min: 1 }),
    'format-version': Flags.integer({ description: "Output format_version, 2..7 (default: the input's, or 5 for older inputs).", min: 2, max: 7 }),
    'checksum-type': Flags.string({ description: "Block checksum (default: the input's).", options: Object.keys(CHECKSUM_TYPES) }),
    index: Flags.string({ description: 'Index kind.', options: ['binary', 'partitioned'], default: 'binary' }),
    'metadata-block-size': Flags.integer({ description: 'Index partition size (partitioned index).', default: 4096, min: 64 }),
    'max-compressed-bytes-per-kb': Flags.integer({ description: 'Acceptance rule for compressed blocks.', default: 896, min: 0, max: 1024 }),
    'auto-skip': Flags.string({ description: 'Skip compression of blocks auto-skip deems hopeless: ratio or rate (stored raw, counted as bypassed).', options: ['rate', 'ratio'] }),
    'min-sample-every': Flags.integer({ description: 'ratio auto-skip: sample a block at least every N skipped blocks.', default: 64, min: 1 }),
    seed: Flags.integer({ description: "Seed of auto-skip's random choices.", default: 0 }),
    verify: Flags.boolean({ description: 'Read the output back and compare every entry before renaming it into place.', default: true, allowNo: true }),
    force: Flags.boolean({ description: 'Replace an existing output.' }),
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Rewrite)
    const [type] = this.usage(() => parseTypes(flags.compression))
    const level = flags.level === 'default' ? null : Number(flags.level)
    if (level !== null && !Number.isInteger(level)) this.fail(`--level must be an integer or "default" (got ${flags.level})`, ExitCode.Usage)
    const dictModes = ['none', 'raw', 'finalize', 'train']
    let dictionary: Uint8Array | undefined
    if (!dictModes.includes(flags.dict)) {
      if (!existsSync(flags.dict)) this.fail(`--dict ${flags.dict}: not a mode (none, raw, finalize, train) nor a dictionary file`, ExitCode.Usage)
      const size = statSync(flags.dict).size
      if (size === 0 || size > 64 * 1024 * 1024) this.fail(`dictionary file ${flags.dict} is ${size} bytes (expected 1 byte to 64 MiB)`, ExitCode.Usage)
      const { readFileSync } = await import('node:fs')
      dictionary = new Uint8Array(readFileSync(flags.dict))
    }
    const options: RewriteOptions = {
      compressionType: type,
      level,
      zstdChecksum: flags.checksum === 'on',
      dict: dictionary ? 'none' : (flags.dict as RewriteOptions['dict']),
      dictionary,
      maxDictBytes: flags['max-dict-bytes'],
      trainBytes: flags['train-bytes'] ?? 100 * flags['max-dict-bytes'],
      maxDictBufferBytes: flags['max-dict-buffer-bytes'],
      blockSize: flags['block-size'],
      keepBlocks: flags['keep-blocks'],
      restartInterval: flags['restart-interval'],
      formatVersion: flags['format-version'],
      checksumType: flags['checksum-type'] !== undefined ? CHECKSUM_TYPES[flags['checksum-type']] : undefined,
      index: flags.index as 'binary' | 'partitioned',
      metadataBlockSize: flags['metadata-block-size'],
      maxCompressedBytesPerKb: flags['max-compressed-bytes-per-kb'],
      verify: flags.verify,
      force: flags.force,
      autoSkip: flags['auto-skip'] as 'rate' | 'ratio' | undefined,
      minSampleEvery: flags['min-sample-every'],
      seed: flags.seed,
    }

    let pairs: [string, string][]
    if (existsSync(args.input) && statSync(args.input).isDirectory()) {
      const inputs = readdirSync(args.input).filter((n) => n.endsWith('.sst')).sort()
      if (inputs.length === 0) this.fail(`${args.input}: directory holds no .sst files`, ExitCode.Usage)
      if (existsSync(flags.output) && !statSync(flags.output).isDirectory()) this.fail(`${flags.output} is a file; a directory input needs an output directory`, ExitCode.Usage)
      mkdirSync(flags.output, { recursive: true })
      pairs = inputs.map((n) => [join(args.input, n), join(flags.output, n)])
    } else {
      const out = existsSync(flags.output) && statSync(flags.output).isDirectory() ? join(flags.output, basename(args.input)) : flags.output
      pairs = [[args.input, out]]
    }

    const results: RewriteResult[] = []
    const tty = process.stderr.isTTY && !this.jsonEnabled() && pairs.length > 1
    pairs.forEach(([input, output], i) => {
      if (tty) process.stderr.write(`\r\x1b[K[${i + 1}/${pairs.length}] ${input}`)
      try {
        const r = rewriteFile(input, output, options)
        results.push(r)
        for (const n of r.notes) process.stderr.write(`${tty ? '\r\x1b[K' : ''}sstkit: ${input}: note: ${n}\n`)
      } catch (e) {
        if (tty) process.stderr.write('\r\x1b[K')
        if (e instanceof RewriteError) {
          process.stderr.write(`sstkit: ${input}: ${e.message}\n`)
          this.raise(/exists|refusing|cannot write/.test(e.message) ? ExitCode.Usage : ExitCode.Finding)
        } else if (e instanceof CorruptionError || e instanceof NotSupportedError || (e as NodeJS.ErrnoException).syscall) {
          this.reportFileError(input, e, (e as NodeJS.ErrnoException).syscall ? ExitCode.Usage : ExitCode.Finding)
        } else throw e
      }
    })
    if (tty) process.stderr.write('\r\x1b[K')
    if (this.jsonEnabled()) return pairs.length === 1 && !statSync(args.input).isDirectory() ? results[0] : results
    if (results.length > 0) {
      this.log(
        renderTable(
          {
            columns: [
              { header: 'Input' },
              { header: 'Output' },
              { header: 'Before', align: 'right' },
              { header: 'After', align: 'right' },
              { header: 'Change', align: 'right' },
              { header: 'Blocks', align: 'right' },
              { header: 'Rejected', align: 'right' },
              { header: 'fv', align: 'right' },
              { header: 'ms', align: 'right' },
            ],
            rows: results.map((r) => [
              r.input,
              r.output,
              formatBytes(r.inputSize),
              formatBytes(r.fileSize),
              signedPercent(r.inputSize > 0 ? (r.fileSize - r.inputSize) / r.inputSize : null),
              r.dataBlocks,
              r.blocksRejected,
              r.formatVersion,
              Math.round(r.ms),
            ]),
          },
          'table',
          this.tty,
        ),
      )
    }
    return undefined
  }

  private usage<T>(f: () => T): T {
    try {
      return f()
    } catch (e) {
      this.fail((e as Error).message, ExitCode.Usage)
    }
  }
}
