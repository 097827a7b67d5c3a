// The few WebAssembly globals sstkit uses. TypeScript declares them only in
// its DOM library, which a Node CLI should not pull in; @types/node 20 has none.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array)
  }
  class Instance {
    constructor(module: Module, imports?: object)
    readonly exports: Record<string, unknown>
  }
  class Memory {
    readonly buffer: ArrayBuffer
    grow(pages: number): number
  }
  class Global {
    value: unknown
  }
}
