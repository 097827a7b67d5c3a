/**
 * What `sstkit props` loads (bin/run.cjs and the bundle scripts/bundle-cli.mjs writes): oclif and
 * sstkit from dist/bundle/, and none of what props does not use. A static import added somewhere
 * (a codec's built-in, a UI package) would load it for every command again; see bench/README.md,
 * "Start-up", for what each one costs.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { assertFreshBuild, ROOT } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-startup-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Preloaded into the CLI: at exit, the built-ins Node loaded and every CommonJS file compiled. */
const RECORDER = `
const Module = require('node:module')
const files = []
const compile = Module.prototype._compile
Module.prototype._compile = function (content, filename) { files.push(filename); return compile.call(this, content, filename) }
process.on('exit', () => require('node:fs').writeFileSync(process.env.SSTKIT_LOADED, JSON.stringify({ builtins: process.moduleLoadList, files })))
`

// As a user's shell runs it: the test runner's NODE_ENV=test puts oclif in development mode, where
// it registers a TypeScript loader (tsx) to find commands' sources.
const { NODE_ENV: _testEnv, NODE_OPTIONS: _testOptions, ...userEnv } = process.env

interface Loaded {
  status: number
  stdout: string
  builtins: string[]
  files: string[]
}

function loadedBy(args: string[]): Loaded {
  assertFreshBuild()
  const recorder = join(dir, 'recorder.cjs')
  const out = join(dir, `loaded-${args.join('-').replace(/\W+/g, '_')}.json`)
  writeFileSync(recorder, RECORDER)
  const r = spawnSync(process.execPath, ['--require', recorder, join(ROOT, 'bin/run.cjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...userEnv, SSTKIT_LOADED: out, FORCE_COLOR: '0' },
    timeout: 60_000,
  })
  const { builtins, files } = JSON.parse(readFileSync(out, 'utf8')) as { builtins: string[]; files: string[] }
  return { status: r.status ?? -1, stdout: r.stdout, builtins, files: files.filter((f) => f !== recorder) }
}

describe('sstkit props start-up', () => {
  const props = loadedBy(['props', 'examples/sample.sst'])

  it('prints the properties', () => {
    expect(props.status).toBe(0)
    expect(props.stdout).toContain('BlockBasedTable, format_version 5, checksum kCRC32c')
  })

  it('compiles no CommonJS file but the entry: oclif is in the bundle, and the CRC32C addon is not loaded for a few KiB', () => {
    expect(props.files).toEqual([join(ROOT, 'bin/run.cjs')])
  })

  it('loads none of the built-ins only other commands use', () => {
    for (const unused of ['zlib', 'worker_threads', 'child_process', 'readline', 'perf_hooks', 'internal/process/report']) {
      expect(props.builtins, unused).not.toContain(`NativeModule ${unused}`)
    }
  })
})

describe('the stand-ins load the real module when it is used', () => {
  it('help renders with oclif packages loaded on first use (string-width, wrap-ansi...)', () => {
    const help = loadedBy(['--help'])
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^ {2}verify {2,}/m)
    expect(help.files.some((f) => f.includes('/node_modules/wrap-ansi/'))).toBe(true)
  })

  it('a zlib SST is decompressed through the lazy node:zlib', () => {
    const r = loadedBy(['scan', 'test/fixtures/real/fv1-zlib.sst', '--limit', '1'])
    expect(r.status).toBe(0)
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1)
    expect(r.builtins).toContain('NativeModule zlib')
  })
})

describe('sstkit sst-dump start-up', () => {
  /** Every ES module the process loads, recorded by a loader hook (the bundle is ES modules). */
  function esModulesOf(args: string[]): { status: number; stdout: string; urls: string[] } {
    assertFreshBuild()
    const log = join(dir, `esm-${args.join('-').replace(/\W+/g, '_')}.txt`)
    const hooks = join(dir, 'hooks.mjs')
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs'\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context) }\n`,
    )
    const register = join(dir, 'register.mjs')
    writeFileSync(register, `import { register } from 'node:module'\nregister(${JSON.stringify(`file://${hooks}`)})\n`)
    const r = spawnSync(process.execPath, ['--import', register, join(ROOT, 'bin/run.cjs'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...userEnv, FORCE_COLOR: '0' },
      timeout: 60_000,
    })
    return { status: r.status ?? -1, stdout: r.stdout, urls: readFileSync(log, 'utf8').trim().split('\n') }
  }

  it('runs the drop-in without loading oclif (scripts call it once per file)', () => {
    const r = esModulesOf(['sst-dump', '--file=examples/sample.sst', '--show_properties', '--command=none'])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('Table Properties:')
    // dist/bundle/_sst-dump.cjs is compiled by bin/run.cjs from its code cache: the ESM loader loads no module of sstkit's.
    expect(r.urls.filter((u) => u.includes('/bin/') && !u.endsWith('/bin/run.cjs'))).toEqual([])
    expect(r.urls.filter((u) => u.includes('/dist/bundle/'))).toEqual([])
    // The control: a command that goes through oclif loads it (plain `props` no longer does: props-main.test.ts).
    expect(esModulesOf(['layout', '--summary', 'examples/sample.sst']).urls.some((u) => u.endsWith('/dist/bundle/_oclif.js'))).toBe(true)
  })
})

describe('the plain bundles bin/run.cjs compiles with their code cache', () => {
  it('has a cache for each that a fresh node accepts (made under the flags node starts with)', () => {
    assertFreshBuild()
    const bundles = readdirSync(join(ROOT, 'dist/bundle')).filter((f) => f.endsWith('.cjs'))
    expect(bundles).toEqual(expect.arrayContaining(['_props.cjs', '_verify.cjs', '_scan.cjs', '_recompress.cjs', '_sst-dump.cjs']))
    // As bin/run.cjs's loadPlainBundle compiles it: CommonJS's wrapper around the bundle's text.
    const check = `const { Script } = require('node:vm'); const fs = require('node:fs'); const path = process.argv[1]
const source = '(function (exports, require, module, __filename, __dirname) {' + fs.readFileSync(path, 'utf8') + '\\n})'
process.stdout.write(String(new Script(source, { filename: path, cachedData: fs.readFileSync(path + '.cache') }).cachedDataRejected))`
    for (const b of bundles) {
      const r = spawnSync(process.execPath, ['-e', check, join(ROOT, 'dist/bundle', b)], { encoding: 'utf8', env: userEnv })
      expect(`${b}: ${r.stdout}${r.stderr}`).toBe(`${b}: false`)
    }
  })
})

describe("bin/run.js, oclif's usual entry", () => {
  it("runs sstkit as bin/run.cjs (package.json's bin) does, byte for byte", () => {
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }
    expect(pjson.bin.sstkit).toBe('./bin/run.cjs')
    for (const args of [
      ['--version'],
      ['props', 'examples/sample.sst'],
      ['verify', 'examples/sample.sst'],
      ['layout', '--summary', 'examples/sample.sst'],
      ['scna'],
    ]) {
      const [viaJs, viaCjs] = ['bin/run.js', 'bin/run.cjs'].map((entry) =>
        spawnSync(process.execPath, [join(ROOT, entry), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...userEnv, FORCE_COLOR: '0' }, timeout: 60_000 }),
      )
      expect({ status: viaJs.status, stdout: viaJs.stdout, stderr: viaJs.stderr }, args.join(' ')).toEqual({
        status: viaCjs.status,
        stdout: viaCjs.stdout,
        stderr: viaCjs.stderr,
      })
    }
  })
})
