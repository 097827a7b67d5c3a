import { Args, Flags } from '@oclif/core'
import { ExitCode, OutputBuffer, SstCommand } from '../cli/sst-command.js'
import { parseInternalKey, type RangeTombstone, type Table } from '../reader.js'
import { entryJson, entryLine, EntryView } from '../report/entries.js'

export default class Scan extends SstCommand {
  static override description = `Print the entries of SST files in key order, range tombstones included and marked.
--from, --to and --prefix seek through the index rather than reading the whole file. Keys and values print as quoted text with \\xNN escapes, or as hex with --hex.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/sample.sst --limit 5',
    "<%= config.bin %> <%= command.id %> examples/sample.sst --from 'user:000100' --to 'user:000110'",
    "<%= config.bin %> <%= command.id %> examples/sample.sst --prefix 'user:0002' --format jsonl",
    '<%= config.bin %> <%= command.id %> examples/sample.sst --hex --from 0x757365723a --input-hex',
  ]

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  static override flags = {
    from: Flags.string({ description: 'First user key to show (inclusive).' }),
    to: Flags.string({ description: 'Stop before this user key (exclusive).' }),
    prefix: Flags.string({ description: 'Only user keys starting with this prefix.', exclusive: ['from'] }),
    limit: Flags.integer({ description: 'Stop after this many entries (over all files).', min: 0 }),
    hex: Flags.boolean({ description: 'Print keys and values as hex.' }),
    'input-hex': Flags.boolean({ description: 'Read --from, --to and --prefix as hex (with or without 0x).' }),
    format: Flags.string({ description: 'Output format.', options: ['text', 'jsonl'], default: 'text' }),
    'no-range-deletions': Flags.boolean({ description: 'Leave range tombstones out.' }),
  }

  async run(): Promise<undefined> {
    const { argv, flags } = await this.parse(Scan)
    const files = this.expandFiles(argv as string[])
    const parseKey = (s: string | undefined): Uint8Array | undefined => {
      if (s === undefined) return undefined
      if (!flags['input-hex']) return new TextEncoder().encode(s)
      const h = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s
      if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) this.fail(`not a hex key: ${s}`, ExitCode.Usage)
      return Uint8Array.from(Buffer.from(h, 'hex'))
    }
    const range = { from: parseKey(flags.from), to: parseKey(flags.to), prefix: parseKey(flags.prefix) }
    const out = new OutputBuffer()
    const jsonl = flags.format === 'jsonl' || this.jsonEnabled()
    let remaining = flags.limit ?? Infinity
    let total = 0
    for (const file of files) {
      if (remaining <= 0) break
      const table = this.open(file)
      if (!table) continue
      if (!jsonl && files.length > 1) out.line(`==> ${file} <==`)
      try {
        const n = this.scanTable(table, range, remaining, {
          hex: flags.hex,
          jsonl,
          file: files.length > 1 ? file : undefined,
          rangeDeletions: !flags['no-range-deletions'],
          out,
        })
        remaining -= n
        total += n
      } catch (e) {
        out.flush()
        this.reportFileError(file, e, ExitCode.Finding)
      } finally {
        table.close()
      }
    }
    out.flush()
    void total
    return undefined
  }

  private scanTable(
    table: Table,
    range: { from?: Uint8Array; to?: Uint8Array; prefix?: Uint8Array },
    limit: number,
    o: { hex: boolean; jsonl: boolean; file?: string; rangeDeletions: boolean; out: OutputBuffer },
  ): number {
    const user = table.userComparator
    if (!user && (range.from || range.to || range.prefix)) {
      throw new Error(`cannot apply --from/--to/--prefix: unknown comparator "${table.comparatorName}"`)
    }
    const cmp = user ?? (() => 0)
    const start = range.prefix ?? range.from
    const hasPrefix = (k: Uint8Array) => startsWith(k, range.prefix!)
    const inRange = (k: Uint8Array): boolean => {
      if (range.from && cmp(k, range.from) < 0) return false
      if (range.to && cmp(k, range.to) >= 0) return false
      if (range.prefix && !hasPrefix(k)) return false
      return true
    }
    const tsSize = table.comparatorName.endsWith('.u64ts') ? 8 : 0
    const emit = (e: EntryView) => o.out.line(o.jsonl ? JSON.stringify(entryJson(e, o.hex, o.file)) : entryLine(e, o.hex))

    let tombstones: RangeTombstone[] = []
    if (o.rangeDeletions) {
      tombstones = table
        .rangeTombstones()
        .filter((t) => inRange(t.start))
        .sort((a, b) => cmp(a.start, b.start) || (BigInt(b.seq) > BigInt(a.seq) ? 1 : BigInt(b.seq) < BigInt(a.seq) ? -1 : 0))
    }
    let ti = 0
    let n = 0
    const emitTombstonesBefore = (userKey: Uint8Array | null, seq: number | bigint) => {
      while (ti < tombstones.length && n < limit) {
        const t = tombstones[ti]
        if (userKey) {
          const c = cmp(t.start, userKey)
          if (c > 0 || (c === 0 && BigInt(t.seq) < BigInt(seq))) return
        }
        emit({ userKey: t.start, seq: t.seq, type: t.type, value: t.end, timestampSize: tsSize })
        ti++
        n++
      }
    }

    const it = table.iterator()
    if (start) it.seek(start)
    else it.seekToFirst()
    for (; it.valid && n < limit; it.next()) {
      const p = parseInternalKey(it.key)
      if (range.to && cmp(p.userKey, range.to) >= 0) break
      if (range.prefix && !hasPrefix(p.userKey)) {
        // Keys are sorted: once past the prefix under a bytewise order, nothing more matches.
        if (cmp(p.userKey, range.prefix) > 0) break
        continue
      }
      emitTombstonesBefore(p.userKey, p.seq)
      if (n >= limit) break
      emit({ userKey: p.userKey, seq: p.seq, type: p.type, value: it.value, timestampSize: tsSize })
      n++
    }
    emitTombstonesBefore(null, 0)
    return n
  }
}

function startsWith(k: Uint8Array, prefix: Uint8Array): boolean {
  if (k.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (k[i] !== prefix[i]) return false
  return true
}
