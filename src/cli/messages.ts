/**
 * oclif's flag and argument errors in words, one line each: they arrive as multi-line text with
 * a help hint. Operating-system errors are system-errors.ts's (no oclif: props can start without it).
 */
import { Errors } from '@oclif/core'

/** Long and short names of a command's flags, for naming one in an error. */
export type FlagNames = Record<string, { char?: string; options?: readonly string[] }>

/**
 * oclif's parse errors as sstkit says them: one line, naming the flag and what it accepts,
 * and where help is. null for errors that are not parse errors.
 */
export function parseErrorLine(err: Error, flags: FlagNames, command: string): string | null {
  if (!(err instanceof Errors.CLIError) || !(err as { parse?: unknown }).parse) {
    // A flag's own parser (integers) throws a plain CLIError that oclif prefixes with "Parsing --NAME".
    if (!/^Parsing --/.test(err.message)) return null
  }
  const help = `see \`sstkit ${command} --help\``
  // biome-ignore lint/suspicious/noControlCharactersInRegex: oclif dims parts of its messages with ANSI codes
  const text = err.message.replace(/\x1b\[[0-9;]*m/g, '').replace(/\n?See more help with --help\s*$/, '')
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  const flag = (name: string) => {
    const char = flags[name]?.char
    return `--${name}${char ? ` (-${char})` : ''}`
  }
  let m = /^Parsing --([\w-]+)$/.exec(lines[0] ?? '')
  if (m) {
    const reason = lines.slice(1).join('; ')
    const int = /^Expected an integer(?: (greater|less) than or equal to (-?\d+))? but received: (.*)$/.exec(reason)
    if (int) {
      const bound = int[1] ? ` ${int[1] === 'greater' ? '>=' : '<='} ${int[2]}` : ''
      return `${flag(m[1])} ${int[3]}: expected an integer${bound}`
    }
    return `${flag(m[1])}: ${reason.replace(/^./, (c) => c.toLowerCase())}`
  }
  m = /^Expected --([\w-]+)=(.*) to be one of: (.*)$/.exec(lines[0] ?? '')
  if (m) return `${flag(m[1])} ${m[2]}: expected one of ${m[3]}`
  m = /^Nonexistent flags?: (.*)$/.exec(lines[0] ?? '')
  if (m) return `unknown flag ${m[1]} (${help})`
  m = /^Unexpected arguments?: (.*)$/.exec(lines[0] ?? '')
  if (m) return `unexpected argument ${m[1]} (${help})`
  m = /^Missing \d+ required args?:?$/.exec(lines[0] ?? '')
  if (m) {
    // The error's own list of arguments where it has one: its text is wrapped to the terminal, a long description over several lines.
    const args = (err as { args?: { name?: string; description?: string }[] }).args?.filter((a) => a.name)
    const names = args?.length ? args.map((a) => [a.name!, a.description ?? '']) : lines.slice(1).map((l) => l.split(/\s{2,}/))
    return `missing ${names.map(([name, what]) => `${name.toUpperCase()}${what ? ` (${what})` : ''}`).join(', ')} (${help})`
  }
  if (/^The following errors? occurred:$/.test(lines[0] ?? '')) {
    const reasons = lines.slice(1).map((r) => {
      const missing = /^Missing required flag ([\w-]+)$/.exec(r)
      if (missing) return `missing required flag ${flag(missing[1])}`
      return r.replace(/--([\w-]+)=(\S+) cannot also be provided when using --([\w-]+)/, '--$1 cannot be used together with --$3')
    })
    return `${reasons.join('; ')} (${help})`
  }
  return `${lines.join('; ')} (${help})`
}
