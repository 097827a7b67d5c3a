/**
 * CRC32C (Castagnoli, reflected polynomial 0x82f63b78) in JavaScript, one table
 * lookup a byte. For small inputs only: loading @node-rs/crc32 costs ~6 ms,
 * while a command that reads a file's footer and meta blocks checksums a few
 * KiB (see checksum.ts, which picks between the two).
 */
const POLY = 0x82f63b78

const TABLE = (() => {
  const t = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1
    t[n] = c
  }
  return t
})()

/** crc32c(bytes), the value @node-rs/crc32's crc32c returns (unmasked); `crc`: that of the bytes before, to extend it. */
export function crc32cJs(bytes: Uint8Array, crc = 0): number {
  let c = ~crc
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8)
  return ~c >>> 0
}
