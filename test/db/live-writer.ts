/**
 * A real RocksDB writer running while a test reads: Debian's db_bench 7.8.3 filling a database
 * at random with small memtables and files, so that it flushes and compacts (deleting files,
 * adding others, growing the MANIFEST) every fraction of a second.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

export const DB_BENCH = ['/usr/bin/db_bench', '/usr/local/bin/db_bench'].find((p) => existsSync(p)) ?? null

export interface LiveWriter {
  dir: string
  process: ChildProcess
  /** Stop the writer (SIGTERM) and wait for it to exit. */
  stop(): Promise<void>
}

/**
 * Start db_bench on `dir` for at most `seconds`; resolves once the database has `minFiles` table
 * files. `bytesPerSec` paces the writes (rate-limited, one thread, no WAL) so the machine stays usable.
 */
export async function startWriter(dir: string, seconds: number, opts: { minFiles?: number; bytesPerSec?: number } = {}): Promise<LiveWriter> {
  if (!DB_BENCH) throw new Error('db_bench is not installed (Debian: rocksdb-tools)')
  const child = spawn(
    'timeout',
    [
      String(seconds),
      DB_BENCH,
      '--benchmarks=fillrandom',
      `--db=${dir}`,
      '--num=50000000',
      '--value_size=200',
      '--compression_ratio=0.5',
      '--write_buffer_size=1048576',
      '--target_file_size_base=1048576',
      '--max_bytes_for_level_base=4194304',
      '--compression_type=zstd',
      '--threads=1',
      '--disable_wal=1',
      `--benchmark_write_rate_limit=${opts.bytesPerSec ?? 12_000_000}`,
      '--stats_interval_seconds=0',
      '--seed=1',
    ],
    { stdio: 'ignore' },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const minFiles = opts.minFiles ?? 8
  const deadline = Date.now() + 30_000
  for (;;) {
    const files = existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.sst')).length : 0
    if (files >= minFiles && existsSync(join(dir, 'CURRENT'))) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM')
      throw new Error(`db_bench wrote ${files} table files in ${dir} before stopping`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    dir,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
