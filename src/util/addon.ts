/**
 * Loading one of sstkit's Node-API addons (dist/native/*.node, built by scripts/build-native.mjs)
 * with process.dlopen, where koffi's own load cost ~8–13 ms of CPU of each start (bench/README.md,
 * "Start-up"). Each caller names its addon by a URL literal relative to its own module: the
 * bundle (scripts/bundle-cli.mjs) re-points such literals, not computed ones.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

/** The addons loadAddon loaded, by URL. */
const loaded = new Map<string, unknown>()

/**
 * The addon at `url`, or null where it was not built, does not load here (another platform's or
 * node's build) or SSTKIT_NO_ADDON is set (which asks for the koffi paths, for tests and comparison).
 */
export function loadAddon<T>(url: URL): T | null {
  if (process.env.SSTKIT_NO_ADDON) return null
  const path = fileURLToPath(url)
  if (!existsSync(path)) return null
  try {
    const addon = createRequire(import.meta.url)(path) as T
    loaded.set(url.href, addon)
    return addon
  } catch {
    return null
  }
}

/** The addon at `url` where loadAddon has loaded it already, else null: loading it is not free. */
export function loadedAddon<T>(url: URL): T | null {
  return (loaded.get(url.href) as T | undefined) ?? null
}
