/**
 * The fuzzer in `npm test`: a few hundred deterministic mutants (fixed seeds) of
 * real RocksDB fixtures, made by test/fuzz/mutate.ts and checked against the
 * properties of test/fuzz/checks.ts, most in process and a smaller set through
 * the built CLI. bench/fuzz.mjs runs thousands of the same on demand.
 *
 * A failure names the mutant as FIXTURE:SEED; `node bench/fuzz.mjs --replay
 * FIXTURE:SEED` writes it out and says what it is.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readFixed32 } from '../../src/format/coding.js'
import { BLOCK_TRAILER_BYTES } from '../../src/format/block-trailer.js'
import { computeStoredChecksum } from '../../src/table/block-reader.js'
import { CLI_CHECKS, cliViolations, runLibrary, runRewrite, spawnCli } from './checks.js'
import { MUTATION_KINDS, type MutationKind, mapTable, type Mutant, mutant, type TableMap } from './mutate.js'
import { assertFreshBuild, fixturePath, ROOT } from '../helpers.js'

/** Every footer, checksum type, codec, index and filter kind, and the entry kinds: where the parsers differ. */
const FIXTURES = [
  'fv0-crc32c-snappy',
  'fv1-zlib',
  'fv5-checksum-nochecksum',
  'fv5-checksum-xxhash',
  'fv5-checksum-xxhash64',
  'fv5-none',
  'fv5-lz4',
  'fv5-bzip2',
  'zstd-dict-trained',
  'index-hash',
  'index-partitioned',
  'index-first-key',
  'index-restart4',
  'filter-legacy-bloom',
  'filter-ribbon',
  'data-block-hash',
  'entry-types',
  'ingested-global-seqno',
  'udt-u64ts',
  'v11-fv7-none',
  'v11-fv7-zstd-dict',
  'v10-fv6-none',
]
const PER_FIXTURE = 20
/** Mutant i of fixture f has seed SEED + 1000 f + i. */
const SEED = 0x5eed_0000

const work = mkdtempSync(join(tmpdir(), 'sstkit-fuzz-test-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Original {
  bytes: Uint8Array
  map: TableMap
}
const originals = new Map<string, Original>()
function original(name: string): Original {
  let o = originals.get(name)
  if (!o) {
    const bytes = new Uint8Array(readFileSync(fixturePath(name)))
    o = { bytes, map: mapTable(bytes) }
    originals.set(name, o)
  }
  return o
}

function mutantsOf(name: string, f: number): Mutant[] {
  const { bytes, map } = original(name)
  return Array.from({ length: PER_FIXTURE }, (_, i) => mutant(bytes, map, SEED + 1000 * f + i))
}

function writeMutant(name: string, m: Mutant): string {
  const file = join(work, `${name}.${m.seed}.sst`)
  writeFileSync(file, m.bytes)
  return file
}

describe('fuzz: mutants of real fixtures, in process', () => {
  FIXTURES.forEach((name, f) => {
    it(`${name}: ${PER_FIXTURE} mutants: no crash, hang, internal error or raw bytes; verify flags every checksum-covered change; rewrite refuses damage`, () => {
      const failures: string[] = []
      for (const m of mutantsOf(name, f)) {
        const file = writeMutant(name, m)
        const outDir = join(work, `out-${m.seed}`)
        mkdirSync(outDir)
        const lib = runLibrary(file)
        const violations = [...lib.violations, ...runRewrite(file, outDir, lib.flagged)]
        if (m.checksumCovered && !lib.flagged) violations.push('verify missed a checksum-covered change')
        for (const v of violations) failures.push(`${name}:${m.seed} ${m.kind} (${m.what}): ${v}`)
        rmSync(outDir, { recursive: true, force: true })
        rmSync(file)
      }
      expect(failures).toEqual([])
    })
  })
})

describe('fuzz: mutants bench/fuzz.mjs found', () => {
  // A meta block's handle set past the end of the file: its problem is reported at the metaindex
  // that holds the handle (where the layout walk reports it), not at the offset the handle claims.
  for (const [name, seed] of [
    ['ingested-global-seqno', 423],
    ['zstd-dict-finalize', 1064],
  ] as const)
    it(`${name}:${seed}: every property holds`, () => {
      const { bytes, map } = original(name)
      const m = mutant(bytes, map, seed)
      expect(m.kind).toBe('metaindex-handle')
      const file = writeMutant(name, m)
      const lib = runLibrary(file)
      expect(lib.flagged).toBe(true)
      expect(lib.violations).toEqual([])
      rmSync(file)
    })

  // A compressed data block whose contents break a restart point: the error names the block's offset,
  // not the block's offset plus a position in its decompressed contents (past the end of the file).
  it('v11-fv7-blob:1633: every property holds', () => {
    const { bytes, map } = original('v11-fv7-blob')
    const m = mutant(bytes, map, 1633)
    expect(m.kind).toBe('compressed-bytes')
    const file = writeMutant('v11-fv7-blob', m)
    const lib = runLibrary(file)
    expect(lib.flagged).toBe(true)
    expect(lib.violations).toEqual([])
    rmSync(file)
  })
})

describe('fuzz: the mutants themselves', () => {
  const all = FIXTURES.flatMap((name, f) => mutantsOf(name, f).map((m) => ({ name, m })))

  it('every mutant differs from its original, and the mix holds every kind and many checksum-covered changes', () => {
    const kinds = new Map<MutationKind, number>()
    for (const { name, m } of all) {
      const o = original(name).bytes
      expect(m.bytes.length !== o.length || m.bytes.some((b, i) => b !== o[i]), `${name}:${m.seed} ${m.what}`).toBe(true)
      kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1)
      // Without block checksums nothing is covered.
      if (original(name).map.checksum.checksumType === 0) expect(m.checksumCovered, `${name}:${m.seed}`).toBe(false)
    }
    for (const k of MUTATION_KINDS) expect(kinds.get(k) ?? 0, k).toBeGreaterThanOrEqual(5)
    expect(all.filter(({ m }) => m.checksumCovered).length).toBeGreaterThanOrEqual(40)
  })

  it('a mutant is the same for the same seed', () => {
    const { bytes, map } = original('fv5-none')
    for (let seed = 1; seed <= 30; seed++) expect(mutant(bytes, map, seed).bytes).toEqual(mutant(bytes, map, seed).bytes)
  })

  it('edits in place behind a checksum leave every block checksum valid (so parsers are reached); a covered flip breaks one', () => {
    const resealed: MutationKind[] = ['restart-count', 'restart-point', 'entry-varint', 'block-bytes', 'compression-type', 'property-lie']
    let checked = 0
    for (const { name, m } of all) {
      const { map, bytes } = original(name)
      if (map.checksum.checksumType === 0 || m.bytes.length !== map.size) continue
      const changed = map.blocks.filter((b) => m.bytes.subarray(b.offset, b.offset + b.size + BLOCK_TRAILER_BYTES).some((x, i) => x !== bytes[b.offset + i]))
      const broken = changed.filter((b) => {
        const stored = readFixed32(m.bytes, b.offset + b.size + 1)
        return computeStoredChecksum(map.checksum, m.bytes.subarray(b.offset, b.offset + b.size + 1), b.offset) !== stored
      })
      const id = `${name}:${m.seed} ${m.what}`
      if (resealed.includes(m.kind)) {
        expect(changed.length, id).toBe(1)
        expect(broken, id).toEqual([])
        checked++
      } else if (m.checksumCovered && changed.length > 0) {
        expect(broken.length, id).toBe(1)
        checked++
      }
    }
    expect(checked).toBeGreaterThanOrEqual(100)
  })
})

describe('fuzz: mutants through the CLI', () => {
  const RUN_JS = join(ROOT, 'bin/run.js')
  /** About 0.3 s a run on a quiet machine; generous for a busy one. */
  const CLI_TIMEOUT_MS = 240_000
  /** For each command of CLI_CHECKS in turn, the kinds of its mutants: where each command has failed before, and blind damage. */
  const CLI_KINDS: MutationKind[][] = [
    ['checksum-type', 'bit-flip'],
    ['compression-type', 'metaindex-handle'],
    ['block-bytes', 'truncate'],
    ['restart-point', 'entry-varint'],
    ['compressed-bytes', 'delete'],
    ['checksum-type', 'insert'],
    ['restart-count', 'footer-handle'],
  ]
  const RUNS = CLI_KINDS.flat().length
  const cliFixtures = ['fv5-none', 'index-partitioned', 'filter-ribbon', 'v11-fv7-zstd-dict', 'fv0-crc32c-snappy', 'entry-types', 'v10-fv6-none']

  it(
    `${RUNS} multi-file runs: exit 0/1/2, every file reported, no stack trace, short printable lines, peak RSS under 150 MB`,
    () => {
      assertFreshBuild()
      const failures: string[] = []
      expect(CLI_KINDS.length).toBe(CLI_CHECKS.length)
      for (let j = 0; j < RUNS; j++) {
        const c = j % CLI_CHECKS.length
        const round = Math.floor(j / CLI_CHECKS.length)
        const name = cliFixtures[(round + c) % cliFixtures.length]
        const { bytes, map } = original(name)
        const m = mutant(bytes, map, SEED + 500_000 + j, [CLI_KINDS[c][round]])
        const file = writeMutant(name, m)
        const intact = fixturePath(name)
        const files = j % 2 === 0 ? [file, intact] : [intact, file]
        const check = CLI_CHECKS[c]
        const run = spawnCli(RUN_JS, [...check.args, ...files])
        for (const v of cliViolations(run, files, check.json)) failures.push(`${name}:${m.seed} ${m.kind} (${m.what}) ${check.args.join(' ')}: ${v}`)
        rmSync(file)
      }
      expect(failures).toEqual([])
    },
    CLI_TIMEOUT_MS,
  )

  it(
    'rewrite of a damaged input exits 1 or 2, writes no output and leaves nothing behind',
    () => {
      assertFreshBuild()
      const failures: string[] = []
      const kinds: MutationKind[] = ['bit-flip', 'restart-count', 'property-lie', 'metaindex-handle', 'compression-type']
      kinds.forEach((kind, j) => {
        const name = cliFixtures[j]
        const { bytes, map } = original(name)
        // The first seed whose mutant verify flags (bounded: a clean mutant is skipped, not asserted on).
        for (let s = 0; s < 20; s++) {
          const m = mutant(bytes, map, SEED + 600_000 + 100 * j + s, [kind])
          const file = writeMutant(name, m)
          if (!runLibrary(file).flagged) continue
          const outDir = join(work, `cli-out-${m.seed}`)
          mkdirSync(outDir)
          const run = spawnCli(RUN_JS, ['rewrite', file, '-o', join(outDir, 'out.sst')])
          const id = `${name}:${m.seed} ${m.kind} (${m.what})`
          for (const v of cliViolations(run, [file], false)) failures.push(`${id}: ${v}`)
          if (run.status !== 1 && run.status !== 2) failures.push(`${id}: rewrite exited ${run.status}`)
          const left = readdirSync(outDir)
          if (left.length > 0) failures.push(`${id}: rewrite left ${left.join(', ')}`)
          return
        }
        failures.push(`${name}: no flagged ${kind} mutant in 20 seeds`)
      })
      expect(failures).toEqual([])
    },
    CLI_TIMEOUT_MS,
  )
})
