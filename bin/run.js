#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=1
// A small young generation (1 MiB semi-spaces instead of 16) keeps peak RSS of long scans
// well under 150 MB, scan worker threads included, with no measured slowdown; see bench/README.md.
import { execute } from '@oclif/core'

await execute({ dir: import.meta.url })
