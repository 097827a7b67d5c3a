/**
 * The suite runs as a user who cannot write the checkout (a shared install, a clone read by another
 * user): vitest's default config loader bundles vitest.config.ts into node_modules/.vite-temp first (or,
 * where it cannot make that directory, beside the config), which fails there with EACCES;
 * `--configLoader runner` (vite >= 6.1) reads it in place. Checked on a copy that cannot be written
 * (vitest.config.ts and package.json, one small test file, and links to this checkout's packages in a
 * node_modules; both directories of mode 0555, and run without CAP_DAC_OVERRIDE when root, so the modes
 * hold), running the test file with the arguments package.json's scripts give vitest, and without the
 * flag, to show the check can fail.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'

const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>
/** The arguments each script gives vitest (what follows `vitest` up to the end or the next `&&`). */
const vitestArgs = Object.values(scripts).flatMap((s) => [...s.matchAll(/(?:^|&&|\s)vitest((?: (?!&&)[^ ]+)*)/g)].map((m) => m[1].trim().split(/\s+/)))

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-read-only-modules-'))
const copy = join(tmp, 'copy')
afterAll(() => {
  for (const dir of [copy, join(copy, 'node_modules')]) chmodSync(dir, 0o755)
  rmSync(tmp, { recursive: true, force: true })
})

describe('the suite under a user who cannot write the checkout', () => {
  it("package.json's scripts run vitest with --configLoader runner", () => {
    expect(vitestArgs.length).toBeGreaterThanOrEqual(2)
    for (const args of vitestArgs) expect(args.join(' ')).toMatch(/^run .*--configLoader runner|^run --configLoader runner$/)
  })

  it('with those arguments a test file runs; without them vitest fails writing its bundled config', () => {
    mkdirSync(join(copy, 'test'), { recursive: true })
    copyFileSync(join(ROOT, 'vitest.config.ts'), join(copy, 'vitest.config.ts'))
    copyFileSync(join(ROOT, 'package.json'), join(copy, 'package.json'))
    writeFileSync(join(copy, 'test/one.test.ts'), "import { expect, it } from 'vitest'\nit('runs', () => expect(1 + 1).toBe(2))\n")
    mkdirSync(join(copy, 'node_modules'))
    // (not .vite-temp or .vite: those are what must not be written)
    for (const name of readdirSync(join(ROOT, 'node_modules')).filter((n) => !n.startsWith('.')))
      symlinkSync(join(ROOT, 'node_modules', name), join(copy, 'node_modules', name))
    for (const dir of [join(copy, 'node_modules'), copy]) chmodSync(dir, 0o555)
    // Root writes whatever the mode: without CAP_DAC_OVERRIDE it cannot.
    const prefix = process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override'] : []
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS'))
    const vitest = (args: string[]) => {
      const [cmd, ...rest] = [...prefix, process.execPath, join(ROOT, 'node_modules/vitest/vitest.mjs'), ...args, 'test/one.test.ts']
      return spawnSync(cmd, rest, { cwd: copy, encoding: 'utf8', env: { ...env, FORCE_COLOR: '0', CI: '1' }, timeout: 60_000 })
    }
    const args = vitestArgs.find((a) => a.includes('--configLoader'))!
    const ok = vitest(args)
    expect(ok.stdout + ok.stderr).toMatch(/1 passed/)
    expect(ok.status, ok.stdout + ok.stderr).toBe(0)
    const bundled = vitest(['run'])
    expect(bundled.status).not.toBe(0)
    expect(bundled.stdout + bundled.stderr).toMatch(/EACCES/)
    expect(bundled.stdout + bundled.stderr).toMatch(/vitest\.config\.ts\.timestamp-/)
  })
})
