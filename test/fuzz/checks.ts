/**
 * The properties every damaged table must keep, checked by test/fuzz and
 * bench/fuzz.mjs over the mutants of mutate.ts. Each check returns the
 * violations it saw, in words (an empty list is a pass), so the test asserts
 * `[]` and the bench counts them.
 *
 * In process: verifyFile never throws and words every problem as one short
 * line; every other reader (open, scan every entry and range tombstone, seek,
 * layout, filter) throws only sstkit's typed errors (never an internal one); rewrite
 * refuses an input verify flags and leaves nothing behind. Through the CLI:
 * exit 0/1/2, no stack trace, every file of a multi-file run reported, every
 * line short and printable, peak RSS bounded.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errorCode, SstkitError } from '../../src/errors.js'
import { describeFilter, filterInfo } from '../../src/table/filter-info.js'
import { tableLayout } from '../../src/table/layout.js'
import { openTable, type Table } from '../../src/table/reader.js'
import { defaultRewriteOptions, rewriteFile } from '../../src/rewrite/rewrite.js'
import { type VerifyOutcome, verifyFile } from '../../src/verify/verify.js'

/** Longest acceptable problem or error message. */
export const MAX_MESSAGE_CHARS = 300

/** Messages of JavaScript's own errors: a reader that lets one through has a bug (an internal error). */
const ENGINE_MESSAGE =
  /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not defined|Invalid typed array length|Invalid array length|out of bounds|Offset is outside|Maximum call stack|allocation failed|Cannot convert|Cannot mix BigInt|The value of "|ERR_[A-Z_]+/

/** Why `message` is not one short printable line of sstkit's own, or null when it is. */
export function messageFault(message: string, limit = MAX_MESSAGE_CHARS): string | null {
  if (message.length === 0) return 'empty message'
  if (/[\r\n]/.test(message)) return 'message spans lines'
  // Printable ASCII only: raw key or value bytes must be escaped.
  if (/[^\x20-\x7e]/.test(message)) return 'message holds control or non-ASCII bytes'
  if (message.length > limit) return `message of ${message.length} characters`
  if (ENGINE_MESSAGE.test(message)) return 'message of a JavaScript engine error (internal error)'
  return null
}

/** Why a thrown value is not a typed sstkit error about a file of `fileSize` bytes, or null. */
export function thrownFault(e: unknown, fileSize = Number.MAX_SAFE_INTEGER): string | null {
  if (!(e instanceof SstkitError)) return `threw ${e instanceof Error ? e.name : typeof e}: ${short(e)}`
  if (errorCode(e) === 'internal') return `internal error: ${short(e)}`
  const m = messageFault(e.message) ?? offsetFault(e.offset ?? null, fileSize)
  return m && `${m}: ${short(e)}`
}

/** An offset in a message is a file offset, never a value read from a corrupt handle. */
function offsetFault(offset: number | null, fileSize: number): string | null {
  if (offset === null || (Number.isSafeInteger(offset) && offset >= 0 && offset <= fileSize)) return null
  return `offset ${offset} is not a file offset (${fileSize} bytes)`
}

export interface LibraryRun {
  /** verifyFile's verdict ('threw' when it broke its promise not to throw). */
  readonly verify: VerifyOutcome['kind'] | 'threw'
  /** Verify reported the file (findings or unopenable). */
  readonly flagged: boolean
  readonly violations: string[]
  readonly ms: number
}

/** Everything the library does with a table, on `file`; `timeLimitMs` bounds the whole run. */
export function runLibrary(file: string, timeLimitMs = 10_000): LibraryRun {
  const t0 = performance.now()
  const size = statSync(file).size
  const violations: string[] = []
  const note = (what: string, fault: string | null) => {
    if (fault) violations.push(`${what}: ${fault}`)
  }

  let verify: LibraryRun['verify']
  try {
    const outcome = verifyFile(file)
    verify = outcome.kind
    if (outcome.kind === 'unopenable') note('verify', thrownFault(outcome.error, size))
    else {
      for (const p of outcome.problems) {
        note(`verify problem in ${p.block}`, messageFault(p.message))
        note(`verify problem in ${p.block}`, offsetFault(p.offset, size))
      }
      if (outcome.kind === 'findings' && outcome.problems.length === 0) violations.push('verify: findings without a problem')
    }
  } catch (e) {
    verify = 'threw'
    violations.push(`verify threw: ${short(e)}`)
  }

  let table: Table | null = null
  try {
    table = openTable(file)
  } catch (e) {
    note('open', thrownFault(e, size))
  }
  if (table) {
    try {
      const t = table
      note(
        'scan',
        attempt(() => scanAll(t), size),
      )
      note(
        'seek',
        attempt(() => seekSome(t), size),
      )
      note(
        'range tombstones',
        attempt(() => t.rangeTombstones(), size),
      )
      note(
        'layout',
        attempt(() => {
          for (const b of tableLayout(t).blocks) if (b.problem) note(`layout problem in ${b.kind} block`, messageFault(b.problem))
          for (const b of tableLayout(t, { summaryOnly: true }).blocks)
            if (b.problem) note(`layout --summary problem in ${b.kind} block`, messageFault(b.problem))
        }, size),
      )
      note(
        'filter',
        attempt(() => {
          const f = filterInfo(t)
          if (f) note('filter description', messageFault(describeFilter(f)))
        }, size),
      )
    } finally {
      table.close()
    }
  }
  const ms = performance.now() - t0
  if (ms > timeLimitMs) violations.push(`took ${Math.round(ms)} ms (limit ${timeLimitMs} ms)`)
  return { verify, flagged: verify !== 'ok', violations, ms }
}

function scanAll(table: Table): number {
  let n = 0
  const it = table.iterator()
  for (it.seekToFirst(); it.valid; it.next()) n++
  return n
}

/** Keys around and inside the table's range: seeks binary-search the index and the restart arrays. */
const SEEK_KEYS = ['', '0', 'k', 'key', 'm', 'user', 'z', '\xff\xff'].map((k) => Uint8Array.from(k, (c) => c.charCodeAt(0)))

function seekSome(table: Table): void {
  if (!table.userComparator) return // no comparator, no seek (a typed error says so)
  const it = table.iterator()
  for (const key of SEEK_KEYS) {
    it.seek(key)
    for (let i = 0; i < 3 && it.valid; i++) it.next()
  }
}

/** Run `f`; the fault of what it threw, or null. */
function attempt(f: () => unknown, fileSize?: number): string | null {
  try {
    f()
    return null
  } catch (e) {
    return thrownFault(e, fileSize)
  }
}

/**
 * Rewrite `file` into the empty directory `outDir`. An input verify flagged
 * (`flagged`) must be refused with a typed error and leave `outDir` empty; any
 * rewrite leaves at most its one output there.
 */
export function runRewrite(file: string, outDir: string, flagged: boolean): string[] {
  const violations: string[] = []
  const output = join(outDir, 'out.sst')
  let wrote = false
  try {
    rewriteFile(file, output, defaultRewriteOptions())
    wrote = true
    if (flagged) violations.push('rewrite wrote an output from an input verify reports damaged')
  } catch (e) {
    const fault = thrownFault(e)
    if (fault) violations.push(`rewrite: ${fault}`)
  }
  const left = readdirSync(outDir)
  const expected = wrote ? ['out.sst'] : []
  if (left.join('\n') !== expected.join('\n'))
    violations.push(`rewrite left ${left.length === 0 ? 'nothing' : left.join(', ')} behind (expected ${expected.join(', ') || 'nothing'})`)
  return violations
}

/** The CLI runs the fuzzers rotate through: each gets a mutant beside an intact file, and must report both. */
export const CLI_CHECKS: readonly { readonly args: readonly string[]; readonly json: boolean }[] = [
  { args: ['verify', '--json'], json: true },
  { args: ['props', '--json'], json: true },
  { args: ['layout', '--summary', '--json'], json: true },
  { args: ['layout', '--json'], json: true },
  { args: ['scan'], json: false },
  { args: ['verify'], json: false },
  { args: ['layout', '--summary'], json: false },
]

/** What a CLI run returned, with its peak RSS when measured. */
export interface CliRun {
  readonly status: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
  readonly maxRssBytes: number | null
}

/** Peak RSS of one CLI run. */
export const MAX_CLI_RSS_BYTES = 150 * 1024 * 1024

/** Preloaded into the child (node --import): on exit it writes its peak RSS, in bytes, where SSTKIT_MAX_RSS_FILE says. */
const RSS_HOOK =
  'data:text/javascript,import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.SSTKIT_MAX_RSS_FILE,String(process.resourceUsage().maxRSS*1024)))'

/** Run the CLI at `runJs` (bin/run.js) with `args`, measuring its peak RSS; killed after `timeoutMs`. */
export function spawnCli(runJs: string, args: readonly string[], timeoutMs = 30_000): CliRun {
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-rss-'))
  const rssFile = join(dir, 'rss')
  try {
    const r = spawnSync(process.execPath, ['--import', RSS_HOOK, runJs, ...args], {
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0', SSTKIT_MAX_RSS_FILE: rssFile },
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    })
    const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT'
    if (r.error && !timedOut) throw r.error
    let maxRssBytes: number | null = null
    try {
      maxRssBytes = Number(readFileSync(rssFile, 'utf8'))
    } catch {
      // killed before it could say
    }
    return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut, maxRssBytes }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The violations of one CLI run over `files`. With `json`, stdout must be the
 * command's JSON: one entry per file (an array for several files), a file it
 * could not read as {file, error} with its line on stderr too; in text, every
 * file is named on stdout or by a line on stderr.
 */
export function cliViolations(run: CliRun, files: readonly string[], json: boolean): string[] {
  const v: string[] = []
  if (run.timedOut) v.push('timed out')
  if (run.signal) v.push(`killed by ${run.signal}`)
  if (run.status === null || ![0, 1, 2].includes(run.status)) v.push(`exit code ${run.status}`)
  if (run.maxRssBytes === null && !run.timedOut && !run.signal) v.push('peak RSS not measured')
  if (run.maxRssBytes !== null && run.maxRssBytes > MAX_CLI_RSS_BYTES) v.push(`peak RSS ${Math.round(run.maxRssBytes / 2 ** 20)} MiB`)
  if (/^\s+at /m.test(run.stderr) || /^\s+at /m.test(run.stdout)) v.push('stack trace in the output')
  const errLines = run.stderr.split('\n').filter((l) => l.length > 0)
  for (const line of errLines) {
    const fault = messageFault(line, MAX_MESSAGE_CHARS + 200)
    if (fault) v.push(`stderr line: ${fault}: ${clip(line)}`)
    if (line.includes('--debug for details')) v.push(`stderr line: internal error: ${clip(line)}`)
  }
  const onStderr = (f: string) => errLines.some((l) => l.startsWith(`sstkit: ${f}: `))
  if (!json) {
    // Text output names every file of a multi-file run (a header, or the verdict line).
    for (const f of files) if (!run.stdout.includes(f) && !onStderr(f)) v.push(`${f} not reported`)
    return v
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(run.stdout)
  } catch {
    v.push(`stdout is not JSON: ${clip(run.stdout)}`)
    return v
  }
  const results = (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[]
  if (!Array.isArray(parsed) && files.length > 1) v.push('several files, but the JSON is not an array')
  if (results.some((r) => r === null || typeof r !== 'object' || ('error' in r && typeof r.file !== 'string')))
    v.push(`JSON reports a run-wide error: ${clip(run.stdout)}`)
  // A file that cannot be read is an entry of its own ({file, error}) as well as its line on stderr.
  for (const r of results) if (r && typeof r.file === 'string' && 'error' in r && !onStderr(r.file)) v.push(`${r.file}: an error entry without its stderr line`)
  const reported = new Set(results.map((r) => r?.file).filter((f): f is string => typeof f === 'string'))
  for (const f of files) if (!reported.has(f)) v.push(`${f} missing from the JSON${onStderr(f) ? ' (only on stderr)' : ''}`)
  return v
}

function short(e: unknown): string {
  return clip(e instanceof Error ? `${e.name}: ${e.message}` : String(e))
}

function clip(s: string): string {
  const one = s.replace(/[^\x20-\x7e]/g, '?')
  return one.length > 160 ? `${one.slice(0, 160)}...` : one
}
