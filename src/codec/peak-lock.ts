/**
 * One thread at a time for work whose native memory is large while it runs
 * and freed on return: zstd's dictionary training (ZDICT_trainFromBuffer's
 * fastCover tables, ~10 MB on 1.6 MB of samples) and a large block compressed
 * at a high level (an index block of ~0.6 MB at zstd 15 or 19: a context of ~16 MB).
 * Threads doing such work side by side (the lanes of advise and recompress)
 * share a lock, so that their peaks do not add up in the process's RSS.
 */

let lock: Int32Array | null = null

/** A lock for sharePeakLock(), to hand to every thread of a run (0 free, 1 held). */
export function newPeakLock(): SharedArrayBuffer {
  return new SharedArrayBuffer(4)
}

/** Take `shared` for such work in this thread from now on (null: no lock). */
export function sharePeakLock(shared: SharedArrayBuffer | null): void {
  lock = shared ? new Int32Array(shared) : null
}

/** Run `work` holding the shared lock (at once when none is shared). */
export function withPeakLock<T>(work: () => T): T {
  const l = lock
  if (!l) return work()
  while (Atomics.compareExchange(l, 0, 0, 1) !== 0) Atomics.wait(l, 0, 1)
  try {
    return work()
  } finally {
    Atomics.store(l, 0, 0)
    Atomics.notify(l, 0, 1)
  }
}
