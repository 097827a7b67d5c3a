/**
 * verifyTable of one file in JavaScript alone, in WebAssembly alone and with the native kernel,
 * expected to find exactly the same (the tests of the two fast paths both use it).
 */
import { expect } from 'vitest'
import { openTable, type Table } from '../../src/table/reader.js'
import { verifyTable } from '../../src/verify/verify.js'

export function verifyThreeWays(path: string) {
  const run = (options: { wasm?: boolean; native?: boolean }) => {
    let t: Table
    try {
      t = openTable(path, { verifyChecksums: false })
    } catch (e) {
      return { openError: (e as Error).message }
    }
    try {
      return verifyTable(t, { ...options, jobs: 1 })
    } finally {
      t.close()
    }
  }
  const js = run({ wasm: false })
  const wasm = run({ native: false })
  const native = run({})
  expect(wasm).toEqual(js)
  expect(native).toEqual(js)
  return native
}
