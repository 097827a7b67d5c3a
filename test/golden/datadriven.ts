/**
 * The golden-file format of test/golden/*.txt and test/format/golden/*.txt (pebble's datadriven
 * style, reduced to one program: `sstkit` for the CLI, `decode` for format/'s decoders):
 *
 *   # header comment lines (only before the first block)
 *
 *   $ PROGRAM ARGS…
 *   <stdout, exactly>
 *   --- stderr
 *   <stderr, exactly>        (section present only when stderr is not empty)
 *   exit N
 *
 * Blocks are separated by one blank line. Output that does not end in a newline is followed by the
 * line `\ no newline at end` (as diff does). ARGS split on spaces; '…' quotes one argument.
 */

export interface GoldenCase {
  args: string[]
  stdout: string
  stderr: string
  status: number
}

export interface GoldenFile {
  header: string[]
  cases: GoldenCase[]
}

const STDERR_MARK = '--- stderr'
const NO_NEWLINE = '\\ no newline at end'
const EXIT_LINE = /^exit (-?\d+)$/

export function parseArgs(line: string): string[] {
  const args: string[] = []
  for (const m of line.matchAll(/'([^']*)'|(\S+)/g)) args.push(m[1] ?? m[2])
  return args
}

export function formatArgs(args: readonly string[]): string {
  return args.map((a) => (a === '' || /[\s'"\\$]/.test(a) ? `'${a}'` : a)).join(' ')
}

/** Lines of an output section back to the exact text. */
function joinSection(lines: string[]): string {
  if (lines.length === 0) return ''
  if (lines[lines.length - 1] === NO_NEWLINE) return lines.slice(0, -1).join('\n')
  return lines.join('\n') + '\n'
}

function splitSection(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (text.endsWith('\n')) return lines.slice(0, -1)
  return [...lines, NO_NEWLINE]
}

export function parseGolden(text: string, name = 'golden file', program = 'sstkit'): GoldenFile {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const header: string[] = []
  let i = 0
  while (i < lines.length && !lines[i].startsWith('$ ')) header.push(lines[i++])
  while (header.length > 0 && header[header.length - 1] === '') header.pop()
  const cases: GoldenCase[] = []
  while (i < lines.length) {
    const start = i
    const command = parseArgs(lines[i++].slice(2))
    if (command[0] !== program) throw new Error(`${name}:${start + 1}: a block must start with "$ ${program}"`)
    const body: string[] = []
    // The block ends at an `exit N` line followed by a blank line and the next block, or the end.
    while (i < lines.length && !(EXIT_LINE.test(lines[i]) && isBlockEnd(lines, i + 1))) body.push(lines[i++])
    if (i >= lines.length) throw new Error(`${name}:${start + 1}: block has no closing "exit N" line`)
    const status = Number(EXIT_LINE.exec(lines[i++])![1])
    if (i < lines.length) i++ // the blank separator
    const mark = body.indexOf(STDERR_MARK)
    const out = mark < 0 ? body : body.slice(0, mark)
    const err = mark < 0 ? [] : body.slice(mark + 1)
    cases.push({ args: command.slice(1), stdout: joinSection(out), stderr: joinSection(err), status })
  }
  return { header, cases }
}

function isBlockEnd(lines: string[], next: number): boolean {
  if (next >= lines.length) return true
  return lines[next] === '' && (next + 1 >= lines.length || lines[next + 1].startsWith('$ '))
}

export function formatGolden(file: GoldenFile, program = 'sstkit'): string {
  const parts: string[] = []
  if (file.header.length > 0) parts.push(file.header.join('\n') + '\n')
  for (const c of file.cases) {
    const lines = [`$ ${formatArgs([program, ...c.args])}`, ...splitSection(c.stdout)]
    if (c.stderr !== '') lines.push(STDERR_MARK, ...splitSection(c.stderr))
    lines.push(`exit ${c.status}`)
    parts.push(lines.join('\n') + '\n')
  }
  return parts.join('\n')
}
