import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { capabilityPresent, staleOutputs, toolPresent } from './helpers.js'

describe('staleOutputs (the dist/ freshness check of CLI and worker tests)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-fresh-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('names sources with no output or an older one, and ignores declaration files', () => {
    const src = join(dir, 'src')
    const dist = join(dir, 'dist')
    mkdirSync(join(src, 'a'), { recursive: true })
    mkdirSync(join(dist, 'a'), { recursive: true })
    const put = (path: string, seconds: number) => {
      writeFileSync(path, '')
      utimesSync(path, seconds, seconds)
    }
    put(join(src, 'a/fresh.ts'), 1000)
    put(join(dist, 'a/fresh.js'), 2000)
    put(join(src, 'a/old.tsx'), 3000)
    put(join(dist, 'a/old.js'), 2000)
    put(join(src, 'missing.ts'), 1000)
    put(join(src, 'types.d.ts'), 5000)
    expect(staleOutputs(src, dist).sort()).toEqual(['a/old.tsx', 'missing.ts'])
  })

  it('finds nothing stale in this build (npm test builds first)', () => {
    expect(staleOutputs()).toEqual([])
  })
})

describe('toolPresent / capabilityPresent (suites that need an installed tool)', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.restoreAllMocks()
  })

  it('a present tool runs its suite, silently', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(toolPresent('sst_dump', true, 'apt-get install rocksdb-tools')).toBe(true)
    expect(warn).not.toHaveBeenCalled()
  })

  it('a missing tool fails under CI, which installs every tool', () => {
    vi.stubEnv('CI', 'true')
    expect(() => toolPresent('sst_dump', false, 'apt-get install rocksdb-tools')).toThrow(
      'sst_dump is not installed (apt-get install rocksdb-tools): CI runs every suite, and .ci/run installs it',
    )
  })

  it('a missing tool outside CI skips its suite with a warning', () => {
    vi.stubEnv('CI', '')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(toolPresent('ldb', false, 'apt-get install rocksdb-tools')).toBe(false)
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('WARNING: skipping the tests that need ldb'))
  })

  it('a capability the machine forbids warns, also under CI', () => {
    vi.stubEnv('CI', 'true')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(capabilityPresent('mounting a tmpfs', false)).toBe(false)
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('mounting a tmpfs: not allowed on this machine'))
  })
})
