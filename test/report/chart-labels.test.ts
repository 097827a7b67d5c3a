/** Label placement for advise's charts: no label over another or over a point, inside the plot; required ones set off with a leader line. */
import { describe, expect, it } from 'vitest'
import { type Box, type LabelRequest, labelBox, overlaps, placeLabels } from '../../src/report/chart-labels.js'

const PLOT: Box = { left: 70, top: 60, right: 720, bottom: 380 }
const marker = (x: number, y: number, r = 4): Box => ({ left: x - r, right: x + r, top: y - r, bottom: y + r })
const request = (key: string, x: number, y: number, extra: Partial<LabelRequest> = {}): LabelRequest => ({
  key,
  x,
  y,
  radius: 4,
  text: key,
  fontSize: 10,
  sides: ['right', 'left', 'top', 'bottom'],
  ...extra,
})

describe('placeLabels', () => {
  it('puts a label on the first side where it covers nothing, slid inside the plot', () => {
    const a = request('zstd 3', 300, 200)
    expect(placeLabels([a], [marker(300, 200)], PLOT).get('zstd 3')?.box).toEqual(labelBox(a, 'right', PLOT))
    // At the right edge: not right (outside), so left.
    const edge = request('zstd 19', 715, 200)
    expect(placeLabels([edge], [marker(715, 200)], PLOT).get('zstd 19')?.box).toEqual(labelBox(edge, 'left', PLOT))
    // On the bottom edge, a label beside it is slid up to stay inside, still facing the point.
    const low = request('lz4', 300, 380)
    const box = placeLabels([low], [marker(300, 380)], PLOT).get('lz4')!.box
    expect(box.bottom).toBeLessThanOrEqual(PLOT.bottom)
    expect(box.top).toBeLessThanOrEqual(380)
  })

  it('two points side by side: the second label goes elsewhere, or is left off; never over the other', () => {
    const points = [request('zstd 3', 300, 200), request('zstd 3 +checksum', 306, 201), request('zstd 3 dict=train', 303, 199)]
    const markers = points.map((p) => marker(p.x, p.y))
    const placed = placeLabels(points, markers, PLOT)
    const boxes = [...placed.values()].flatMap((p) => (p ? [p.box] : []))
    expect(boxes.length).toBeGreaterThanOrEqual(2)
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) expect(overlaps(a, b)).toBe(false)
      for (const m of markers) expect(overlaps(a, m)).toBe(false)
      expect(a.left >= PLOT.left && a.right <= PLOT.right && a.top >= PLOT.top && a.bottom <= PLOT.bottom).toBe(true)
    }
  })

  it('a required label crowded in is set off farther, with a leader line from its marker', () => {
    // A ring of points around the recommendation: no side beside it is clean.
    const ring = [-1, 0, 1].flatMap((dx) => [-1, 0, 1].map((dy) => [300 + dx * 14, 200 + dy * 14] as const)).filter(([x, y]) => x !== 300 || y !== 200)
    const markers = [marker(300, 200, 10), ...ring.map(([x, y]) => marker(x, y))]
    const rec = request('recommended: zstd 3', 300, 200, { radius: 10, fontSize: 12, bold: true, required: true })
    const placed = placeLabels([rec], markers, PLOT).get('recommended: zstd 3')!
    for (const m of markers) expect(overlaps(placed.box, m)).toBe(false)
    expect(placed.leader).not.toBeNull()
    const { x1, y1 } = placed.leader!
    expect(Math.hypot(x1 - 300, y1 - 200)).toBeCloseTo(10, 6)
    // Not required: left off.
    expect(placeLabels([{ ...rec, required: false }], markers, PLOT).get('recommended: zstd 3')).toBeNull()
  })
})
