import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'

describe('the WebAssembly kernels (src/verify, src/scan)', () => {
  it('the committed *.generated.ts modules are the assembled *.wat sources', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-wasm.mjs'), '--check'], { encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})
