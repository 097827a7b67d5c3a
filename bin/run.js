#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=2097152 node
// oclif's usual entry, kept for scripts that run it: sstkit's own is bin/run.cjs (package.json's
// bin), CommonJS, which starts ~6 ms sooner than an ES module entry (bench/README.md, "Start-up").
import './run.cjs'
