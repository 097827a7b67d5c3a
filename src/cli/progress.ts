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

/** `label [#####.....] 50%`. */
export function progressBar(label: string, done: number, total: number, width = 30): string {
  const share = done / Math.max(1, total)
  const filled = Math.round(width * share)
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(100 * share)}%`
}
