import { Args, Flags } from '@oclif/core'
import { availableParallelism } from 'node:os'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import {
  CorruptionError,
  DictFileError,
  MatrixError,
  NotSupportedError,
  parseChecksums,
  parseDicts,
  parseLevels,
  parseTypes,
  recompressFile,
  type RecompressReport,
} from '../index.js'
import { recompressJson, recompressModel, SortKey } from '../report/recompress.js'
import { renderTable, TableFormat } from '../report/table.js'

export default class Recompress extends SstCommand {
  static override description = `Rebuild the data blocks of SST files under a matrix of compression settings and compare sizes and speeds.
The matrix is every combination of --types, --levels, --dict and --checksum. Blocks are compressed the way RocksDB's table builder does: varint size prefix, the max_compressed_bytes_per_kb acceptance rule (blocks that do not compress enough are stored raw and counted as rejected), dictionaries sampled from the data blocks as RocksDB samples them. Every compressed block is decompressed and compared with the original.
Sizes: "Data bytes" are the data blocks with their 5-byte trailers; "Dict bytes" the dictionary block; "File bytes" an estimate of the whole file (data + dictionary + rebuilt index + the file's filter and meta blocks). "Ratio" is uncompressed data / (data + dictionary). The first row is the file as stored. Marks: smallest (data + dictionary), fastest-dec (decompression speed), pareto (no other setting is both smaller and faster to compress).`

  static override examples = [
    {
      description: 'The default zstd matrix (levels 1,3,6,9,12,15,19 × dictionary none/raw/finalize/train × frame checksum off/on):',
      command: '<%= config.bin %> <%= command.id %> examples/sample.sst',
    },
    { description: 'Compare codecs at their default levels:', command: '<%= config.bin %> <%= command.id %> examples/sample.sst --types zstd,lz4,snappy,zlib --dict none --checksum off' },
    { description: 'Negative (fast) zstd levels, 16 KiB blocks as sst_dump uses:', command: '<%= config.bin %> <%= command.id %> examples/sample.sst --levels -5..3 --block-size 16384' },
    { description: 'An external dictionary trained with `zstd --train`:', command: '<%= config.bin %> <%= command.id %> db/ --dict none --dict-file my.dict --json' },
    { description: 'Very large files: a deterministic 10% of the blocks, as Markdown:', command: '<%= config.bin %> <%= command.id %> big.sst --sample 10 --format markdown' },
  ]

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  static override flags = {
    types: Flags.string({ description: 'Compression types: zstd, none, snappy, lz4, lz4hc, zlib, bzip2 (comma-separated).', default: 'zstd' }),
    levels: Flags.string({
      description: 'Levels as a range or list: 1..19, 1,3,6,9, -5..3; `default` is the library default. Default for zstd: 1,3,6,9,12,15,19; other types: their default level. Types without levels (none, snappy, bzip2) ignore it.',
    }),
    dict: Flags.string({
      description: 'Dictionary modes: none, raw (concatenated samples), finalize (ZDICT_finalizeDictionary), train (ZDICT_trainFromBuffer). Default: all four for zstd, none for others; lz4, lz4hc and zlib support none and raw.',
    }),
    checksum: Flags.string({ description: 'zstd frame checksum: off, on or both.', options: ['off', 'on', 'both'], default: 'both' }),
    'max-dict-bytes': Flags.integer({ description: "Dictionary size (RocksDB's max_dict_bytes).", default: 16384, min: 1 }),
    'train-bytes': Flags.integer({ description: "Sample budget for train and finalize (RocksDB's zstd_max_train_bytes). Default: 100 × --max-dict-bytes.", min: 1 }),
    'max-dict-buffer-bytes': Flags.integer({
      description: "Data bytes buffered before the dictionary is built (RocksDB's max_dict_buffer_bytes; 0 = the whole file). Bounds memory. Default 64 MiB, what RocksDB buffers for a 64 MiB target file.",
      default: 64 * 1024 * 1024,
      min: 0,
    }),
    'dict-file': Flags.string({ description: 'Also evaluate this external dictionary (e.g. from `zstd --train`).' }),
    'block-size': Flags.integer({
      description: "Re-cut the entries into blocks of this size as RocksDB's builder does (sst_dump uses 16384). Default: keep the file's own blocks.",
      min: 64,
    }),
    'max-compressed-bytes-per-kb': Flags.integer({
      description: 'Acceptance rule: a compressed block (size prefix included) must fit in this many bytes per KiB of input, else it is stored raw and counted as rejected.',
      default: 896,
      min: 0,
      max: 1024,
    }),
    repeat: Flags.integer({ description: 'Run each configuration N times; timings are the median, with the spread shown.', default: 1, min: 1, max: 100 }),
    jobs: Flags.integer({ description: 'Worker threads (default: all cores). Results do not depend on it.', min: 1 }),
    sample: Flags.integer({ description: 'Evaluate a deterministic, evenly spread PCT% of the data blocks (own block boundaries only).', min: 1, max: 100 }),
    format: Flags.string({ description: 'Output format.', options: ['table', 'csv', 'markdown'], default: 'table' }),
    sort: Flags.string({ description: 'Row order after the stored row.', options: ['matrix', 'size', 'ratio', 'compress', 'decompress'], default: 'matrix' }),
  }

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(Recompress)
    let matrix
    try {
      matrix = {
        types: parseTypes(flags.types),
        levels: flags.levels !== undefined ? parseLevels(flags.levels) : undefined,
        dicts: flags.dict !== undefined ? parseDicts(flags.dict) : undefined,
        checksums: parseChecksums(flags.checksum),
      }
    } catch (e) {
      if (e instanceof MatrixError) this.fail(e.message, ExitCode.Usage)
      throw e
    }
    if (flags.sample !== undefined && flags['block-size'] !== undefined) {
      this.fail('--sample works on the file\'s own blocks: it cannot be combined with --block-size', ExitCode.Usage)
    }
    const files = this.expandFiles(argv as string[])
    const reports: ReturnType<typeof recompressJson>[] = []
    const progress = process.stderr.isTTY && !this.jsonEnabled()
    for (const file of files) {
      let report: RecompressReport
      try {
        report = await recompressFile(file, {
          matrix,
          source: { blockSize: flags['block-size'] ?? null, samplePercent: flags.sample ?? 100 },
          dict: {
            maxDictBytes: flags['max-dict-bytes'],
            trainBytes: flags['train-bytes'] ?? 100 * flags['max-dict-bytes'],
            maxDictBufferBytes: flags['max-dict-buffer-bytes'],
          },
          dictFile: flags['dict-file'],
          maxCompressedBytesPerKb: flags['max-compressed-bytes-per-kb'],
          repeat: flags.repeat,
          jobs: flags.jobs ?? availableParallelism(),
          onProgress: progress ? (done, total) => drawProgress(file, done, total) : undefined,
        })
      } catch (e) {
        if (progress) process.stderr.write('\r\x1b[K')
        if (e instanceof MatrixError || e instanceof DictFileError) this.fail(e.message, ExitCode.Usage)
        if (e instanceof CorruptionError || e instanceof NotSupportedError || (e as NodeJS.ErrnoException).syscall) {
          this.reportFileError(file, e, ExitCode.Usage)
          continue
        }
        throw e
      }
      if (progress) process.stderr.write('\r\x1b[K')
      if (report.skipped.length > 0) {
        this.raise(ExitCode.Finding)
        for (const s of report.skipped) process.stderr.write(`sstkit: ${file}: skipped data block at offset ${s.offset}: ${s.message}\n`)
      }
      reports.push(recompressJson(report))
      if (this.jsonEnabled()) continue
      if (files.length > 1) this.log(`${file}:`)
      this.log(renderTable(recompressModel(report, flags.sort as SortKey, { spread: flags.repeat > 1 }), flags.format as TableFormat, this.tty))
      for (const n of report.notes) this.log(`note: ${n}`)
    }
    if (!this.jsonEnabled()) return undefined
    return files.length === 1 ? reports[0] : reports
  }
}

function drawProgress(file: string, done: number, total: number): void {
  const width = 30
  const filled = Math.round((width * done) / Math.max(1, total))
  process.stderr.write(`\r\x1b[K${file} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round((100 * done) / Math.max(1, total))}%`)
}
