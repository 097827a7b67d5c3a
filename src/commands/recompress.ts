import { Args, Flags } from '@oclif/core'
import { layoutFlags, matrixFlags, sourceFlags, strategyFlags } from '../cli/recompress-flags.js'
import { RECOMPRESS_FLAG_DEFAULTS as D, RECOMPRESS_FLAG_OPTIONS } from '../cli/recompress-options.js'
import { SstCommand } from '../cli/sst-command.js'
import { type RecompressResultJson, recompressReport } from '../entry/recompress-main.js'
import { BLOB_EXHAUSTIVE_BYTES, BLOB_SAMPLE_BYTES } from '../recompress/blob-matrix.js'
import { DICT_MODES, EXHAUSTIVE_ZSTD_LEVELS } from '../recompress/config.js'
import { MAX_TIMING_SPREAD, MIN_TIMED_MS } from '../recompress/engine.js'
import { MAX_STRIDE, SAMPLE_BYTES } from '../recompress/round-trip.js'
import { VERDICT_RULE } from '../report/recompress-verdict.js'

export default class Recompress extends SstCommand {
  static override description = `Rebuild the data blocks of SST files under a matrix of compression settings and compare sizes and speeds.
The matrix is every combination of --types, --levels, --dict and --checksum. Blocks are compressed the way RocksDB's table builder does: varint size prefix, the max_compressed_bytes_per_kb acceptance rule (blocks that do not compress enough are stored raw and counted as rejected), dictionaries sampled from the data blocks as RocksDB samples them. Compressed blocks are decompressed and compared with the original: on a file of under ${(2 * SAMPLE_BYTES) >> 20} MiB of (uncompressed) data every one; on a larger one, as RocksDB verifies compression only when asked, a deterministic, evenly spread sample (1 in k data blocks of each setting, k up to ${MAX_STRIDE}, at least ${SAMPLE_BYTES >> 20} MiB), from which the decompression speed is estimated and shown with its 95% interval (±); --verify-compression decompresses and compares every block, and its speeds are exact.
Columns (the default table fits 100 columns): "Setting"; "Data + dict", the data blocks with their 5-byte trailers plus the dictionary block, in KiB/MiB (--bytes: exact bytes); "vs stored", its change against the file as stored (the first row); "Ratio", uncompressed data / (data + dictionary); compression and decompression speed; marks: smallest (data + dictionary), fastest-dec (decompression speed; with sampled speeds, only when no other setting's interval reaches the fastest's), pareto (no other setting is both smaller and faster to compress). --wide adds type, level, dictionary and checksum apart, data, dictionary and file bytes ("File bytes": data + dictionary + rebuilt index + the file's filter and meta blocks), blocks compressed and rejected, dictionary time, the thread CPU of writing the row's table and of reading its data blocks back (checksum, decompression, every entry), and the wall time of the same work (the row's share of its lane's wall time: a lane writes its rows side by side; wall minus CPU is time the thread waited); CSV always has every column with exact numbers, --json every field.
A speed marked ~ is noise (under ${MIN_TIMED_MS} ms measured in all, runs spread over ${MAX_TIMING_SPREAD * 100}% with --repeat, or a sampled interval wider than ±${MAX_TIMING_SPREAD * 50}%): no mark and no verdict rests on it. Under the table, the verdict: the setting advise's balanced rule picks for a file without levels (the smallest ${VERDICT_RULE}, a simpler one within 1% preferred; by size alone when a compression timing is noise), and the runner-up.
A BlobDB blob file (*.blob) gets its own matrix: each record's value compressed alone as RocksDB's BlobFileBuilder does (no dictionary, always stored compressed), every type sstkit writes at the library's default level unless --types/--levels/--checksum say otherwise, and the whole file's bytes projected exactly (record headers, keys, values, header and footer); a file of over ${BLOB_EXHAUSTIVE_BYTES >> 20} MiB of values is sampled (about ${BLOB_SAMPLE_BYTES >> 20} MiB of records, or --sample) and its sizes carry their 95% interval.`

  static override examples = [
    {
      description: `The default zstd matrix (levels ${EXHAUSTIVE_ZSTD_LEVELS.join(',')} × dictionary ${DICT_MODES.join('/')} × frame checksum off/on):`,
      command: '<%= config.bin %> <%= command.id %> examples/sample.sst',
    },
    {
      description: 'Every column, exact byte counts, timings repeated 5 times:',
      command: '<%= config.bin %> <%= command.id %> examples/sample.sst --levels 3,19 --wide --bytes --repeat 5',
    },
    {
      description: 'Compare codecs at their default levels:',
      command: '<%= config.bin %> <%= command.id %> examples/sample.sst --types zstd,lz4,snappy,zlib --dict none --checksum off',
    },
    {
      description: 'Negative (fast) zstd levels, 16 KiB blocks as sst_dump uses:',
      command: '<%= config.bin %> <%= command.id %> examples/sample.sst --levels -5..3 --block-size 16384',
    },
    {
      description: 'Block sizes and index compression, every combination a row:',
      command:
        '<%= config.bin %> <%= command.id %> examples/sample.sst --levels 3 --dict none --checksum off --block-size 4KiB,16KiB,64KiB --index-compression both',
    },
    {
      description: 'zlib under each deflate strategy (CompressionOptions::strategy), a row apiece:',
      command: '<%= config.bin %> <%= command.id %> examples/sample.sst --types zlib --compression-strategy 0..4',
    },
    {
      description: 'An external dictionary trained with `zstd --train`:',
      command: '<%= config.bin %> <%= command.id %> db/ --dict none --dict-file my.dict --json',
    },
    {
      description: 'A blob file of BlobDB: every blob_compression_type on its records, exact file sizes:',
      command: '<%= config.bin %> <%= command.id %> db/000009.blob',
    },
    {
      description: 'Very large files: a deterministic 10% of the blocks, as Markdown:',
      command: '<%= config.bin %> <%= command.id %> big.sst --sample 10 --format markdown',
    },
  ]

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or blob files (*.blob), or directories of .sst files', required: true }),
  }

  static override flags = {
    ...matrixFlags({
      types: D.types,
      checksum: D.checksum,
      levelsHelp: `Levels as a range or list: 1..19, 1,3,6,9, -5..3; \`default\` is the library default. Default for zstd: ${EXHAUSTIVE_ZSTD_LEVELS.join(',')}; other types: their default level. Types without levels (none, snappy, bzip2) ignore it.`,
      dictHelp:
        'Dictionary modes: none, raw (concatenated samples), finalize (ZDICT_finalizeDictionary), train (ZDICT_trainFromBuffer). Default: all four for zstd, none for others; lz4, lz4hc and zlib support none and raw.',
    }),
    ...strategyFlags,
    ...sourceFlags,
    ...layoutFlags,
    format: Flags.string({ description: 'Output format.', options: [...RECOMPRESS_FLAG_OPTIONS.format], default: D.format }),
    'auto-skip': Flags.string({
      description:
        "Also simulate auto-skip for each setting: rate (RocksDB's AutoSkipCompressorWrapper), ratio (skip while the estimated ratio is above the acceptance bar); comma-separated.",
    }),
    'min-sample-every': Flags.integer({
      description: 'ratio auto-skip: while skipping, sample a block at least every N blocks.',
      default: D['min-sample-every'],
      min: 1,
    }),
    seed: Flags.integer({ description: "Seed of auto-skip's random choices (exploration, sampling gaps).", default: D.seed }),
    'no-carry': Flags.boolean({ description: 'ratio auto-skip: start every file afresh instead of carrying the estimate across the files of the run.' }),
    sort: Flags.string({ description: 'Row order after the stored row.', options: [...RECOMPRESS_FLAG_OPTIONS.sort], default: D.sort }),
    wide: Flags.boolean({
      description:
        'Every column: type, level, dictionary and checksum apart; data, dictionary and file bytes; blocks compressed and rejected; dictionary time; write and read CPU and wall time (CSV always has them).',
    }),
    bytes: Flags.boolean({ description: 'Exact byte counts instead of KiB/MiB/GiB (JSON and CSV always have them).' }),
    'verify-compression': Flags.boolean({
      description: `Decompress and compare every compressed block (RocksDB's verify_compression), with exact decompression speeds. Default: a sample on files of ${(2 * SAMPLE_BYTES) >> 20} MiB of data or more.`,
    }),
  }

  async run(): Promise<RecompressResultJson | RecompressResultJson[] | undefined> {
    const { argv, flags, raw } = await this.parse(Recompress)
    const given = new Set(raw.flatMap((t) => (t.type === 'flag' ? [t.flag] : [])))
    return recompressReport(this.files, argv as string[], flags, given, { json: this.jsonEnabled(), log: (line) => this.log(line), tty: this.tty })
  }
}
