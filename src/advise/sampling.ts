/**
 * Which data blocks advise evaluates: Poisson sampling with a per-block
 * uniform draw from a keyed hash of (seed, file, block offset). A block is in
 * the sample at rate p when its draw is below p, so
 *  - the sample does not depend on --jobs, on the order files are read, or on
 *    which shard reads them (each shard draws the same numbers for its files);
 *  - raising p only adds blocks (samples are nested), which lets a level's
 *    sample grow round by round until its interval is narrow enough.
 */

/** 32-bit finaliser of MurmurHash3: a cheap, well-mixed integer hash. */
function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** A stable 32-bit key for a file: its file number in a database, a hash of its name otherwise. */
export function fileKey(name: string, fileNumber: number | null): number {
  if (fileNumber !== null) return mix32(fileNumber ^ 0x5bd1e995)
  let h = 0x811c9dc5
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193)
  return mix32(h)
}

/** The block's uniform draw in [0, 1). Offsets up to 2^53 are hashed in two halves. */
export function blockDraw(seed: number, file: number, offset: number): number {
  const lo = offset >>> 0
  const hi = Math.floor(offset / 0x100000000) >>> 0
  let h = mix32(seed ^ 0x9e3779b9)
  h = mix32(h ^ file)
  h = mix32(h ^ lo)
  h = mix32(h ^ hi ^ 0x27d4eb2f)
  return h / 0x100000000
}

/** `--shard K/N`: which shard evaluates a file (files are dealt round-robin in a fixed order). */
export interface Shard {
  index: number
  count: number
}

export function parseShard(spec: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim())
  if (!m) throw new RangeError(`--shard takes K/N with 0 <= K < N (got "${spec}")`)
  const index = Number(m[1])
  const count = Number(m[2])
  if (count < 1 || index >= count) throw new RangeError(`--shard takes K/N with 0 <= K < N (got "${spec}")`)
  return { index, count }
}

export function inShard(shard: Shard | null, filePosition: number): boolean {
  return shard === null || filePosition % shard.count === shard.index
}

/**
 * A round planned to read at least this share of a level's blocks reads all of
 * them instead: at most twice the work of the round it replaces, and the
 * level's totals are then exact (a census: zero-width intervals, stopped on
 * "all blocks") instead of estimated from most of the blocks anyway.
 */
export const CENSUS_SHARE = 0.5

/** The rate a round takes: `planned`, or 1 (the whole level) once `planned` reaches CENSUS_SHARE. */
export function roundRate(planned: number): number {
  return planned >= CENSUS_SHARE ? 1 : planned
}
