/**
 * sst_dump's command line, parsed the way `SSTDumpTool::Run` (RocksDB 7.8.3,
 * tools/sst_dump_tool.cc) parses it: `--name=value` and bare `--name` flags, in
 * order, exact prefix matches; the first unknown argument stops everything.
 * Some arguments end the run while parsing (`--help`, `--version`,
 * `--parse_internal_key=`): those are returned as an `early` action.
 */
import { SUPPORTED_COMPRESSIONS } from './help.js'
import { DEFAULT_COMPRESSION_LEVEL } from '../codec/setting.js'
import { compressionOptionName } from '../format/compression-type.js'

export const U64_MAX = (1n << 64n) - 1n

/** Compression names in 7.8.3's kCompressions table (what --compression_types= accepts), with their type bytes. */
export const COMPRESSION_TABLE: readonly (readonly [number, string])[] = [0, 1, 2, 3, 4, 5, 6, 7].map((t) => [t, compressionOptionName(t)] as const)

export interface SstDumpArgs {
  /** `--file=` (the last one, as 7.8.3) followed by positional paths (an sstkit addition). */
  files: string[]
  command: string
  readNum: bigint
  verifyChecksum: boolean
  outputHex: boolean
  decodeBlobIndex: boolean
  inputKeyHex: boolean
  hasFrom: boolean
  hasTo: boolean
  usePrefix: boolean
  fromKey: Uint8Array
  toKey: Uint8Array
  showProperties: boolean
  showSummary: boolean
  listMetaBlocks: boolean
  strict: boolean
  setBlockSize: boolean
  blockSize: number
  readaheadSize: number
  compressionTypes: (readonly [number, string])[]
  hasCompressionTypes: boolean
  levelFrom: number
  levelTo: number
  hasLevelFrom: boolean
  hasLevelTo: boolean
  maxDictBytes: number
  zstdMaxTrainBytes: number
  maxDictBufferBytes: number
  useZstdFinalizeDict: boolean
}

/** What to do: run, or stop with output already decided. */
export type ParseResult =
  | { kind: 'run'; args: SstDumpArgs }
  | { kind: 'exit'; code: number; stdout?: string; stderr?: string; help?: 'stdout' | 'stderr'; stderrAfterHelp?: string }
  | { kind: 'parse_internal_key'; hex: string }
  | { kind: 'version' }

export { DEFAULT_COMPRESSION_LEVEL }

function defaults(): SstDumpArgs {
  return {
    files: [],
    command: '',
    readNum: U64_MAX,
    verifyChecksum: false,
    outputHex: false,
    decodeBlobIndex: false,
    inputKeyHex: false,
    hasFrom: false,
    hasTo: false,
    usePrefix: false,
    fromKey: new Uint8Array(0),
    toKey: new Uint8Array(0),
    showProperties: false,
    showSummary: false,
    listMetaBlocks: false,
    strict: false,
    setBlockSize: false,
    blockSize: 0,
    readaheadSize: 2 * 1024 * 1024,
    compressionTypes: [],
    hasCompressionTypes: false,
    levelFrom: DEFAULT_COMPRESSION_LEVEL,
    levelTo: DEFAULT_COMPRESSION_LEVEL,
    hasLevelFrom: false,
    hasLevelTo: false,
    maxDictBytes: 0,
    zstdMaxTrainBytes: 0,
    maxDictBufferBytes: 0,
    useZstdFinalizeDict: false,
  }
}

/** `std::istringstream >> int64_t`: skip blanks, optional sign, digits; trailing junk is ignored. */
function streamInt(s: string): bigint | null {
  const m = /^[\s]*([+-]?\d+)/.exec(s)
  if (!m) return null
  const v = BigInt(m[1])
  if (v > (1n << 63n) - 1n || v < -(1n << 63n)) return null // failbit on overflow
  return v
}

/** `sscanf(arg, "--read_num=%lu%c")` matching exactly one conversion. */
function scanReadNum(arg: string): bigint | null {
  const m = /^--read_num=\s*([+-]?)(\d+)$/.exec(arg)
  if (!m) return null
  let v = BigInt(m[2]) & U64_MAX
  if (m[1] === '-') v = (U64_MAX + 1n - v) & U64_MAX
  return v
}

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8')

/** `LDBCommand::HexToString`: `0x` then an even number of hex digits. */
export function hexToBytes(s: string): { ok: true; bytes: Uint8Array } | { ok: false; printed: string } {
  if (s.length < 2 || s[0] !== '0' || s[1] !== 'x') return { ok: false, printed: `Invalid hex input ${s}.  Must start with 0x\n` }
  const h = s.slice(2)
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) return { ok: false, printed: '' }
  return { ok: true, bytes: Buffer.from(h, 'hex') }
}

/** The uncaught exception of HexToString ends sst_dump with SIGABRT (exit status 134). */
const TERMINATE = "terminate called after throwing an instance of 'char const*'\n"

export function parseSstDumpArgs(argv: readonly string[]): ParseResult {
  const a = defaults()
  let file: string | null = null
  const positional: string[] = []
  let optionsEnded = false
  let fromStr = ''
  let toStr = ''
  const intArg = (arg: string, name: string): bigint | 'nomatch' | 'fail' => {
    if (!arg.startsWith(name)) return 'nomatch'
    const v = streamInt(arg.slice(name.length))
    return v === null ? 'fail' : v
  }
  for (const arg of argv) {
    if (optionsEnded || !arg.startsWith('-')) {
      positional.push(arg)
      continue
    }
    let v: bigint | 'nomatch' | 'fail'
    if (arg === '--') optionsEnded = true
    else if (arg.startsWith('--env_uri=') || arg.startsWith('--fs_uri=')) {
      // accepted and ignored: sstkit reads local files only
    } else if (arg.startsWith('--file=')) file = arg.slice(7)
    else if (arg === '--output_hex') a.outputHex = true
    else if (arg === '--decode_blob_index') a.decodeBlobIndex = true
    else if (arg === '--input_key_hex') a.inputKeyHex = true
    else if (scanReadNum(arg) !== null) a.readNum = scanReadNum(arg)!
    else if (arg === '--verify_checksum') a.verifyChecksum = true
    else if (arg.startsWith('--command=')) a.command = arg.slice(10)
    else if (arg.startsWith('--from=')) {
      fromStr = arg.slice(7)
      a.hasFrom = true
    } else if (arg.startsWith('--to=')) {
      toStr = arg.slice(5)
      a.hasTo = true
    } else if (arg.startsWith('--prefix=')) {
      fromStr = arg.slice(9)
      a.usePrefix = true
    } else if (arg === '--show_properties') a.showProperties = true
    else if (arg === '--show_summary') a.showSummary = true
    else if (arg === '--list_meta_blocks') a.listMetaBlocks = true
    else if (arg === '--strict') a.strict = true
    else if ((v = intArg(arg, '--set_block_size=')) !== 'nomatch' || (v = intArg(arg, '--block_size=')) !== 'nomatch') {
      if (v === 'fail') return { kind: 'exit', code: 1, stderr: 'block size must be numeric\n' }
      a.setBlockSize = true
      a.blockSize = Number(BigInt.asUintN(64, v))
    } else if ((v = intArg(arg, '--readahead_size=')) !== 'nomatch') {
      if (v === 'fail') return { kind: 'exit', code: 1, stderr: 'readahead_size must be numeric\n' }
      a.readaheadSize = Number(BigInt.asUintN(64, v))
    } else if (arg.startsWith('--compression_types=')) {
      a.hasCompressionTypes = true
      // std::getline on ',': a trailing empty field is dropped, inner empty fields are kept
      const csv = arg.slice(20)
      const parts = csv === '' ? [] : csv.split(',')
      if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
      for (const name of parts) {
        const entry = COMPRESSION_TABLE.find(([, n]) => n === name)
        if (!entry) return { kind: 'exit', code: 1, stderr: `${name} is not a valid CompressionType\n` }
        a.compressionTypes.push(entry)
      }
    } else if (arg.startsWith('--parse_internal_key=')) {
      return { kind: 'parse_internal_key', hex: arg.slice(21) }
    } else if ((v = intArg(arg, '--compression_level_from=')) !== 'nomatch') {
      if (v === 'fail') return { kind: 'exit', code: 1, stderr: 'compression_level_from must be numeric\n' }
      a.hasLevelFrom = true
      a.levelFrom = Number(BigInt.asIntN(32, v))
    } else if ((v = intArg(arg, '--compression_level_to=')) !== 'nomatch') {
      if (v === 'fail') return { kind: 'exit', code: 1, stderr: 'compression_level_to must be numeric\n' }
      a.hasLevelTo = true
      a.levelTo = Number(BigInt.asIntN(32, v))
    } else if ((v = intArg(arg, '--compression_max_dict_bytes=')) !== 'nomatch') {
      if (v === 'fail') return { kind: 'exit', code: 1, stderr: 'compression_max_dict_bytes must be numeric\n' }
      if (v < 0n || v > 0xffffffffn) return { kind: 'exit', code: 1, stderr: `compression_max_dict_bytes must be a uint32_t: '${arg}'\n`, help: 'stderr' }
      a.maxDictBytes = Number(v)
    } else if ((v = intArg(arg, '--compression_zstd_max_train_bytes=')) !== 'nomatch') {
      if (v === 'fail') return { kind: 'exit', code: 1, stderr: 'compression_zstd_max_train_bytes must be numeric\n' }
      if (v < 0n || v > 0xffffffffn) return { kind: 'exit', code: 1, stderr: `compression_zstd_max_train_bytes must be a uint32_t: '${arg}'\n`, help: 'stderr' }
      a.zstdMaxTrainBytes = Number(v)
    } else if ((v = intArg(arg, '--compression_max_dict_buffer_bytes=')) !== 'nomatch') {
      if (v === 'fail') return { kind: 'exit', code: 1, stderr: 'compression_max_dict_buffer_bytes must be numeric\n' }
      if (v < 0n) return { kind: 'exit', code: 1, stderr: `compression_max_dict_buffer_bytes must be positive: '${arg}'\n`, help: 'stderr' }
      a.maxDictBufferBytes = Number(v)
    } else if (arg === '--compression_use_zstd_finalize_dict') a.useZstdFinalizeDict = true
    else if (arg === '--help') return { kind: 'exit', code: 0, help: 'stdout' }
    else if (arg === '--version') return { kind: 'version' }
    else return { kind: 'exit', code: 1, stderr: `Unrecognized argument '${arg}'\n\n`, help: 'stderr' }
  }

  if (a.hasLevelFrom && a.hasLevelTo) {
    if (!a.hasCompressionTypes || a.compressionTypes.length !== 1) return { kind: 'exit', code: 1, stderr: 'Specify one compression type.\n\n' }
  } else if (a.hasLevelFrom || a.hasLevelTo) {
    return { kind: 'exit', code: 1, stderr: 'Specify both --compression_level_from and --compression_level_to.\n\n' }
  }
  if (a.usePrefix && a.hasFrom) return { kind: 'exit', code: 1, stderr: 'Cannot specify --prefix and --from\n\n' }

  a.fromKey = utf8(fromStr)
  a.toKey = utf8(toStr)
  if (a.inputKeyHex) {
    if (a.hasFrom || a.usePrefix) {
      const r = hexToBytes(fromStr)
      if (!r.ok) return { kind: 'exit', code: 134, stderr: r.printed + TERMINATE }
      a.fromKey = r.bytes
    }
    if (a.hasTo) {
      const r = hexToBytes(toStr)
      if (!r.ok) return { kind: 'exit', code: 134, stderr: r.printed + TERMINATE }
      a.toKey = r.bytes
    }
  }
  if (file !== null) a.files.push(file)
  a.files.push(...positional)
  if (a.files.length === 0) return { kind: 'exit', code: 1, stderr: 'file or directory must be specified.\n\n', help: 'stderr' }
  if (a.strict) a.verifyChecksum = true
  void SUPPORTED_COMPRESSIONS
  return { kind: 'run', args: a }
}
