/**
 * The tests' own sum of a database's event log, kept apart from src/db/event-log.ts on purpose:
 * every LOG file read whole, every EVENT_LOG_v1 object parsed, jobs keyed by the LOG header's
 * openId id, flush (and WAL recovery) outputs on L0 by their file_size, compactions on their output_level by
 * total_output_size, a compaction's column family taken from its output files or its
 * "[cf] [JOB n] Compacting ... to Lk" line (which also places the files of a compaction whose end
 * no LOG holds); and apart from the events, each column family's flush CPU as the sum of its
 * "[cf] [JOB n] Flush lasted W microseconds, and C cpu microseconds." lines (a plain regex).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface EventSum {
  /** "cf/L<level>" → bytes written. */
  written: Map<string, number>
  /** "cf/L<level>" → raw key + value bytes of the table files created there. */
  raw: Map<string, number>
  /** "cf/L<level>" → compaction_time_cpu_micros. */
  cpuMicros: Map<string, number>
  /** column family → the cpu microseconds of its "Flush lasted" lines, and how many lines. */
  flushCpuMicros: Map<string, number>
  flushCpuLines: Map<string, number>
  first: number
  last: number
  logFiles: number
  opens: number
  flushes: number
  compactions: number
}

export function logFilesOf(db: string): string[] {
  const names = readdirSync(db).filter((n) => n === 'LOG' || /^LOG\.old\.\d+$/.test(n))
  const stamp = (n: string) => (n === 'LOG' ? Number.POSITIVE_INFINITY : Number(n.slice(8)))
  return names.sort((a, b) => stamp(a) - stamp(b)).map((n) => join(db, n))
}

export function sumEvents(db: string): EventSum {
  const kind = new Map<string, string>()
  const files = new Map<string, { cf: string; size: number; raw: number }[]>()
  const finished = new Map<string, Record<string, number>>()
  const compactingCf = new Map<string, string>()
  const compactingLevel = new Map<string, number>()
  const opens = new Set<string>()
  let openId = ''
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  let flushes = 0
  const flushCpuMicros = new Map<string, number>()
  const flushCpuLines = new Map<string, number>()
  const logs = logFilesOf(db)
  for (const path of logs) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const s = /DB Session ID:\s+(\S+)/.exec(line)
      if (s) {
        openId = s[1]
        opens.add(openId)
      }
      const c = /\[([^\]]*)\] \[JOB (\d+)\] Compacting .* to L(\d+)/.exec(line)
      if (c) {
        compactingCf.set(`${openId}#${c[2]}`, c[1])
        compactingLevel.set(`${openId}#${c[2]}`, Number(c[3]))
      }
      const lasted = /\[([^\]]*)\] \[JOB \d+\] Flush lasted \d+ microseconds, and (\d+) cpu microseconds\.$/.exec(line)
      if (lasted) {
        flushCpuMicros.set(lasted[1], (flushCpuMicros.get(lasted[1]) ?? 0) + Number(lasted[2]))
        flushCpuLines.set(lasted[1], (flushCpuLines.get(lasted[1]) ?? 0) + 1)
      }
      const at = line.indexOf('EVENT_LOG_v1 {')
      if (at < 0) continue
      const e = JSON.parse(line.slice(at + 'EVENT_LOG_v1 '.length))
      first = Math.min(first, e.time_micros)
      last = Math.max(last, e.time_micros)
      const key = `${openId}#${e.job}`
      // a reopen's WAL recovery writes its L0 table under the recovery_started job
      if (e.event === 'flush_started' || e.event === 'recovery_started') kind.set(key, 'flush')
      if (e.event === 'flush_finished') flushes++
      if (e.event === 'compaction_started' && e.cf_name) compactingCf.set(key, e.cf_name)
      if (e.event === 'table_file_creation') {
        const list = files.get(key) ?? []
        list.push({ cf: e.cf_name, size: e.file_size, raw: e.table_properties.raw_key_size + e.table_properties.raw_value_size })
        files.set(key, list)
      }
      if (e.event === 'compaction_finished') finished.set(key, e)
    }
  }
  const written = new Map<string, number>()
  const raw = new Map<string, number>()
  const cpuMicros = new Map<string, number>()
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
  for (const [key, list] of files) {
    if (kind.get(key) === 'flush') {
      for (const f of list) {
        add(written, `${f.cf}/L0`, f.size)
        add(raw, `${f.cf}/L0`, f.raw)
      }
    } else if (finished.has(key)) {
      for (const f of list) add(raw, `${f.cf}/L${finished.get(key)?.output_level}`, f.raw)
    } else if (compactingLevel.has(key)) {
      for (const f of list) {
        add(written, `${f.cf}/L${compactingLevel.get(key)}`, f.size)
        add(raw, `${f.cf}/L${compactingLevel.get(key)}`, f.raw)
      }
    }
  }
  for (const [key, e] of finished) {
    const cf = files.get(key)?.[0]?.cf ?? compactingCf.get(key)
    if (cf === undefined) continue
    add(written, `${cf}/L${e.output_level}`, e.total_output_size)
    add(cpuMicros, `${cf}/L${e.output_level}`, e.compaction_time_cpu_micros)
  }
  return { written, raw, cpuMicros, flushCpuMicros, flushCpuLines, first, last, logFiles: logs.length, opens: opens.size, flushes, compactions: finished.size }
}
