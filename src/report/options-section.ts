/**
 * An OPTIONS-file section header for a column family as advise prints it: the name escaped as
 * RocksDB's EscapeOptionString writes it (so a diff matches today's file), its bytes that are not
 * UTF-8 shown as \xNN (--write-options writes them as they are). Shared by the CFOptions and the
 * TableOptions/BlockBasedTable sections.
 */
import { escapeOptionString } from '../format/options-file.js'

/** A name's bytes that are not UTF-8 (format/exact-text.ts) as \xNN: a terminal would show each as U+FFFD. */
export const rawBytesEscaped = (s: string) => s.replace(/[\udc80-\udcff]/g, (c) => `\\x${(c.charCodeAt(0) & 0xff).toString(16)}`)

/** `[CFOptions "name"]`, `[TableOptions/BlockBasedTable "name"]`. */
export function optionsSectionHeader(title: string, columnFamily: string): string {
  return `[${title} "${rawBytesEscaped(escapeOptionString(columnFamily))}"]`
}
