/**
 * cli-table3's truncation without its quadratic step. Every cell it draws computes a ten-column
 * preview of the cell for a debug message (cell.js `draw`), printed or not; on a cell of several
 * lines its `truncateWidth` drops one character at a time and measures the rest again, quadratic in
 * the cell's length: ~0.1 s of an `advise` report's rendering (a fix is proposed upstream,
 * cli-table/cli-table3#362). This gives the same string: the longest prefix at most the width
 * asked, found by halving (a prefix's width only grows with its length), with the truncation mark.
 */

/** cli-table3's utils module, as far as this file uses it. */
export interface CliTableUtils {
  strlen(str: string): number
  truncate(str: string, desiredLength: number, truncateChar?: string): string
}

/**
 * What cli-table3's `truncate(str, desiredLength, truncateChar)` returns, for a string without
 * escape sequences (anything else goes to `original`).
 */
export function truncateCell(
  str: string,
  desiredLength: number,
  truncateChar: string | undefined,
  strlen: (s: string) => number,
  original: CliTableUtils['truncate'],
): string {
  if (typeof str !== 'string' || str.includes('\x1b')) return original(str, desiredLength, truncateChar)
  const mark = truncateChar || '…'
  const width = strlen(str)
  if (width <= desiredLength) return str
  const room = desiredLength - strlen(mark)
  if (room <= 0) return mark
  // cli-table3's own shortcut where every character is one column (one line, no wide characters).
  if (str.length === width) return str.substr(0, room) + mark
  let fits = 0
  let over = str.length
  while (over - fits > 1) {
    const mid = (fits + over) >> 1
    if (strlen(str.slice(0, mid)) <= room) fits = mid
    else over = mid
  }
  return str.slice(0, fits) + mark
}

const installed = new WeakSet<object>()

/** Make cli-table3's utils truncate through truncateCell (once; cell.js calls it through the module). */
export function installCellTruncation(utils: CliTableUtils): void {
  if (installed.has(utils)) return
  installed.add(utils)
  const original = utils.truncate
  utils.truncate = (str, desiredLength, truncateChar) => truncateCell(str, desiredLength, truncateChar, utils.strlen, original)
}
