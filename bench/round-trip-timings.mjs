#!/usr/bin/env node
/**
 * Records the per-block decompression timings of a --verify-compression round trip (every
 * compressed block, one lane, no worker) and prints, for every stride of the sampled round
 * trip (src/recompress/round-trip.ts) and every phase of it, the sampled estimate and its 95%
 * interval against the exhaustive figure of the same run: how often the interval holds it.
 *
 *   node bench/round-trip-timings.mjs [--file F] [--block-size 16384] [--levels 1,3] [--dicts none]
 *                                     [--out test/fixtures/recompress/round-trip-timings.json]
 *
 * Needs `npm run build` (it imports dist/). --out writes the records (the test fixture).
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { evaluate } from '../dist/recompress/evaluate.js'
import { buildMatrix } from '../dist/recompress/config.js'
import { addCompressed, addTimed, decompressEstimate, emptyRoundTrip, inRoundTrip } from '../dist/recompress/round-trip.js'

const { values } = parseArgs({
  options: {
    file: { type: 'string', default: 'bench/data/inspect-200mb.sst' },
    'block-size': { type: 'string', default: '16384' },
    levels: { type: 'string', default: '1,3' },
    dicts: { type: 'string', default: 'none' },
    out: { type: 'string' },
  },
})
const blockSize = Number(values['block-size'])
const { configs } = buildMatrix({
  types: [7],
  levels: values.levels.split(',').map(Number),
  dicts: values.dicts.split(','),
  checksums: [false],
})
const t0 = performance.now()
const result = evaluate({
  file: values.file,
  configs,
  dictionaries: {},
  source: { blockSize: blockSize > 0 ? blockSize : null, samplePercent: 100 },
  maxCompressedBytesPerKb: 896,
  repeat: 1,
  roundTripStride: 1,
  recordRoundTrips: true,
  maxDictBytes: 16384,
  trainBytes: 1638400,
  maxDictBufferBytes: 64 << 20,
})
console.log(`${values.file}: ${configs.length} settings, one lane, ${((performance.now() - t0) / 1000).toFixed(1)} s`)

const out = []
for (const m of result.results) {
  const c = configs.find((x) => x.id === m.id)
  const label = `zstd ${c.level}${c.dict === 'none' ? '' : ` dict=${c.dict}`}`
  const rec = m.roundTripRecords
  const exact = rec.ms.reduce((a, b) => a + b, 0)
  const bytes = rec.bytes.reduce((a, b) => a + b, 0)
  console.log(`${label}: ${rec.ms.length} blocks, every one: ${exact.toFixed(1)} ms, ${(bytes / 1e3 / exact).toFixed(0)} MB/s`)
  for (const stride of [2, 4, 8, 16]) {
    let held = 0
    const widths = []
    const errors = []
    for (let phase = 0; phase < stride; phase++) {
      const s = emptyRoundTrip()
      let timed = 0
      for (let k = 0; k < rec.ms.length; k++) {
        addCompressed(s, rec.bytes[k])
        // The default phase is stride >> 1; the others are the same rule shifted.
        if (inRoundTrip(rec.index[k] + (stride >> 1) - phase, stride)) {
          addTimed(s, rec.bytes[k], rec.ms[k])
          timed += rec.ms[k]
        }
      }
      const e = decompressEstimate(s)
      const est = timed * e.scale
      if (Math.abs(est - exact) <= e.relHalf * est) held++
      widths.push(e.relHalf)
      errors.push((est - exact) / exact)
    }
    const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
    console.log(
      `  1 in ${String(stride).padStart(2)}: interval holds the exhaustive figure in ${held}/${stride} phases; ` +
        `median ±${(med(widths) * 100).toFixed(2)}%, error ${errors.map((x) => `${(x * 100).toFixed(2)}%`).join(' ')}`,
    )
  }
  out.push({ label, index: rec.index, bytes: rec.bytes, us: rec.ms.map((x) => Math.round(x * 1e4) / 10) })
}
if (values.out) {
  writeFileSync(values.out, `${JSON.stringify({ file: values.file, blockSize, settings: out })}\n`)
  console.log(`wrote ${values.out}`)
}
