/** libbz2's per-call state comes from malloc's arenas, not from pages mapped for every block (codec/bzip2.ts). */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { assertFreshBuild, ROOT } from '../helpers.js'

/**
 * Minor page faults of 200 BZip2 compressions and decompressions of a 16 KiB block after 100 more, in a
 * process of its own started as bin/run.cjs's shebang starts one (128 KiB mmap threshold, 2 MiB trim threshold).
 */
function faultsOf200Blocks(): number {
  const dist = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', p)).href)
  const code = `import { bzip2Compress, bzip2Decompress } from ${dist('codec/bzip2.js')}
const raw = new Uint8Array(16384).map((_, i) => (i * 2654435761) >>> 27)
// libbz2 loaded (the threshold raised), the JavaScript around the calls compiled and its heap grown before counting.
for (let i = 0; i < 100; i++) bzip2Decompress(bzip2Compress(raw), raw.length)
const before = process.resourceUsage().minorPageFault
for (let i = 0; i < 200; i++) bzip2Decompress(bzip2Compress(raw), raw.length)
process.stdout.write(String(process.resourceUsage().minorPageFault - before))`
  const env = { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '2097152' }
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env }))
}

describe('BZip2 state', () => {
  it('a block compressed and decompressed takes under 10 page faults (~120 when libbz2 maps its state afresh)', () => {
    assertFreshBuild()
    expect(faultsOf200Blocks()).toBeLessThan(200 * 10)
  })
})
