/**
 * Repository settings for `check-size` (and the baseline path for both
 * commands): `sstkit.config.json`, or the `"sstkit"` key of package.json, in
 * the working directory, or a file named with --config. Command-line flags
 * override them.
 *
 *   { "checkSize": { "baseline": "sstkit-baseline.json", "maxIncrease": "1%",
 *     "maxIncreaseBytes": "4KiB", "minChangeBytes": 64, "metric": "file",
 *     "budgets": { "stored": "64MiB", "users.sst:zstd-3-none-off": "10MB" },
 *     "allowMissing": false } }
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { METRICS, type Metric } from './compare.js'
import { transferable, UsageError } from '../errors.js'

export const CONFIG_FILE = 'sstkit.config.json'

export interface CheckSizeConfig {
  /** Relative to the config file's directory. */
  baseline?: string
  maxIncrease?: string | number
  maxIncreaseBytes?: string | number
  minChangeBytes?: string | number
  metric?: Metric
  /** CONFIG or FILE:CONFIG → SIZE. */
  budgets?: Record<string, string | number>
  allowMissing?: boolean
}

export interface LoadedConfig {
  /** Where it came from ("sstkit.config.json", "package.json#sstkit"), or null when there is none. */
  source: string | null
  /** The directory relative paths in it are relative to. */
  dir: string
  checkSize: CheckSizeConfig
}

export class ConfigError extends UsageError {
  override name = 'ConfigError'
}
transferable(ConfigError)

const KEYS: Record<keyof CheckSizeConfig, (v: unknown) => boolean> = {
  baseline: (v) => typeof v === 'string' && v !== '',
  maxIncrease: (v) => typeof v === 'string' || typeof v === 'number',
  maxIncreaseBytes: (v) => typeof v === 'string' || typeof v === 'number',
  minChangeBytes: (v) => typeof v === 'string' || typeof v === 'number',
  metric: (v) => typeof v === 'string' && (METRICS as readonly string[]).includes(v),
  budgets: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((s) => typeof s === 'string' || typeof s === 'number'),
  allowMissing: (v) => typeof v === 'boolean',
}

function parseJson(path: string): unknown {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    throw new ConfigError(`${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`)
  }
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON (${(e as Error).message})`)
  }
}

function validate(value: unknown, where: string): CheckSizeConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`${where}: expected an object`)
  const top = value as Record<string, unknown>
  for (const k of Object.keys(top)) if (k !== 'checkSize' && k !== '$schema') throw new ConfigError(`${where}: unknown key "${k}" (known: checkSize)`)
  const cs = top.checkSize ?? {}
  if (typeof cs !== 'object' || cs === null || Array.isArray(cs)) throw new ConfigError(`${where}: "checkSize" must be an object`)
  for (const [k, v] of Object.entries(cs)) {
    const check = KEYS[k as keyof CheckSizeConfig]
    if (!check) throw new ConfigError(`${where}: unknown key "checkSize.${k}" (known: ${Object.keys(KEYS).join(', ')})`)
    if (!check(v)) throw new ConfigError(`${where}: "checkSize.${k}" has an invalid value ${JSON.stringify(v)}`)
  }
  return cs as CheckSizeConfig
}

/** The explicit file, else sstkit.config.json, else package.json's "sstkit" key, in `cwd`. */
export function loadConfig(cwd: string, explicit?: string): LoadedConfig {
  if (explicit !== undefined) {
    const path = resolve(cwd, explicit)
    const data = parseJson(path)
    // An explicit package.json: its "sstkit" key.
    if (path.endsWith('package.json')) {
      const v = (data as Record<string, unknown> | null)?.sstkit
      return { source: `${explicit}#sstkit`, dir: dirname(path), checkSize: v === undefined ? {} : validate(v, `${explicit}: "sstkit"`) }
    }
    return { source: explicit, dir: dirname(path), checkSize: validate(data, explicit) }
  }
  const file = join(cwd, CONFIG_FILE)
  if (existsSync(file)) return { source: CONFIG_FILE, dir: cwd, checkSize: validate(parseJson(file), CONFIG_FILE) }
  const pkg = join(cwd, 'package.json')
  if (existsSync(pkg)) {
    const data = parseJson(pkg)
    const v = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).sstkit : undefined
    if (v !== undefined) return { source: 'package.json#sstkit', dir: cwd, checkSize: validate(v, 'package.json: "sstkit"') }
  }
  return { source: null, dir: cwd, checkSize: {} }
}
