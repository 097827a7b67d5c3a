// `sstkit rewrite` time and peak RSS next to the real RocksDB 7.8.3 doing comparable work in the
// same run, interleaved round by round (this VM's speed drifts: compare rows of one round):
//
//   - sst_dump --command=recompress --compression_types=kZSTD: reads and recompresses every block
//     (the closest real tool to rewrite; it writes nothing);
//   - sstkit rewrite (zstd), rewrite --dict finalize (blocks buffered for the dictionary, spilled
//     past 4 MiB), rewrite --ingestible;
//   - ldb ingest_extern_sst of the --ingestible output into a fresh DB (RocksDB reading it).
//
//   node bench/rewrite.mjs [FILE.sst] [--rounds N]
//
// FILE defaults to the first .sst of ~/.cache/sstkit-bench/advise-db (bench/advise.mjs makes it)
// or ~/.cache/sstkit-bench/bench.sst (bench/gen-sst.mjs). Peak RSS from /usr/bin/time -f %M.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CACHE = join(homedir(), '.cache/sstkit-bench')
const args = process.argv.slice(2)
const roundsAt = args.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 2
const positional = args.filter((a, i) => !a.startsWith('--') && (roundsAt < 0 || i !== roundsAt + 1))

function defaultFile() {
  const db = join(CACHE, 'advise-db')
  if (existsSync(db)) {
    const ssts = readdirSync(db)
      .filter((n) => n.endsWith('.sst'))
      .sort()
    if (ssts.length > 0) return join(db, ssts[0])
  }
  const bench = join(CACHE, 'bench.sst')
  if (existsSync(bench)) return bench
  console.error(`no bench file: pass FILE.sst, or make one with node bench/gen-sst.mjs ${bench}`)
  process.exit(2)
}

const file = positional[0] ?? defaultFile()
const work = mkdtempSync(join(tmpdir(), 'sstkit-bench-rewrite-'))
// bin/run.cjs itself: its shebang sets the allocator and V8 options users run with.
const sstkit = [join(ROOT, 'bin/run.cjs')]

/** Run under /usr/bin/time: wall seconds and peak RSS in MB; fails loudly on a non-zero exit. */
function measure(argv) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', ...argv], { encoding: 'utf8', maxBuffer: 256 << 20 })
  const last = r.stderr.trim().split('\n').pop()
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`)
  const [seconds, kb] = last.split(' ').map(Number)
  return { seconds, rssMb: kb / 1024 }
}

const out = (name) => join(work, name)
const cases = [
  { name: 'sst_dump --command=recompress (zstd)', argv: () => ['sst_dump', `--file=${file}`, '--command=recompress', '--compression_types=kZSTD'] },
  { name: 'sstkit rewrite (zstd)', argv: () => [...sstkit, 'rewrite', file, '-o', out('plain.sst'), '--force'] },
  { name: 'sstkit rewrite --dict finalize', argv: () => [...sstkit, 'rewrite', file, '-o', out('dict.sst'), '--force', '--dict', 'finalize'] },
  { name: 'sstkit rewrite --ingestible', argv: () => [...sstkit, 'rewrite', file, '-o', out('ingest.sst'), '--force', '--ingestible'] },
  {
    name: 'ldb ingest_extern_sst of the --ingestible output',
    argv: () => {
      rmSync(out('db'), { recursive: true, force: true })
      return ['ldb', `--db=${out('db')}`, '--create_if_missing', 'ingest_extern_sst', out('ingest.sst')]
    },
  },
]

console.log(`file: ${file} (${(statSync(file).size / 1e6).toFixed(1)} MB), ${rounds} interleaved rounds`)
const results = cases.map(() => [])
try {
  for (let round = 0; round < rounds; round++) {
    cases.forEach((c, i) => {
      const m = measure(c.argv())
      results[i].push(m)
      console.log(`round ${round + 1}: ${c.name}: ${m.seconds.toFixed(2)} s, ${m.rssMb.toFixed(0)} MB`)
    })
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const base = median(results[0].map((m) => m.seconds))
console.log('\n| command | median s | × sst_dump recompress | max peak RSS |')
console.log('|---|--:|--:|--:|')
cases.forEach((c, i) => {
  const s = median(results[i].map((m) => m.seconds))
  const rss = Math.max(...results[i].map((m) => m.rssMb))
  console.log(`| ${c.name} | ${s.toFixed(2)} | ${(s / base).toFixed(2)} | ${rss.toFixed(0)} MB |`)
})
