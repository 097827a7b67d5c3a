/**
 * The first RocksDB release (major.minor) whose OPTIONS parser accepts each name and syntax advise
 * prints; a name missing from a map is in no release up to newestRelease. Generated from each
 * release of facebook/rocksdb (its first tag, else its X.Y.fb branch) by
 * scripts/derive-option-versions.mjs; do not edit by hand.
 */
export const OPTION_VERSIONS = {
  newestRelease: '11.8',
  releasesRead: 143,
  columnFamilyOptions: {
    compression: '3.6',
    compression_per_level: '3.6',
    compression_opts: '3.6',
    level_compaction_dynamic_level_bytes: '3.10',
    bottommost_compression: '4.9',
    bottommost_compression_opts: '5.15',
    blob_compression_type: '6.13',
    blob_compression_opts: '11.2',
  },
  compressionTypes: {
    kNoCompression: '3.6',
    kSnappyCompression: '3.6',
    kZlibCompression: '3.6',
    kBZip2Compression: '3.6',
    kLZ4Compression: '3.6',
    kLZ4HCCompression: '3.6',
    kZSTDNotFinalCompression: '4.0',
    kXpressCompression: '4.8',
    kDisableCompressionOption: '4.9',
    kZSTD: '4.12',
  },
  compressionOptsBraceForm: '6.12',
  compressionOptsBraceFields: {
    window_bits: '6.12',
    level: '6.12',
    strategy: '6.12',
    max_dict_bytes: '6.12',
    zstd_max_train_bytes: '6.12',
    parallel_threads: '6.12',
    enabled: '6.12',
    max_dict_buffer_bytes: '6.18',
    use_zstd_dict_trainer: '7.3',
    max_compressed_bytes_per_kb: '8.2',
    checksum: '8.6',
  },
  compressionOptsColonFields: {
    window_bits: '3.10',
    level: '3.10',
    strategy: '3.10',
    max_dict_bytes: '4.8',
    zstd_max_train_bytes: '5.14',
    enabled: '5.15',
    parallel_threads: '6.12',
    max_dict_buffer_bytes: '6.18',
    use_zstd_dict_trainer: '7.3',
  },
  compressionOptsColonOrder: ['window_bits', 'level', 'strategy', 'max_dict_bytes', 'zstd_max_train_bytes', 'enabled'],
} as const
