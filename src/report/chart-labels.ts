/**
 * Where a chart's point labels go (advise's per-level charts): beside their point, on the first side
 * where the label covers no other label and no point and stays inside the plot (slid along the side
 * to stay inside while it still faces the point), in the order asked (the most important first). A
 * label with no such place is left off (its point still names its setting on hover), unless it is
 * required (today, the recommendation): that one is tried farther out, drawn with a leader line, and
 * where nothing is clean takes the place that covers the fewest. ECharts' own overlap hiding sees
 * neither the points nor the plot's edges, so the layout is done here, in pixels, before drawing.
 */

export type Side = 'right' | 'left' | 'top' | 'bottom'

export interface Box {
  left: number
  top: number
  right: number
  bottom: number
}

export interface LabelRequest {
  key: string
  /** The point's centre and its marker's radius, in pixels. */
  x: number
  y: number
  radius: number
  text: string
  fontSize: number
  bold?: boolean
  /** The sides to try, in order. */
  sides: Side[]
  required?: boolean
}

/** Pixels between a marker's edge and a label beside it. */
export const LABEL_DISTANCE = 5
/** How far beyond its marker a required label is tried, in turn. */
const FARTHER = [LABEL_DISTANCE, 24, 44, 68, 96]

/**
 * A label's box, with room for the fonts a browser may draw it in: wide sans-serif faces (DejaVu
 * Sans) run about 0.6 em a character, bold about 0.7. `distance` beyond the marker on `side`, slid
 * along that side into `bounds` as far as it still faces the point.
 */
export function labelBox(r: LabelRequest, side: Side, bounds: Box, distance = LABEL_DISTANCE): Box {
  const width = r.text.length * r.fontSize * (r.bold ? 0.7 : 0.62) + 2
  const height = r.fontSize * 1.3
  const gap = r.radius + distance
  // Into [low, high], then back as far as needed to still face `at`.
  const slide = (start: number, length: number, low: number, high: number, at: number) =>
    Math.max(at - length, Math.min(at, Math.min(Math.max(start, low), high - length)))
  if (side === 'right' || side === 'left') {
    const top = slide(r.y - height / 2, height, bounds.top, bounds.bottom, r.y)
    const left = side === 'right' ? r.x + gap : r.x - gap - width
    return { left, right: left + width, top, bottom: top + height }
  }
  const left = slide(r.x - width / 2, width, bounds.left, bounds.right, r.x)
  const top = side === 'top' ? r.y - gap - height : r.y + gap
  return { left, right: left + width, top, bottom: top + height }
}

export function overlaps(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
}

function inside(a: Box, bounds: Box): boolean {
  return a.left >= bounds.left && a.right <= bounds.right && a.top >= bounds.top && a.bottom <= bounds.bottom
}

export interface PlacedLabel {
  box: Box
  /** Set off from its point: a line joins them, from the marker's edge to the box. */
  leader: { x1: number; y1: number; x2: number; y2: number } | null
}

/** Each request's label (null: left off), given every point's marker box and the plot's bounds. */
export function placeLabels(requests: LabelRequest[], markers: Box[], bounds: Box): Map<string, PlacedLabel | null> {
  const placed: Box[] = []
  const out = new Map<string, PlacedLabel | null>()
  const covered = (box: Box) => markers.filter((m) => overlaps(box, m)).length + placed.filter((p) => overlaps(box, p)).length
  for (const r of requests) {
    const distances = r.required ? FARTHER : [LABEL_DISTANCE]
    const tries = distances.flatMap((d) => r.sides.map((side) => ({ d, box: labelBox(r, side, bounds, d) })))
    const fits = tries.filter((t) => inside(t.box, bounds))
    let chosen = fits.find((t) => covered(t.box) === 0) ?? null
    if (chosen === null && r.required) chosen = [...(fits.length ? fits : tries)].sort((a, b) => covered(a.box) - covered(b.box) || a.d - b.d)[0]
    if (chosen === null) {
      out.set(r.key, null)
      continue
    }
    placed.push(chosen.box)
    out.set(r.key, { box: chosen.box, leader: chosen.d > LABEL_DISTANCE ? leaderLine(r, chosen.box) : null })
  }
  return out
}

/** From the marker's edge, toward the box's nearest point, to that point. */
function leaderLine(r: LabelRequest, box: Box): PlacedLabel['leader'] {
  const x2 = Math.min(Math.max(r.x, box.left), box.right)
  const y2 = Math.min(Math.max(r.y, box.top), box.bottom)
  const length = Math.hypot(x2 - r.x, y2 - r.y)
  if (length <= r.radius) return null
  return { x1: r.x + ((x2 - r.x) * r.radius) / length, y1: r.y + ((y2 - r.y) * r.radius) / length, x2, y2 }
}
