/** Flags that say how to read a table where the file itself does not: its comparator and its key format. */
import { Flags } from '@oclif/core'
import { KNOWN_COMPARATORS } from '../format/internal-key.js'
import type { OpenTableOptions } from '../reader.js'

export const tableFlags = {
  comparator: Flags.string({
    description:
      "The files' user comparator, when they record one sstkit does not implement or none at all (LevelDB): key order is checked, and seeks run, under it.",
    options: [...KNOWN_COMPARATORS],
  }),
  'key-format': Flags.string({
    description:
      'How data blocks store keys: internal (user key + 8-byte sequence/type trailer), raw (plain user keys, as LevelDB TableBuilder writes them), or auto (detected).',
    options: ['auto', 'internal', 'raw'],
    default: 'auto',
  }),
}

/** The open options these flags give. */
export function tableOptions(flags: { comparator?: string; 'key-format'?: string }): Pick<OpenTableOptions, 'comparator' | 'keyFormat'> {
  return { comparator: flags.comparator, keyFormat: (flags['key-format'] ?? 'auto') as OpenTableOptions['keyFormat'] }
}
