/** A progress line on stderr, redrawn in place; only on a terminal, never under --json. */
export interface ProgressLine {
  show(text: string): void
  clear(): void
}

const CLEAR_LINE = '\r\x1b[K'

export function progressLine(enabled: boolean): ProgressLine {
  return {
    show: (text) => {
      if (enabled) process.stderr.write(`${CLEAR_LINE}${text}`)
    },
    clear: () => {
      if (enabled) process.stderr.write(CLEAR_LINE)
    },
  }
}

/** `label [#####.....] 50%`, then ` ETA 1m 05s` when `eta` is given (seconds left, or null while unknown). */
export function progressBar(label: string, done: number, total: number, width = 30, eta?: number | null): string {
  const share = done / Math.max(1, total)
  const filled = Math.round(width * share)
  const bar = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(100 * share)}%`
  return eta === undefined ? bar : `${bar} ETA ${eta === null ? '…' : formatSeconds(eta)}`
}

/** `42s`, `3m 07s`, `1h 02m`. */
export function formatSeconds(s: number): string {
  const t = Math.max(0, Math.round(s))
  if (t < 60) return `${t}s`
  if (t < 3600) return `${Math.floor(t / 60)}m ${String(t % 60).padStart(2, '0')}s`
  return `${Math.floor(t / 3600)}h ${String(Math.floor(t / 60) % 60).padStart(2, '0')}m`
}

/**
 * A progress bar with an estimate of the time left, from the rate so far (unknown for the first
 * second and 1%), redrawn at most every 100 ms: `update(done, total)` as work is done.
 */
export function progressWithEta(line: ProgressLine, label: string, now: () => number = () => performance.now()): { update(done: number, total: number): void } {
  const start = now()
  let shown = -Infinity
  return {
    update(done, total) {
      const t = now()
      if (t - shown < 100 && done < total) return
      shown = t
      const elapsed = (t - start) / 1000
      const eta = elapsed >= 1 && done >= total / 100 && done > 0 ? (elapsed * (total - done)) / done : null
      line.show(progressBar(label, done, total, 30, eta))
    },
  }
}
