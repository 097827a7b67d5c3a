/**
 * A minimal PNG decoder for test screenshots: 8-bit RGB or RGBA, not
 * interlaced (what Chromium writes). Enough to look at the pixels of a chart.
 */
import { inflateSync } from 'node:zlib'

export interface Image {
  width: number
  height: number
  /** RGBA, 4 bytes per pixel. */
  pixels: Uint8Array
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

export function decodePng(png: Buffer): Image {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG')
  let width = 0
  let height = 0
  let channels = 0
  const idat: Buffer[] = []
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    const data = png.subarray(at + 8, at + 8 + length)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      const [depth, colour, , , interlace] = data.subarray(8, 13)
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0)
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`)
      channels = colour === 6 ? 4 : 3
    } else if (type === 'IDAT') idat.push(data)
    else if (type === 'IEND') break
    at += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  const rows = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const row = rows.subarray(y * stride, (y + 1) * stride)
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride)
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? row[x - channels] : 0
      const b = up[x]
      const c = x >= channels ? up[x - channels] : 0
      const predictor = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : paeth(a, b, c)
      row[x] = (src[x] + predictor) & 0xff
    }
  }
  const pixels = new Uint8Array(width * height * 4)
  for (let i = 0; i < width * height; i++) {
    pixels[i * 4] = rows[i * channels]
    pixels[i * 4 + 1] = rows[i * channels + 1]
    pixels[i * 4 + 2] = rows[i * channels + 2]
    pixels[i * 4 + 3] = channels === 4 ? rows[i * channels + 3] : 255
  }
  return { width, height, pixels }
}

/** How many pixels are within `tolerance` of the colour, per channel. */
export function countNear(img: Image, rgb: [number, number, number], tolerance = 24): number {
  let n = 0
  for (let i = 0; i < img.pixels.length; i += 4) {
    if (Math.abs(img.pixels[i] - rgb[0]) <= tolerance && Math.abs(img.pixels[i + 1] - rgb[1]) <= tolerance && Math.abs(img.pixels[i + 2] - rgb[2]) <= tolerance)
      n++
  }
  return n
}

export function distinctColours(img: Image): number {
  const seen = new Set<number>()
  for (let i = 0; i < img.pixels.length; i += 4) seen.add((img.pixels[i] << 16) | (img.pixels[i + 1] << 8) | img.pixels[i + 2])
  return seen.size
}
