import { crc32 } from 'node:zlib'
import { Resvg } from '@resvg/resvg-js'

/**
 * Reading the chart PNGs the bot posts: the chunk structure checked against the PNG spec
 * (https://www.w3.org/TR/png/: signature, IHDR first, CRC-32 of each chunk, IEND last), and the
 * pixels decoded by an image decoder, so a test can say the picture is not blank.
 */

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** A PNG's header as its IHDR chunk states it, after every chunk's CRC was checked. */
export type PngHeader = { width: number; height: number; bitDepth: number; colourType: number; chunks: string[] }

/** Parses the chunk list; throws on a bad signature, a bad CRC, a missing IHDR or IEND. */
export function readPngHeader(png: Buffer): PngHeader {
  if (!SIGNATURE.every((b, i) => png[i] === b)) throw new Error('not a PNG: bad signature')
  const chunks: string[] = []
  let off = 8
  let header: Omit<PngHeader, 'chunks'> | undefined
  while (off < png.length) {
    const len = png.readUInt32BE(off)
    const type = png.toString('ascii', off + 4, off + 8)
    const crc = png.readUInt32BE(off + 8 + len)
    if (crc !== crc32(png.subarray(off + 4, off + 8 + len))) throw new Error(`PNG chunk ${type}: bad CRC`)
    if (type === 'IHDR') {
      const data = png.subarray(off + 8, off + 8 + len)
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth: data[8], colourType: data[9] }
    }
    chunks.push(type)
    off += 12 + len
  }
  if (chunks[0] !== 'IHDR' || !header) throw new Error('PNG without IHDR first')
  if (chunks[chunks.length - 1] !== 'IEND') throw new Error('PNG without IEND last')
  return { ...header, chunks }
}

/** The PNG decoded to RGBA by resvg's image decoder (the PNG as an <image> of a same-size SVG). */
export function decodePngPixels(png: Buffer): { width: number; height: number; rgba: Buffer } {
  const { width, height } = readPngHeader(png)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}"><image width="${width}" height="${height}" xlink:href="data:image/png;base64,${png.toString('base64')}"/></svg>`
  const image = new Resvg(svg, { font: { loadSystemFonts: false } }).render()
  return { width: image.width, height: image.height, rgba: Buffer.from(image.pixels) }
}

/** How many pixels are within `tolerance` of the colour (hex `#rrggbb`) on each channel. */
export function countColour(rgba: Buffer, hex: string, tolerance = 8): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
  let n = 0
  for (let i = 0; i < rgba.length; i += 4) {
    if (Math.abs(rgba[i] - r) <= tolerance && Math.abs(rgba[i + 1] - g) <= tolerance && Math.abs(rgba[i + 2] - b) <= tolerance && rgba[i + 3] > 0) n++
  }
  return n
}
