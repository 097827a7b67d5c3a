/** Codec layer: block checksums and block (de)compression. */
export {
  ChecksumType,
  type ChecksumTypeValue,
  checksumTypeName,
  blockChecksum,
  contextModifier,
  addContext,
  removeContext,
  maskCrc32c,
  unmaskCrc32c,
} from './checksum.js'
export {
  CompressionType,
  type CompressionTypeValue,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_COMPRESSION_LEVEL,
  compressionTypeName,
  compressionOptionName,
  compressFormatVersion,
  declaredUncompressedSize,
  decompressBlock,
  compressBlock,
  type DecompressOptions,
  type CompressOptions,
} from './compression.js'
export { xxh3Backend } from './xxh3.js'
export {
  type CompressionSetting,
  type DictMode,
  COMPRESSION_DEFAULTS,
  compressionSetting,
  defaultTrainBytes,
  effectiveLevel,
  levelRange,
  levelFits,
  supportedDictModes,
  validateSetting,
} from './setting.js'
export { BlockCompressor } from './block-compressor.js'
