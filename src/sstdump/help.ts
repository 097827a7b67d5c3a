/**
 * `sst_dump --help`: the text of RocksDB 7.8.3's `print_help`, then the flags
 * sstkit adds (from newer sst_dump releases, and its own).
 */
import { WRITABLE_TYPES } from '../codec/setting.js'
import { CompressionType, compressionOptionName } from '../format/compression-type.js'

/** Names `--compression_types=` accepts for this build (7.8.3 prints GetSupportedCompressions()). */
export const SUPPORTED_COMPRESSIONS: readonly string[] = [...WRITABLE_TYPES, CompressionType.ZSTDNotFinal].map(compressionOptionName)

const HELP_7_8_3 = `sst_dump --file=<data_dir_OR_sst_file> [--command=check|scan|raw|recompress|identify]
    --file=<data_dir_OR_sst_file>
      Path to SST file or directory containing SST files

    --env_uri=<uri of underlying Env>
      URI of underlying Env, mutually exclusive with fs_uri

    --fs_uri=<uri of underlying FileSystem>
      URI of underlying FileSystem, mutually exclusive with env_uri

    --command=check|scan|raw|verify|identify
        check: Iterate over entries in files but don't print anything except if an error is encountered (default command)
        scan: Iterate over entries in files and print them to screen
        raw: Dump all the table contents to <file_name>_dump.txt
        verify: Iterate all the blocks in files verifying checksum to detect possible corruption but don't print anything except if a corruption is encountered
        recompress: reports the SST file size if recompressed with different
                    compression types
        identify: Reports a file is a valid SST file or lists all valid SST files under a directory

    --output_hex
      Can be combined with scan command to print the keys and values in Hex

    --decode_blob_index
      Decode blob indexes and print them in a human-readable format during scans.

    --from=<user_key>
      Key to start reading from when executing check|scan

    --to=<user_key>
      Key to stop reading at when executing check|scan

    --prefix=<user_key>
      Returns all keys with this prefix when executing check|scan
      Cannot be used in conjunction with --from

    --read_num=<num>
      Maximum number of entries to read when executing check|scan

    --verify_checksum
      Verify file checksum when executing check|scan

    --input_key_hex
      Can be combined with --from and --to to indicate that these values are encoded in Hex

    --show_properties
      Print table properties after iterating over the file when executing
      check|scan|raw|identify

    --set_block_size=<block_size>
      Can be combined with --command=recompress to set the block size that will
      be used when trying different compression algorithms

    --compression_types=<comma-separated list of CompressionType members, e.g.,
      kSnappyCompression>
      Can be combined with --command=recompress to run recompression for this
      list of compression types
      Supported compression types: %COMPRESSIONS%

    --parse_internal_key=<0xKEY>
      Convenience option to parse an internal key on the command line. Dumps the
      internal key in hex format {'key' @ SN: type}

    --compression_level_from=<compression_level>
      Compression level to start compressing when executing recompress. One compression type
      and compression_level_to must also be specified

    --compression_level_to=<compression_level>
      Compression level to stop compressing when executing recompress. One compression type
      and compression_level_from must also be specified

    --compression_max_dict_bytes=<uint32_t>
      Maximum size of dictionary used to prime the compression library

    --compression_zstd_max_train_bytes=<uint32_t>
      Maximum size of training data passed to zstd's dictionary trainer

    --compression_max_dict_buffer_bytes=<int64_t>
      Limit on buffer size from which we collect samples for dictionary generation.

    --compression_use_zstd_finalize_dict
      Use zstd's finalizeDictionary() API instead of zstd's dictionary trainer to generate dictionary.
`

export const SSTKIT_ADDITIONS = `
  sstkit additions (not in sst_dump 7.8.3):

    PATH ...
      Files or directories given without --file= (as newer sst_dump accepts)

    --list_meta_blocks
      Print the metaindex: one line "  <name>: <offset> <size>" per meta block (newer sst_dump)

    --block_size=<block_size>
      Same as --set_block_size (newer sst_dump)

    --strict
      Exit 1 when any file cannot be opened or any corruption is reported (sst_dump exits 0 after
      reporting corruption), and verify checksums by default (also for --command=verify)

    --version
      Print the version of sstkit and of the sst_dump it emulates
`

export function helpText(): string {
  return HELP_7_8_3.replace('%COMPRESSIONS%', SUPPORTED_COMPRESSIONS.join(', ')) + SSTKIT_ADDITIONS
}

/** The 7.8.3 part only (what the golden holds). */
export function helpText783(): string {
  return HELP_7_8_3.replace('%COMPRESSIONS%', SUPPORTED_COMPRESSIONS.join(', '))
}
