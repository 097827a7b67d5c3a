/**
 * `sst_dump` as a function: the control flow of `SSTDumpTool::Run` (RocksDB
 * 7.8.3, tools/sst_dump_tool.cc; several paths as newer releases accept), with
 * byte output to the given writers and the exit code returned.
 */
import { closeSync, openSync, readdirSync, statSync } from 'node:fs'
import { writeAllSync } from '../cli/write-all.js'
import { isAbsolute, resolve } from 'node:path'
import { hexToBytes, parseSstDumpArgs, type SstDumpArgs, U64_MAX } from './args.js'
import { checksumNativelyFromStart } from '../codec/checksum.js'
import { Dumper, readsWholeFiles } from './dumper.js'
import { debugString, parseIkey783 } from './entry-text.js'
import { helpText } from './help.js'
import { propertiesToString, userPropertiesLines } from './properties.js'
import { ByteSink, type ByteWriter, hexUpper } from './sink.js'
import { SstDumpStatus } from './status.js'
import type { SequentialOptions } from './sequential.js'
// raw, recompress and the whole-file reader (with scan's parallel driver) are imported where
// their command runs: --show_properties or identify of one small file loads none of them.
import { Property } from '../format/properties.js'

export interface SstDumpIo {
  stdout: ByteWriter
  stderr: ByteWriter
  /** Directory relative paths are resolved against (default process.cwd()); paths are printed as given. */
  cwd?: string
  /** The `options.env is 0x…` pointer (default a fixed, plausible-looking address). */
  envPointer?: string
  /** sstkit's version, for --version. */
  version?: string
  /** How a whole-file scan or check is split over threads (default: every core for large files). */
  sequential?: SequentialOptions
}

export const DEFAULT_ENV_POINTER = '0x55d5c0a3e2a0'

/** Run sst_dump with `argv` (without the program name); returns the exit code. */
export async function runSstDump(argv: readonly string[], io: SstDumpIo): Promise<number> {
  const out = new ByteSink(io.stdout, 1 << 18)
  const err = new ByteSink(io.stderr, 1 << 12)
  try {
    return await run(argv, io, out, err)
  } finally {
    out.flush()
    err.flush()
  }
}

async function run(argv: readonly string[], io: SstDumpIo, out: ByteSink, err: ByteSink): Promise<number> {
  const parsed = parseSstDumpArgs(argv)
  if (parsed.kind === 'exit') {
    if (parsed.stderr) err.text(parsed.stderr)
    if (parsed.help === 'stderr') err.text(helpText())
    if (parsed.help === 'stdout') out.text(helpText())
    return parsed.code
  }
  if (parsed.kind === 'version') {
    out.text(`sst_dump (sstkit${io.version ? ` ${io.version}` : ''}, emulating RocksDB 7.8.3)\n`)
    return 0
  }
  if (parsed.kind === 'parse_internal_key') return parseInternalKey(parsed.hex, out, err)

  const a = parsed.args
  const cwd = io.cwd ?? process.cwd()
  const fsPath = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p))
  out.text(`options.env is ${io.envPointer ?? DEFAULT_ENV_POINTER}\n`)

  // Expand each path: a directory with entries lists them, anything else is one "file".
  const kinds: { path: string; dir: boolean }[] = []
  const filenames: string[] = []
  for (const p of a.files) {
    let children: string[] | null = null
    try {
      if (statSync(fsPath(p)).isDirectory()) children = readdirSync(fsPath(p)).sort()
    } catch {
      children = null
    }
    if (!children || children.length === 0) {
      let exists = true
      try {
        statSync(fsPath(p))
      } catch {
        exists = false
      }
      if (!exists) {
        err.text(`NotFound: ${p}: No such file or directory\n`)
        return 1
      }
      filenames.push(p)
      kinds.push({ path: p, dir: false })
    } else {
      for (const c of children) filenames.push(`${p}/${c}`)
      kinds.push({ path: p, dir: true })
    }
  }

  let failures = 0
  let totalRead = 0n
  const valid: string[] = []
  const totals = { files: 0n, dataBlocks: 0n, data: 0n, index: 0n, filter: 0n }
  const cmd = a.command
  // Whole files' data blocks are about to be read, and hashed natively: so are their metadata blocks.
  const whole = readsWholeFiles(a.readNum, a.hasFrom, a.hasTo, a.usePrefix)
  if (cmd === 'raw' || cmd === 'verify' || cmd === 'recompress' || ((cmd === 'check' || cmd === 'scan' || cmd === '') && whole)) checksumNativelyFromStart()
  for (const filename of filenames) {
    if (filename.length <= 4 || !filename.endsWith('.sst')) continue
    const dumper = Dumper.open(filename, fsPath(filename), out, {
      verifyChecksum: a.verifyChecksum,
      outputHex: a.outputHex,
      decodeBlobIndex: a.decodeBlobIndex,
      strict: a.strict,
    })
    try {
      if (dumper.status) {
        out.flush()
        err.text(`${filename}: ${dumper.status.message}\n`)
        err.flush()
        failures++
        continue
      }
      valid.push(filename)
      if (valid.length === 1 && (cmd === 'check' || cmd === 'scan' || cmd === '')) {
        out.text(`from [${hexUpper(a.fromKey)}] to [${hexUpper(a.toKey)}]\n`)
      }

      if (cmd === 'recompress') {
        const { showAllCompressionSizes } = await import('./recompress.js')
        const st = await showAllCompressionSizes(dumper, a, out)
        if (st) {
          out.flush()
          err.text(`Failed to recompress: ${st.message}\n`)
          return 1
        }
        return 0
      }

      if (cmd === 'raw') {
        const outName = filename.slice(0, filename.length - 4) + '_dump.txt'
        const { dumpTable } = await import('./raw.js')
        const fd = openSync(fsPath(outName), 'w')
        let status: SstDumpStatus | null
        try {
          const dump = new ByteSink((b) => writeAllSync(fd, b), 1 << 18)
          status = dumpTable(dumper, dump)
          dump.flush()
        } finally {
          closeSync(fd)
        }
        if (status) {
          out.flush()
          err.text(`${filename}: ${status.message}\n`)
          return 1
        }
        out.text(`raw dump written to file ${outName}\n`)
        continue
      }

      if (cmd === '' || cmd === 'scan' || cmd === 'check') {
        const limit = a.readNum > 0n ? (a.readNum - totalRead) & U64_MAX : a.readNum
        const { readAllEntries, readEntriesFrom } = await import('./sequential.js')
        const readAll = (printKv: boolean) => readAllEntries(dumper, printKv, out, err, io.sequential)
        const readFrom = (printKv: boolean, from: Uint8Array | null, n: bigint) => readEntriesFrom(dumper, printKv, out, err, from, n)
        const st = dumper.readSequential(cmd === 'scan', limit, a.hasFrom || a.usePrefix, a.fromKey, a.hasTo, a.toKey, a.usePrefix, out, err, readAll, readFrom)
        if (st) {
          out.flush()
          err.text(`${filename}: ${st.message}\n`)
          err.flush()
          failures++
        }
        totalRead = (totalRead + dumper.readNum) & U64_MAX
        if (a.readNum > 0n && totalRead > a.readNum) break
      }

      if (cmd === 'verify') {
        // Without --verify_checksum a data block is only read: too little work to hand to threads.
        const { verifyDataBlocks } = a.verifyChecksum ? await import('./sequential.js') : { verifyDataBlocks: null }
        const st = await dumper.verifyChecksum(verifyDataBlocks ? () => verifyDataBlocks(dumper, out, err, io.sequential) : undefined)
        if (st) {
          out.flush()
          err.text(`${filename} is corrupted: ${st.message}\n`)
          err.flush()
          failures++
        } else out.text('The file is ok\n')
        continue
      }

      if ((a.showProperties || a.showSummary) && dumper.props) {
        const p = dumper.props
        if (a.showProperties) {
          out.text('Table Properties:\n------------------------------\n  ')
          out.bytes(Buffer.from(propertiesToString(p), 'latin1'))
        }
        const n = (k: string): bigint => p.num.get(k) ?? 0n
        totals.files += 1n
        totals.dataBlocks += n(Property.NumDataBlocks)
        totals.data += n(Property.DataSize)
        totals.index += n(Property.IndexSize)
        totals.filter += n(Property.FilterSize)
        if (a.showProperties) {
          out.text('Raw user collected properties\n------------------------------\n')
          out.bytes(Buffer.from(userPropertiesLines(p), 'latin1'))
        }
      }
      if (a.listMetaBlocks) {
        out.text('Meta Blocks:\n------------------------------\n')
        for (const e of dumper.metaindex) out.text(`  ${e.name}: ${e.handle.offset} ${e.handle.size}\n`)
      }
    } finally {
      dumper.close()
    }
  }
  if (a.showSummary) {
    out.text(`total number of files: ${totals.files}\n`)
    out.text(`total number of data blocks: ${totals.dataBlocks & U64_MAX}\n`)
    out.text(`total data block size: ${totals.data & U64_MAX}\n`)
    out.text(`total index block size: ${totals.index & U64_MAX}\n`)
    out.text(`total filter block size: ${totals.filter & U64_MAX}\n`)
  }
  if (valid.length === 0) {
    for (const k of kinds) {
      if (k.dir) {
        out.text('------------------------------\n')
        out.flush()
        err.text(`No valid SST files found in ${k.path}\n`)
      } else {
        out.flush()
        err.text(`${k.path} is not a valid SST file\n`)
      }
    }
    return 1
  }
  if (cmd === 'identify') {
    if (kinds.length > 1 || kinds[0].dir) {
      out.text('------------------------------\n')
      out.text(`List of valid SST files${kinds.length === 1 ? ` found in ${kinds[0].path}` : ''}:\n`)
      for (const f of valid) out.text(`${f}\n`)
      out.text(`Number of valid SST files: ${valid.length}\n`)
    } else out.text(`${kinds[0].path} is a valid SST file\n`)
  }
  return a.strict && failures > 0 ? 1 : 0
}

/** `--parse_internal_key=0x…`: prints `key=…` and exits (255 on a bad key). */
function parseInternalKey(hex: string, out: ByteSink, err: ByteSink): number {
  const r = hexToBytes(hex)
  if (!r.ok) {
    err.text(r.printed)
    err.text(`ERROR: Invalid key input '${hex}' Use 0x{hex representation of internal rocksdb key}\n`)
    return 255
  }
  const p = parseIkey783(r.bytes)
  let code = 0
  if (!p.ok) {
    err.bytes(p.state)
    err.text('\n')
    code = 255
  }
  out.text('key=')
  out.bytes(debugString(p.userKey, p.seq, p.type, true, 0))
  out.text('\n')
  return code
}

export type { SstDumpArgs }
export { SstDumpStatus }
