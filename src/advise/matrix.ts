/** advise's matrix from --types/--levels/--dict/--checksum, through the recompression matrix's rules (recompress/config.ts). */
import { compressionShortName } from '../format/compression-type.js'
import { buildMatrix, parseTypes, type RecompressConfig } from '../recompress/config.js'
import { spec } from '../decide/settings.js'
import type { DictMode, SettingSpec } from '../types/advice.js'
import type { MatrixNote } from '../types/advice.js'

/** Settings from --types/--levels/--dict/--checksum, through the recompression matrix's rules. */
export function settingsFromMatrix(
  types: string,
  levels?: (number | null)[],
  dicts?: DictMode[],
  checksums: boolean[] = [false],
): { settings: SettingSpec[]; notes: MatrixNote[] } {
  const { configs, notes } = buildMatrix({ types: parseTypes(types), levels, dicts, checksums })
  return { settings: configs.map(fromConfig), notes }
}

export function fromConfig(c: Pick<RecompressConfig, 'type' | 'level' | 'dict' | 'checksum'>): SettingSpec {
  return spec(compressionShortName(c.type), c.level, c.dict === 'file' ? 'none' : c.dict, c.checksum)
}
