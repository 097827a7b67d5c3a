/**
 * Builds synthetic generic blocks for unit tests of the pure decoders (not SST
 * files: real files come from real RocksDB in test/fixtures/real).
 */
import { encodeVarint } from '../../src/format/coding.js'

export interface SyntheticEntry {
  key: Uint8Array | string
  value: Uint8Array | string
}

const enc = (b: Uint8Array | string) => (typeof b === 'string' ? new TextEncoder().encode(b) : b)

export function buildBlock(entries: SyntheticEntry[], restartInterval = 16, opts: { omitValueLength?: boolean; footerFlags?: number } = {}): Uint8Array {
  const parts: number[] = []
  const restarts: number[] = []
  let prev: Uint8Array = new Uint8Array(0)
  entries.forEach((e, i) => {
    const key = enc(e.key)
    const value = enc(e.value)
    let shared = 0
    if (i % restartInterval === 0) restarts.push(parts.length)
    else while (shared < prev.length && shared < key.length && prev[shared] === key[shared]) shared++
    parts.push(...encodeVarint(shared), ...encodeVarint(key.length - shared))
    if (!opts.omitValueLength) parts.push(...encodeVarint(value.length))
    parts.push(...key.subarray(shared), ...value)
    prev = key
  })
  if (restarts.length === 0) restarts.push(0)
  const out: Uint8Array = new Uint8Array(parts.length + 4 * restarts.length + 4)
  out.set(parts)
  const view = new DataView(out.buffer)
  for (const [i, r] of restarts.entries()) view.setUint32(parts.length + 4 * i, r, true)
  view.setUint32(parts.length + 4 * restarts.length, (restarts.length | (opts.footerFlags ?? 0)) >>> 0, true)
  return out
}
