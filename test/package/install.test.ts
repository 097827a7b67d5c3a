/**
 * `npm ci` is clean on the npm of Node 20 and on npm 11: no package in the lock file declares an engine
 * that excludes the lowest Node sstkit supports (EBADENGINE), and every install script in it is approved in
 * package.json's allowScripts (npm 11 lists the ones that are not; a later npm will not run them, and then
 * zstd-napi is not built). Read from the lock file, which is what `npm ci` installs (npm 11's own
 * `npm approve-scripts --allow-scripts-pending` answers for the tree installed here, which is not always it).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'

/** npm's own range semantics (the semver package, which npm and oclif use; untyped here). */
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null
  satisfies(version: string, range: string): boolean
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'))
const packages = Object.entries(lock.packages as Record<string, { version?: string; engines?: { node?: string }; hasInstallScript?: boolean }>).filter(
  ([path]) => path !== '',
)

describe('npm ci', () => {
  it('installs nothing that declares an engine excluding the lowest supported Node (no EBADENGINE)', () => {
    const lowest = semver.minVersion(pkg.engines.node)?.version
    expect(lowest).toBe('20.19.0')
    const excluding = packages.filter(([, p]) => p.engines?.node && !semver.satisfies(lowest as string, p.engines.node)).map(([path]) => path)
    expect(excluding).toEqual([])
  })

  it("approves every install script in the lock file (allowScripts), zstd-napi's native build included", () => {
    const withScripts = packages.filter(([, p]) => p.hasInstallScript).map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 13))
    expect(withScripts).toContain('zstd-napi')
    for (const name of withScripts) expect(pkg.allowScripts?.[name], name).toBe(true)
  })
})
