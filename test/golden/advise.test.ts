/**
 * Golden tests of `sstkit advise` on committed fixture databases, in the format of golden.test.ts
 * (datadriven.ts): every `$ sstkit advise …` block in test/golden/advise/*.txt runs through the built
 * CLI and its normalised stdout, stderr and exit code must equal the block. Each case fixes the sample
 * (`--sample 100%`) and the seed, so the recommendation, its reasons and the options are the same on
 * every run (decisions rank on the reference speeds, decide/nominal.ts); only this run's timings
 * differ, and normalise() replaces them:
 *   - text and Markdown: "took 2.3 s" -> "took <time>"; the clause "; this run's own timings put
 *     … of the limit (ranked on the reference speeds, as every run is)" removed where it is on one line;
 *     the cells of the blob table's speed columns (TIMED_COLUMNS, this run's timings) -> "~" in their width;
 *   - --json (an output that parses as JSON): the values of TIMING_KEYS anywhere, and of the keys that
 *     hold this run's speeds in a level's `matrix`, a block size candidate's `read` and a blob
 *     candidate, become "<timing>"; the same clause is removed from every string.
 * The fixtures are small enough (every level under 64 KiB of sampled input, level-estimate.ts's
 * MIN_TIMED_INPUT) that their settings' shown speeds are the reference ones, so tables keep their width.
 *
 * To change an expectation: change the code, then
 *   npm run build && UPDATE_GOLDEN=1 npx vitest run test/golden
 * and review the change with `git diff test/golden`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'
import { parseGolden } from './datadriven.js'
import { describeGoldenFiles } from './runner.js'

const DIR = join(ROOT, 'test/golden/advise')
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.txt'))
  .sort()

/** Keys whose values are this run's timings wherever they appear. */
const TIMING_KEYS = new Set(['elapsedSec', 'compressMs', 'decompressMs', 'rejectedMs', 'dictMsPerFile', 'compressRates', 'decompressRates'])
/** Keys of this run's speeds inside a matrix entry, a block size candidate's read cost and a blob candidate. */
const SPEED_KEYS = new Set(['compressSecPerGB', 'decompressMBps', 'dictSecPerGB', 'readCores'])
const PLACEHOLDER = '<timing>'
const OWN_TIMINGS = /; this run's own timings put [^;]*? of the limit \(ranked on the reference speeds, as every run is\)/g

function normaliseJson(value: unknown, speeds = false): unknown {
  if (typeof value === 'string') return value.replace(OWN_TIMINGS, '')
  if (Array.isArray(value)) return value.map((v) => normaliseJson(v, speeds))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  const blobCandidate = 'option' in value && 'label' in value && 'ratio' in value
  for (const [k, v] of Object.entries(value)) {
    if (TIMING_KEYS.has(k) || ((speeds || blobCandidate) && SPEED_KEYS.has(k))) out[k] = PLACEHOLDER
    else if (k === 'matrix') out[k] = (v as unknown[]).map((x) => normaliseJson(x, true))
    else if (k === 'read') out[k] = normaliseJson(v, true)
    else out[k] = normaliseJson(v)
  }
  return out
}

/** This run's timings out of an advise output (see the header). */
function normalise(text: string): string {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{')) {
    try {
      return `${JSON.stringify(normaliseJson(JSON.parse(text)), null, 2)}\n`
    } catch {
      // Not a JSON document after all: normalised as text.
    }
  }
  const lines = text
    .replace(/\btook \d+(?:\.\d+)? (?:ms|s|min)\b/g, 'took <time>')
    .replace(OWN_TIMINGS, '')
    .split('\n')
  return timedColumns(lines).join('\n')
}

/** Columns of the blob table (report/advise-blob.ts) that hold this run's speeds. */
const TIMED_COLUMNS = new Set(['Comp s/GB', 'Dec MB/s'])

/**
 * A table whose header row names TIMED_COLUMNS (a box-drawn table's '│' cells or a Markdown table's '|'
 * cells) gets those columns' cells, in every row up to the table's end, replaced by '~' padded to the
 * same width, so that the table keeps its shape.
 */
function timedColumns(lines: string[]): string[] {
  const out = [...lines]
  for (let h = 0; h < out.length; h++) {
    const sep = out[h].startsWith('│') ? '│' : out[h].startsWith('|') ? '|' : null
    if (sep === null) continue
    const columns = out[h].split(sep).flatMap((cell, i) => (TIMED_COLUMNS.has(cell.trim()) ? [i] : []))
    if (columns.length === 0) continue
    for (let r = h + 1; r < out.length && out[r].startsWith(sep); r++) {
      const cells = out[r].split(sep)
      // A Markdown table's alignment row stays.
      if (/^[|:\- ]+$/.test(out[r])) continue
      for (const i of columns)
        if (i < cells.length - 1) {
          if (cells[i].trim() !== '') cells[i] = sep === '|' ? ' ~ ' : ` ${'~'.padStart(Math.max(1, cells[i].length - 2))} `
        }
      out[r] = cells.join(sep)
    }
  }
  return out
}

describe('advise golden files', () => {
  it('exist and each holds cases', () => {
    expect(FILES.length).toBeGreaterThan(0)
    for (const f of FILES) expect(parseGolden(readFileSync(join(DIR, f), 'utf8'), f).cases.length).toBeGreaterThan(0)
  })

  it('normalise replaces timings and nothing else', () => {
    expect(normalise('sampling: a fixed sample; took 2.3 s; seed 1\n')).toBe('sampling: a fixed sample; took <time>; seed 1\n')
    expect(normalise('│ Setting │ Comp s/GB │ Dec MB/s │\n│ zstd    │     254.0 │       11 │\n')).toBe(
      '│ Setting │ Comp s/GB │ Dec MB/s │\n│ zstd    │         ~ │        ~ │\n',
    )
    expect(normalise('| Setting | Comp s/GB | Dec MB/s |\n|---|---:|---:|\n| zstd | 254.0 | 11 |\n')).toBe(
      '| Setting | Comp s/GB | Dec MB/s |\n|---|---:|---:|\n| zstd | ~ | ~ |\n',
    )
    expect(normalise("zstd 3; this run's own timings put zstd 6 inside of the limit (ranked on the reference speeds, as every run is)\n")).toBe('zstd 3\n')
    const json = normalise(
      JSON.stringify({
        elapsedSec: 1.9,
        seed: 1,
        levels: [{ matrix: [{ compressSecPerGB: { value: 1 }, bytes: 5, sums: { compressMs: 0.1, sumU: 9 } }], today: { compressSecPerGB: { value: 2 } } }],
      }),
    )
    expect(JSON.parse(json)).toEqual({
      elapsedSec: PLACEHOLDER,
      seed: 1,
      levels: [
        { matrix: [{ compressSecPerGB: PLACEHOLDER, bytes: 5, sums: { compressMs: PLACEHOLDER, sumU: 9 } }], today: { compressSecPerGB: { value: 2 } } },
      ],
    })
  })
})

describeGoldenFiles(DIR, FILES, normalise)
