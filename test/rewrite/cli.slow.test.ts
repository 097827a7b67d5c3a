/**
 * `sstkit rewrite` as users run it (the built CLI): atomic output (a temporary file next to
 * OUT, renamed into place only when complete and verified; removed on any failure), the
 * refusals, --force, directory in -> directory out, --json, --no-verify, and clear one-line
 * errors with no partial OUT for a corrupt input, an unwritable destination and a write that
 * fails half-way (file size limit; a full tmpfs when this machine lets us mount one).
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { defaultRewriteOptions, openTable, rewrittenSize, verifyTable, type RewriteOptions } from '../../src/index.js'
import { NOT_INGESTIBLE } from '../../src/rewrite/rewrite.js'
import { BAD, capabilityPresent, fixturePath, ROOT, sstkit, type CliResult } from '../helpers.js'
import { entriesOf, names, scratchSpace } from './scratch.js'

const SAMPLE = join(ROOT, 'examples/sample.sst')
const CORRUPT = join(BAD, 'data-flip-zstd.sst')

/** The CLI's defaults, as library options. */
const DEFAULTS: RewriteOptions = defaultRewriteOptions()

/** Run the CLI under a file size limit (bash `ulimit -f`, in KiB), SIGXFSZ ignored so that writes fail with EFBIG. */
function sstkitLimited(kib: number, args: string[]): CliResult {
  const r = spawnSync('bash', ['-c', `ulimit -f ${kib}; trap '' XFSZ; exec "$0" "$@"`, process.execPath, join(ROOT, 'bin/run.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
  })
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}

/** A tmpfs of `size` (mount needs privileges: null when this machine does not allow it). */
function mountTmpfs(dir: string, opts: string): boolean {
  mkdirSync(dir, { recursive: true })
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { encoding: 'utf8' })
  return r.status === 0
}

const mounts: string[] = []

/** Whether this machine lets us mount a tmpfs (probed once; CI containers may not). */
const CAN_MOUNT = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'sstkit-mount-probe-'))
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', probe]).status === 0
  if (ok) spawnSync('umount', [probe])
  rmSync(probe, { recursive: true, force: true })
  return ok
})()

const space = scratchSpace('sstkit-rewrite-cli-', () => {
  for (const m of mounts) spawnSync('umount', [m])
})
const { scratch } = space

describe('sstkit rewrite: one file', () => {
  it('writes OUT with the same entries, leaves no temporary file, prints a summary table', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const r = sstkit(['rewrite', SAMPLE, '-o', out, '--compression', 'lz4'])
    // The one note a plain rewrite of a DB's file gives.
    expect(r.stderr).toBe(`sstkit: ${SAMPLE}: note: ${NOT_INGESTIBLE}\n`)
    expect(r.status).toBe(0)
    expect(names(d)).toEqual(['out.sst'])
    expect(entriesOf(out)).toEqual(entriesOf(SAMPLE))
    expect(r.stdout).toMatch(/Input.*Output.*Before.*After/)
    expect(r.stdout).toContain(out)
    // lz4 makes this zstd file larger: the change keeps its sign.
    expect(r.stdout).toMatch(/│ +\+\d+\.\d% │/)
  })

  it('--json gives the result as one object', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const r = sstkit(['rewrite', fixturePath('fv5-zstd'), '-o', out, '--compression', 'zstd', '--level', '19', '--format-version', '4', '--json'])
    expect(r.status).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j).toMatchObject({ input: fixturePath('fv5-zstd'), output: out, formatVersion: 4, notes: [NOT_INGESTIBLE] })
    expect(j.fileSize).toBe(statSync(out).size)
    expect(j.inputSize).toBe(statSync(fixturePath('fv5-zstd')).size)
    expect(j.entries).toBe(180)
    expect(j.dataBlocks).toBeGreaterThan(0)
  })

  it('size flags take units: --block-size 8KiB cuts the blocks --block-size 8192 does', () => {
    const d = scratch()
    const [a, b] = [join(d, 'a.sst'), join(d, 'b.sst')]
    const withUnit = sstkit(['rewrite', SAMPLE, '-o', a, '--compression', 'none', '--block-size', '8KiB', '--json'])
    const inBytes = sstkit(['rewrite', SAMPLE, '-o', b, '--compression', 'none', '--block-size', '8192', '--json'])
    expect(withUnit.status, withUnit.stderr).toBe(0)
    expect(inBytes.status, inBytes.stderr).toBe(0)
    const blocks = (r: { stdout: string }) => JSON.parse(r.stdout).dataBlocks
    expect(blocks(withUnit)).toBe(blocks(inBytes))
    // 8 KiB blocks of this file's 166 KiB of data, not the default 4 KiB
    expect(blocks(withUnit)).toBeLessThan(JSON.parse(sstkit(['rewrite', SAMPLE, '-o', join(d, 'c.sst'), '--compression', 'none', '--json']).stdout).dataBlocks)
  })

  it('--no-verify writes the same valid file', () => {
    const d = scratch()
    const a = join(d, 'a.sst')
    const r = sstkit(['rewrite', SAMPLE, '-o', a, '--no-verify', '--compression', 'snappy', '--json'])
    expect(r.status).toBe(0)
    expect(names(d)).toEqual(['a.sst'])
    expect(entriesOf(a)).toEqual(entriesOf(SAMPLE))
    const { verify: _v, force: _f, ...o } = { ...DEFAULTS, compressionType: 1 }
    expect(statSync(a).size).toBe(rewrittenSize(SAMPLE, o).fileSize)
    const t = openTable(a, { verifyChecksums: true })
    expect(verifyTable(t).ok).toBe(true)
    t.close()
  })

  it('refuses to write over the input (exit 2), however the path is spelled', () => {
    const d = scratch()
    const input = join(d, 'in.sst')
    copyFileSync(SAMPLE, input)
    const before = readFileSync(input)
    const link = join(d, 'link.sst')
    symlinkSync(input, link)
    for (const [src, out] of [
      [input, input],
      [input, join(d, '.', '..', basename(d), 'in.sst')],
      [link, input], // the input is a symlink to OUT
    ]) {
      const r = sstkit(['rewrite', src, '-o', out, '--force'])
      expect(r.status, `${src} -> ${out}`).toBe(2)
      expect(r.stderr).toMatch(/refusing to write over the input file/)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect(readFileSync(input).equals(before)).toBe(true)
    expect(names(d)).toEqual(['in.sst', 'link.sst'])
  })

  it('refuses an existing OUT without --force (exit 2); --force replaces it', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    writeFileSync(out, 'precious')
    const r = sstkit(['rewrite', SAMPLE, '-o', out])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/out\.sst exists \(use --force to replace it\)/)
    expect(readFileSync(out, 'utf8')).toBe('precious')
    const f = sstkit(['rewrite', SAMPLE, '-o', out, '--force'])
    expect(f.status).toBe(0)
    expect(entriesOf(out)).toEqual(entriesOf(SAMPLE))
    expect(names(d)).toEqual(['out.sst'])
  })

  it('a corrupt input: one line with the offset, exit 1, no OUT and no temporary file', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const r = sstkit(['rewrite', CORRUPT, '-o', out])
    expect(r.status).toBe(1)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^sstkit: .*data-flip-zstd\.sst: refusing to rewrite a damaged input: verify finds 1 problem \(first: data block at offset 0: data block checksum mismatch: .*\); --salvage writes what can still be read$/,
    )
    expect(r.stdout).toBe('')
    expect(names(d)).toEqual([])
  })

  it('an input that is not an SST at all: exit 2 as for any command that cannot open a file, no OUT', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const notSst = join(d, 'notes.txt')
    writeFileSync(notSst, 'not a table, just some text long enough to hold a footer\n'.repeat(4))
    const r = sstkit(['rewrite', notSst, '-o', out])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/^sstkit: .*notes\.txt: not an SST file: bad magic number 0x[0-9a-f]{16} in the last 8 bytes \(at offset \d+\)\n$/)
    expect(names(d)).toEqual(['notes.txt'])
  })

  it('a corrupt input with --force leaves the existing OUT untouched', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    copyFileSync(SAMPLE, out)
    const r = sstkit(['rewrite', CORRUPT, '-o', out, '--force'])
    expect(r.status).toBe(1)
    expect(readFileSync(out).equals(readFileSync(SAMPLE))).toBe(true)
    expect(names(d)).toEqual(['out.sst'])
  })

  it('an unwritable destination: a clear line about OUT, exit 2, nothing written', () => {
    const missing = join(space.root, 'no-such-dir', 'out.sst')
    const r = sstkit(['rewrite', SAMPLE, '-o', missing])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe(
      `sstkit: ${SAMPLE}: cannot write ${missing}: no such file or directory (ENOENT) (directory ${join(space.root, 'no-such-dir')} does not exist)`,
    )
    expect(existsSync(join(space.root, 'no-such-dir'))).toBe(false)

    const proc = sstkit(['rewrite', SAMPLE, '-o', '/proc/sstkit-test/out.sst'])
    expect(proc.status).toBe(2)
    expect(proc.stderr).toMatch(/^sstkit: .*: cannot write \/proc\/sstkit-test\/out\.sst: .*\n$/)

    // /sys refuses new files even to root (permission bits do not stop root, so no chmod test;
    // a container may mount /sys read-only instead).
    const sys = sstkit(['rewrite', SAMPLE, '-o', '/sys/sstkit-test.sst'])
    expect(sys.status).toBe(2)
    expect(sys.stderr.trim()).toMatch(/cannot write \/sys\/sstkit-test\.sst: (permission denied \(EACCES\)|read-only file system \(EROFS\))$/)
    expect(existsSync('/sys/sstkit-test.sst')).toBe(false)
  })

  it('a write that fails half-way (file size limit, EFBIG): clear line, exit 2, no partial OUT or temporary file', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    // sample.sst uncompressed is ~57 KB; the limit lets the first 8 KiB through, then writes fail.
    const r = sstkitLimited(8, ['rewrite', SAMPLE, '-o', out, '--compression', 'none'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe(`sstkit: ${SAMPLE}: cannot write ${out}: file too large (EFBIG)`)
    expect(names(d)).toEqual([])
    // ... and with an existing OUT and --force, that OUT survives.
    writeFileSync(out, 'precious')
    expect(sstkitLimited(8, ['rewrite', SAMPLE, '-o', out, '--compression', 'none', '--force']).status).toBe(2)
    expect(readFileSync(out, 'utf8')).toBe('precious')
    expect(names(d)).toEqual(['out.sst'])
  })

  it.runIf(capabilityPresent('mounting a tmpfs', CAN_MOUNT))('a full disk (a 32 KiB tmpfs): ENOSPC, no partial OUT', () => {
    const m = join(space.root, 'tiny')
    expect(mountTmpfs(m, 'size=32k')).toBe(true)
    mounts.push(m)
    const out = join(m, 'out.sst')
    const r = sstkit(['rewrite', SAMPLE, '-o', out, '--compression', 'none'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe(`sstkit: ${SAMPLE}: cannot write ${out}: no space left on device (ENOSPC)`)
    expect(names(m)).toEqual([])
    // A small output still fits afterwards: the space of the removed temporary file was released.
    expect(sstkit(['rewrite', fixturePath('fv5-zstd'), '-o', out]).status).toBe(0)
    expect(names(m)).toEqual(['out.sst'])
  })

  it.runIf(capabilityPresent('mounting a tmpfs', CAN_MOUNT))('a read-only file system (a read-only tmpfs): EROFS, nothing written', () => {
    const m = join(space.root, 'ro')
    expect(mountTmpfs(m, 'ro,size=64k')).toBe(true)
    mounts.push(m)
    const r = sstkit(['rewrite', SAMPLE, '-o', join(m, 'out.sst')])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toMatch(/cannot write .*out\.sst: read-only file system \(EROFS\)$/)
    expect(names(m)).toEqual([])
  })
})

describe('sstkit rewrite: directory in, directory out', () => {
  let src: string
  const files = ['a.sst', 'b.sst', 'c.sst']

  beforeAll(() => {
    src = join(space.root, 'src')
    mkdirSync(src)
    copyFileSync(SAMPLE, join(src, 'a.sst'))
    copyFileSync(fixturePath('entry-types'), join(src, 'b.sst'))
    copyFileSync(fixturePath('v11-fv7-zstd'), join(src, 'c.sst'))
    writeFileSync(join(src, 'notes.txt'), 'not an SST')
  })

  it('rewrites every .sst into the output directory (created), with a summary table', () => {
    const out = join(space.root, 'dir-out', 'nested')
    const r = sstkit(['rewrite', src, '-o', out, '--compression', 'zstd', '--level', '3'])
    expect(r.stderr.trim().split('\n')).toEqual(files.map((f) => `sstkit: ${join(src, f)}: note: ${NOT_INGESTIBLE}`))
    expect(r.status).toBe(0)
    expect(names(out)).toEqual(files)
    for (const f of files) {
      expect(entriesOf(join(out, f))).toEqual(entriesOf(join(src, f)))
      expect(r.stdout).toContain(join(src, f))
      expect(r.stdout).toContain(join(out, f))
    }
    expect(r.stdout.split('\n').filter((l) => /\.sst/.test(l))).toHaveLength(3)
  })

  it('--json gives one result per file', () => {
    const out = join(space.root, 'dir-json')
    const r = sstkit(['rewrite', src, '-o', out, '--compression', 'lz4', '--json'])
    expect(r.status).toBe(0)
    const j = JSON.parse(r.stdout) as { input: string; output: string; fileSize: number }[]
    expect(j.map((x) => x.output)).toEqual(files.map((f) => join(out, f)))
    for (const x of j) expect(x.fileSize).toBe(statSync(x.output).size)
  })

  it('a corrupt file among them: the others are written, the bad one reported (exit 1) and not written', () => {
    const mixed = join(space.root, 'mixed')
    mkdirSync(mixed)
    copyFileSync(SAMPLE, join(mixed, 'a.sst'))
    copyFileSync(CORRUPT, join(mixed, 'b.sst'))
    copyFileSync(fixturePath('fv5-lz4'), join(mixed, 'c.sst'))
    const out = join(space.root, 'mixed-out')
    const r = sstkit(['rewrite', mixed, '-o', out])
    expect(r.status).toBe(1)
    const problems = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.endsWith(NOT_INGESTIBLE))
    expect(problems).toEqual([expect.stringMatching(/^sstkit: .*b\.sst: refusing to rewrite a damaged input: .*data block checksum mismatch/)])
    expect(names(out)).toEqual(['a.sst', 'c.sst'])
  })

  it('refuses a file as the output of a directory (exit 2)', () => {
    const f = join(space.root, 'a-file')
    writeFileSync(f, 'x')
    const r = sstkit(['rewrite', src, '-o', f])
    expect(r.status).toBe(2)
    expect(r.stderr.replace(/\s*›\s*/g, ' ')).toMatch(/is a file; a directory input needs an output directory/)
  })
})

describe('sstkit rewrite: notes and usage errors', () => {
  it('says what it could not carry over (a partitioned filter) on stderr, and still succeeds', () => {
    const d = scratch()
    const r = sstkit(['rewrite', fixturePath('index-partitioned'), '-o', join(d, 'out.sst')])
    expect(r.status).toBe(0)
    expect(r.stderr).toMatch(/note: the input has a partitioned .* filter.*dropped/)
  })

  it('rejects a --dict that is neither a mode nor a file, and bad flag values (exit 2, nothing written)', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    for (const args of [
      ['--dict', join(d, 'missing.dict')],
      ['--format-version', '8'],
      ['--level', 'high'],
    ]) {
      const r = sstkit(['rewrite', SAMPLE, '-o', out, ...args])
      expect(r.status, args.join(' ')).toBe(2)
    }
    expect(names(d)).toEqual([])
  })

  it("rejects a level outside the codec's range in one line naming the flag and the range (exit 2, nothing written)", () => {
    const d = scratch()
    const r = sstkit(['rewrite', SAMPLE, '-o', join(d, 'out.sst'), '--level', '99'])
    expect(r.status).toBe(2)
    expect(r.stderr).toBe('sstkit: --level 99: zstd accepts levels -131072..22 (or the default)\n')
    const lz4 = sstkit(['rewrite', SAMPLE, '-o', join(d, 'out.sst'), '--compression', 'lz4hc', '--level', '13'])
    expect(lz4.status).toBe(2)
    expect(lz4.stderr).toBe('sstkit: --level 13: lz4hc accepts levels 1..12 (or the default)\n')
    expect(names(d)).toEqual([])
  })

  it('rejects a dictionary mode or frame checksum the codec cannot use (exit 2, one line, nothing written)', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const snappy = sstkit(['rewrite', SAMPLE, '-o', out, '--compression', 'snappy', '--dict', 'finalize'])
    expect(snappy.status).toBe(2)
    expect(snappy.stderr).toBe('sstkit: --dict finalize: snappy supports dictionary modes none\n')
    const lz4 = sstkit(['rewrite', SAMPLE, '-o', out, '--compression', 'lz4', '--dict', 'train'])
    expect(lz4.status).toBe(2)
    expect(lz4.stderr).toBe('sstkit: --dict train: lz4 supports dictionary modes none, raw, file\n')
    const checksum = sstkit(['rewrite', SAMPLE, '-o', out, '--compression', 'lz4', '--checksum', 'on'])
    expect(checksum.status).toBe(2)
    expect(checksum.stderr).toBe("sstkit: --checksum on: the frame checksum is zstd's; lz4 has none\n")
    expect(names(d)).toEqual([])
  })
})
