// Summarise a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time
// and by total (inclusive) time.
//
//   node bench/profile-summary.mjs PROFILE.cpuprofile [--top N]
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--'))
const topIdx = args.indexOf('--top')
const TOP = topIdx >= 0 ? Number(args[topIdx + 1]) : 25
if (!file) {
  console.error('usage: node bench/profile-summary.mjs PROFILE.cpuprofile [--top N]')
  process.exit(2)
}
const prof = JSON.parse(readFileSync(file, 'utf8'))
const nodes = new Map(prof.nodes.map((n) => [n.id, n]))
const parent = new Map()
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

// self time per node from samples and time deltas
const selfUs = new Map()
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i]
  const dt = prof.timeDeltas[i] ?? 0
  selfUs.set(id, (selfUs.get(id) ?? 0) + dt)
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0)

const label = (n) => {
  const cf = n.callFrame
  const url = cf.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '')
  const where = url ? `${url}:${cf.lineNumber + 1}:${cf.columnNumber + 1}` : ''
  return `${cf.functionName || '(anonymous)'} ${where}`.trim()
}

const self = new Map()
const incl = new Map()
for (const [id, us] of selfUs) {
  const n = nodes.get(id)
  const key = label(n)
  self.set(key, (self.get(key) ?? 0) + us)
  // inclusive: count each distinct function once per sample stack
  const seen = new Set()
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = label(nodes.get(cur))
    if (seen.has(k)) continue
    seen.add(k)
    incl.set(k, (incl.get(k) ?? 0) + us)
  }
}
const show = (title, m) => {
  console.log(`\n${title} (total ${(total / 1e6).toFixed(2)} s sampled)`)
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`${(us / 1e3).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`)
  }
}
show('self time', self)
show('inclusive time', incl)
