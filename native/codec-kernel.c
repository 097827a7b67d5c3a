/*
 * Block compression timed as RocksDB's table builder pays it: one call
 * compresses (or decompresses) a batch of blocks, each as RocksDB compresses
 * one block (util/compression.h: a fresh LZ4 stream per block, snappy's
 * RawCompress, zstd on a reused context with the file's dictionary digested
 * once), and reports the thread CPU time (CLOCK_THREAD_CPUTIME_ID) the codec
 * work took. Timing one JavaScript-to-native call per 4 KiB block also times
 * the call, the output allocation and the copies around it, which RocksDB
 * does not have: measured on 4 KiB blocks, that overhead is several times
 * snappy's and LZ4's own work (docs/cpu.md).
 *
 * The bytes are the ones sstkit's JavaScript codecs produce (src/codec/):
 * zstd is zstd-napi's own zstd 1.5.7 (its static library, linked in by
 * scripts/build-native.mjs, symbols kept local), with the same calls as
 * src/codec/zstd.ts (ZSTD_compress2 with the dictionary loaded once);
 * LZ4, LZ4HC and Snappy are the system's liblz4 and libsnappy (dlopen), the
 * libraries src/codec/lz4.ts and snappy.ts call through koffi. Payloads are
 * framed as RocksDB stores them (format_version >= 2: varint32 size prefix
 * for zstd and LZ4; none for Snappy).
 *
 * Built by scripts/build-native.mjs into dist/native; loaded through koffi by
 * src/codec/kernel.ts. Nothing here reads or writes outside the buffers it is
 * given: an output that would not fit is an error, not a truncation.
 */
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZSTD_STATIC_LINKING_ONLY
#include "zstd.h"

/* zstd's own XXH64 (lib/common/xxhash.h, namespaced ZSTD_ in its library): what its content checksum hashes with. */
uint64_t ZSTD_XXH64(const void *input, size_t length, uint64_t seed);

/* CompressionType (format/compression-type.ts). */
enum { COMPRESSION_SNAPPY = 1, COMPRESSION_LZ4 = 4, COMPRESSION_LZ4HC = 5, COMPRESSION_ZSTD = 7 };

typedef int (*snappy_compress_fn)(const char *, size_t, char *, size_t *);
typedef int (*snappy_uncompress_fn)(const char *, size_t, char *, size_t *);
typedef size_t (*snappy_max_fn)(size_t);
typedef void *(*lz4_create_fn)(void);
typedef void *(*lz4_init_fn)(void *, size_t);
typedef int (*lz4_sizeof_fn)(void);
typedef int (*lz4_free_fn)(void *);
typedef int (*lz4_load_dict_fn)(void *, const char *, int);
typedef int (*lz4_fast_continue_fn)(void *, const char *, char *, int, int, int);
typedef void (*lz4_reset_hc_fn)(void *, int);
typedef int (*lz4_hc_continue_fn)(void *, const char *, char *, int, int);
typedef int (*lz4_decompress_fn)(const char *, char *, int, int);
typedef int (*lz4_decompress_dict_fn)(const char *, char *, int, int, const char *, int);

static struct {
  snappy_compress_fn compress;
  snappy_uncompress_fn uncompress;
  snappy_max_fn max_length;
} snappy;

static struct {
  lz4_create_fn create;
  lz4_free_fn free;
  lz4_init_fn init;
  size_t stream_bytes; /* LZ4_sizeofState(): what LZ4_initStream checks it is given */
  lz4_load_dict_fn load_dict;
  lz4_fast_continue_fn compress;
  lz4_create_fn create_hc;
  lz4_free_fn free_hc;
  lz4_reset_hc_fn reset_hc;
  lz4_load_dict_fn load_dict_hc;
  lz4_hc_continue_fn compress_hc;
  lz4_decompress_fn decompress;
  lz4_decompress_dict_fn decompress_dict;
} lz4;

static void *open_first(const char *a, const char *b) {
  void *h = dlopen(a, RTLD_NOW | RTLD_LOCAL);
  return h ? h : dlopen(b, RTLD_NOW | RTLD_LOCAL);
}

static void resolve_libraries(void) {
  /* Stay mapped for the life of the process: a worker's codecs may be freed after koffi unloads its handle. */
  Dl_info self;
  if (dladdr((void *)resolve_libraries, &self) && self.dli_fname) dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  void *sn = open_first("libsnappy.so.1", "libsnappy.so");
  if (sn) {
    snappy.compress = (snappy_compress_fn)dlsym(sn, "snappy_compress");
    snappy.uncompress = (snappy_uncompress_fn)dlsym(sn, "snappy_uncompress");
    snappy.max_length = (snappy_max_fn)dlsym(sn, "snappy_max_compressed_length");
    if (!snappy.compress || !snappy.uncompress || !snappy.max_length) snappy.compress = NULL;
  }
  void *lz = open_first("liblz4.so.1", "liblz4.so");
  if (lz) {
    lz4.create = (lz4_create_fn)dlsym(lz, "LZ4_createStream");
    lz4.free = (lz4_free_fn)dlsym(lz, "LZ4_freeStream");
    lz4.init = (lz4_init_fn)dlsym(lz, "LZ4_initStream");
    lz4_sizeof_fn size = (lz4_sizeof_fn)dlsym(lz, "LZ4_sizeofState");
    lz4.stream_bytes = size ? (size_t)size() : 0;
    lz4.load_dict = (lz4_load_dict_fn)dlsym(lz, "LZ4_loadDict");
    lz4.compress = (lz4_fast_continue_fn)dlsym(lz, "LZ4_compress_fast_continue");
    lz4.create_hc = (lz4_create_fn)dlsym(lz, "LZ4_createStreamHC");
    lz4.free_hc = (lz4_free_fn)dlsym(lz, "LZ4_freeStreamHC");
    lz4.reset_hc = (lz4_reset_hc_fn)dlsym(lz, "LZ4_resetStreamHC");
    lz4.load_dict_hc = (lz4_load_dict_fn)dlsym(lz, "LZ4_loadDictHC");
    lz4.compress_hc = (lz4_hc_continue_fn)dlsym(lz, "LZ4_compress_HC_continue");
    lz4.decompress = (lz4_decompress_fn)dlsym(lz, "LZ4_decompress_safe");
    lz4.decompress_dict = (lz4_decompress_dict_fn)dlsym(lz, "LZ4_decompress_safe_usingDict");
    if (!lz4.create || !lz4.free || !lz4.init || !lz4.stream_bytes || !lz4.load_dict || !lz4.compress || !lz4.create_hc || !lz4.free_hc || !lz4.reset_hc || !lz4.load_dict_hc ||
        !lz4.compress_hc || !lz4.decompress || !lz4.decompress_dict)
      lz4.create = NULL;
  }
}

/* A bit set of the codecs this process can time here: 1 Snappy, 2 LZ4 and LZ4HC, 4 zstd. */
int sstkit_codec_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, resolve_libraries);
  return (snappy.compress ? 1 : 0) | (lz4.create ? 2 : 0) | 4;
}

/* The zstd version this library compresses with (zstd-napi's), e.g. 10507. */
uint32_t sstkit_codec_zstd_version(void) { return ZSTD_versionNumber(); }

/* The calling thread's CPU time, ns. */
double sstkit_thread_cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

typedef struct helper helper_t;

typedef struct {
  int type;
  int level;
  int checksum;
  /* sstkit_codec_split: batches that take split_min_ns or more go half to a helper thread, made at the first such batch */
  int split;
  double split_min_ns, last_batch_ns;
  helper_t *helper;
  int pending; /* a batch submitted to the helper (sstkit_compress_submit), not yet collected */
  uint8_t *dict; /* owned copy: LZ4 streams and zstd keep pointers into it */
  size_t dict_len;
  void *lz4_stream; /* LZ4_stream_t or LZ4_streamHC_t, re-initialised per block */
  ZSTD_CCtx *cctx;
  ZSTD_DCtx *dctx;
  ZSTD_DDict *ddict;
} codec_t;

/*
 * A codec for one setting: `level` is RocksDB's (codec/setting.ts effectiveLevel: zstd's level,
 * LZ4's negative acceleration or 1, LZ4HC's level), `checksum` zstd's content checksum, `dict` the
 * file's dictionary (copied; none when dict_len is 0). NULL when the codec is not available here.
 */
void *sstkit_codec_new(int type, int level, int checksum, const uint8_t *dict, uint32_t dict_len) {
  int have = sstkit_codec_init();
  if (type == COMPRESSION_SNAPPY && !(have & 1)) return NULL;
  if ((type == COMPRESSION_LZ4 || type == COMPRESSION_LZ4HC) && !(have & 2)) return NULL;
  if (type != COMPRESSION_SNAPPY && type != COMPRESSION_LZ4 && type != COMPRESSION_LZ4HC && type != COMPRESSION_ZSTD) return NULL;
  codec_t *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->type = type;
  c->level = level;
  c->checksum = checksum;
  if (dict_len > 0 && type != COMPRESSION_SNAPPY) {
    c->dict = malloc(dict_len);
    if (!c->dict) return free(c), NULL;
    memcpy(c->dict, dict, dict_len);
    c->dict_len = dict_len;
  }
  if (type == COMPRESSION_LZ4 && !(c->lz4_stream = lz4.create())) goto fail;
  if (type == COMPRESSION_LZ4HC && !(c->lz4_stream = lz4.create_hc())) goto fail;
  if (type == COMPRESSION_ZSTD) {
    c->cctx = ZSTD_createCCtx();
    if (!c->cctx) goto fail;
    if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level))) goto fail;
    if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0))) goto fail;
    /* By reference: digested into a CDict on the first frame and reused by every later one, as RocksDB's prepared CDict. */
    if (c->dict && ZSTD_isError(ZSTD_CCtx_loadDictionary_byReference(c->cctx, c->dict, c->dict_len))) goto fail;
  }
  return c;
fail:
  if (c->lz4_stream) (type == COMPRESSION_LZ4 ? lz4.free : lz4.free_hc)(c->lz4_stream);
  if (c->cctx) ZSTD_freeCCtx(c->cctx);
  free(c->dict);
  free(c);
  return NULL;
}

static void helper_stop(helper_t *h);

void sstkit_codec_free(void *p) {
  codec_t *c = p;
  if (!c) return;
  if (c->helper) helper_stop(c->helper);
  if (c->lz4_stream) (c->type == COMPRESSION_LZ4 ? lz4.free : lz4.free_hc)(c->lz4_stream);
  if (c->cctx) ZSTD_freeCCtx(c->cctx);
  if (c->dctx) ZSTD_freeDCtx(c->dctx);
  if (c->ddict) ZSTD_freeDDict(c->ddict);
  free(c->dict);
  free(c);
}

static size_t put_varint32(uint8_t *p, uint32_t v) {
  size_t i = 0;
  while (v >= 0x80) p[i++] = (uint8_t)(v | 0x80), v >>= 7;
  p[i++] = (uint8_t)v;
  return i;
}

static size_t lz4_bound(size_t n) { return n + n / 255 + 16; }


/* One block, framed, into [dst, dst + cap): its length, or 0 when it failed or would not fit. */
static size_t compress_one(codec_t *c, const uint8_t *src, uint32_t n, uint8_t *dst, size_t cap) {
  if (c->type == COMPRESSION_SNAPPY) {
    if (cap < snappy.max_length(n)) return 0;
    size_t out = cap;
    static const char empty[1];
    return snappy.compress(n ? (const char *)src : empty, n, (char *)dst, &out) == 0 ? out : 0;
  }
  if (cap < 5) return 0;
  size_t prefix = put_varint32(dst, n);
  if (c->type == COMPRESSION_ZSTD) {
    size_t r = ZSTD_compress2(c->cctx, dst + prefix, cap - prefix, src, n);
    return ZSTD_isError(r) ? 0 : prefix + r;
  }
  size_t bound = lz4_bound(n);
  if (cap - prefix < bound) return 0;
  int r;
  /*
   * RocksDB 7.8's LZ4_Compress / LZ4HC_Compress create a stream per block, load the dictionary and
   * compress one block. The stream here is made once and re-initialised per block (LZ4_initStream,
   * LZ4_resetStreamHC: the state a fresh stream starts in, the same bytes): the allocation per
   * block is left out, as a process allocator's trimming made it cost more here than in RocksDB.
   */
  void *s = c->lz4_stream;
  if (c->type == COMPRESSION_LZ4) {
    lz4.init(s, lz4.stream_bytes);
    if (c->dict) lz4.load_dict(s, (const char *)c->dict, (int)c->dict_len);
    r = lz4.compress(s, (const char *)src, (char *)dst + prefix, (int)n, (int)bound, c->level < 0 ? -c->level : 1);
  } else {
    lz4.reset_hc(s, c->level);
    if (c->dict) lz4.load_dict_hc(s, (const char *)c->dict, (int)c->dict_len);
    r = lz4.compress_hc(s, (const char *)src, (char *)dst + prefix, (int)n, (int)bound);
  }
  return r > 0 ? prefix + (size_t)r : 0;
}

/* Blocks [0, n) into dst, one payload after the other: 0, or -(i + 1) when block i failed or did not fit; `used` the bytes written. */
static int compress_range(codec_t *c, const uint8_t *src, const uint32_t *lens, uint32_t n, uint8_t *dst, size_t room, uint32_t *out_lens, size_t *used) {
  size_t at = 0;
  for (uint32_t i = 0; i < n; i++) {
    size_t len = compress_one(c, src, lens[i], dst + at, room - at);
    if (len == 0) return *used = at, -(int)(i + 1);
    out_lens[i] = (uint32_t)len;
    at += len;
    src += lens[i];
  }
  *used = at;
  return 0;
}

/*
 * A codec's helper thread (sstkit_codec_split): the same setting on a context of its own. A batch
 * handed to it is copied in and taken block by block: the helper claims the next block, and so
 * does the calling thread once it comes for the payloads, each payload into the block's own slot
 * of the helper's buffer, so the two end together whatever the blocks cost. zstd, LZ4 and Snappy
 * compress each block on its own (a fresh frame or stream, the dictionary the same), so the
 * payloads are the bytes one thread would write; only the wall time changes.
 */
struct helper {
  codec_t *twin;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int job, quit; /* job: 0 idle, 1 handed over, 3 taken up by the helper, 2 the helper has no block left to claim */
  /* The batch: block i at in + in_at[i], lens[i] bytes; its payload at out + out_at[i], out_lens[i] bytes (0: failed). */
  uint32_t n;
  atomic_uint next; /* the next block to claim */
  uint8_t *in, *out;
  size_t in_cap, out_cap;
  uint32_t *lens, *out_lens; /* one array of lens_cap: lens, then out_lens */
  size_t *in_at, *out_at;    /* one array of at_cap: in_at, then out_at */
  size_t lens_cap, at_cap;
  double cpu_ns;
  int gives_core; /* a submitted batch's helper gives its core back itself (sstkit_compress_submit) */
};

/*
 * The cores the process's lanes have lent (sstkit_codec_lend_cores): a lane with nothing left to do,
 * or one setting's lane beside an idle core. A batch handed to a helper takes one and gives it back
 * when the helper is done, so the helpers of all lanes together never use more cores than were
 * lent. Process-wide: every thread loads this library once.
 */
static atomic_int spare_cores, lent_cores;

/* Add `delta` (negative: take back) to the cores lent; the count lent after (held by a helper or not). */
int sstkit_codec_lend_cores(int delta) {
  atomic_fetch_add(&spare_cores, delta);
  return atomic_fetch_add(&lent_cores, delta) + delta;
}

/* The cores lent that no helper holds now. */
int sstkit_codec_spare_cores(void) { return atomic_load(&spare_cores); }

/* Batches handed to helpers so far in the process, split or submitted (diagnostics, tests). */
static atomic_uint handed_batches;
double sstkit_codec_handed_batches(void) { return (double)atomic_load(&handed_batches); }

static int take_spare_core(void) {
  int v = atomic_load(&spare_cores);
  while (v > 0)
    if (atomic_compare_exchange_weak(&spare_cores, &v, v - 1)) return 1;
  return 0;
}

/* Room for one block's payload in the helper's buffer: above every codec's bound, as the caller's room is. */
static size_t payload_room(uint32_t n) { return (size_t)n + n / 6 + 64; }

/* Compress the batch's blocks with `c` until none is left to claim. */
static void compress_claimed(codec_t *c, helper_t *h) {
  for (;;) {
    uint32_t i = atomic_fetch_add(&h->next, 1);
    if (i >= h->n) return;
    h->out_lens[i] = (uint32_t)compress_one(c, h->in + h->in_at[i], h->lens[i], h->out + h->out_at[i], payload_room(h->lens[i]));
  }
}

static void *helper_main(void *arg) {
  helper_t *h = arg;
  pthread_mutex_lock(&h->mu);
  for (;;) {
    while (h->job != 1 && !h->quit) pthread_cond_wait(&h->cv, &h->mu);
    /* A batch handed over is done even when the codec is being freed: its core comes back with it. */
    if (h->job != 1) break;
    h->job = 3;
    pthread_mutex_unlock(&h->mu);
    double t0 = sstkit_thread_cpu_ns();
    compress_claimed(h->twin, h);
    double cpu = sstkit_thread_cpu_ns() - t0;
    pthread_mutex_lock(&h->mu);
    h->cpu_ns = cpu;
    h->job = 2;
    if (h->gives_core) atomic_fetch_add(&spare_cores, 1);
    pthread_cond_broadcast(&h->cv);
  }
  pthread_mutex_unlock(&h->mu);
  return NULL;
}

static void helper_stop(helper_t *h) {
  pthread_mutex_lock(&h->mu);
  h->quit = 1;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
  pthread_join(h->thread, NULL);
  pthread_cond_destroy(&h->cv);
  pthread_mutex_destroy(&h->mu);
  sstkit_codec_free(h->twin);
  free(h->in);
  free(h->out);
  free(h->lens);
  free(h->in_at);
  free(h);
}

static helper_t *helper_start(const codec_t *c) {
  helper_t *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->twin = sstkit_codec_new(c->type, c->level, c->checksum, c->dict, (uint32_t)c->dict_len);
  if (!h->twin) return free(h), NULL;
  pthread_mutex_init(&h->mu, NULL);
  pthread_cond_init(&h->cv, NULL);
  if (pthread_create(&h->thread, NULL, helper_main, h) != 0) {
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    sstkit_codec_free(h->twin);
    free(h);
    return NULL;
  }
  return h;
}

/*
 * Let the codec's compress calls use a lent core (sstkit_codec_lend_cores) through a helper thread
 * of its own, made at its first batch: batches submitted (sstkit_compress_submit), and batches of
 * sstkit_compress_blocks when the one before took at least `min_batch_ns` of CPU: handing a short
 * batch over and waiting for it (a condition variable each way, beside V8's own threads) cost more
 * than it saved (zstd 3, 16 KiB blocks, 128 KiB batches: ~0.5 ms each, 10-15% more CPU and wall
 * time on 64 MB files). Returns 1.
 */
int sstkit_codec_split(void *p, double min_batch_ns) {
  codec_t *c = p;
  if (!c) return 0;
  c->split = 1;
  c->split_min_ns = min_batch_ns;
  return 1;
}

static int grow(void **p, size_t *cap, size_t need, size_t unit) {
  if (*cap >= need) return 1;
  void *grown = realloc(*p, need * unit);
  if (!grown) return 0;
  *p = grown;
  *cap = need;
  return 1;
}

/*
 * Copy a batch into the codec's helper (made at its first) and start it on a core taken by the
 * caller: 0, the core not used, where no thread or memory is to be had (no thread: the codec stays
 * on one from now on).
 */
static int hand_over(codec_t *c, const uint8_t *src, const uint32_t *lens, uint32_t n, int gives_core) {
  if (!c->helper && !(c->helper = helper_start(c))) {
    c->split = 0;
    return 0;
  }
  helper_t *h = c->helper;
  size_t in = 0, out = 0;
  for (uint32_t i = 0; i < n; i++) in += lens[i], out += payload_room(lens[i]);
  if (!grow((void **)&h->in, &h->in_cap, in, 1) || !grow((void **)&h->out, &h->out_cap, out, 1)) return 0;
  if (!grow((void **)&h->lens, &h->lens_cap, 2 * (size_t)n, sizeof *h->lens) || !grow((void **)&h->in_at, &h->at_cap, 2 * (size_t)n, sizeof *h->in_at)) return 0;
  h->out_lens = h->lens + n;
  h->out_at = h->in_at + n;
  memcpy(h->in, src, in);
  memcpy(h->lens, lens, n * sizeof *lens);
  in = out = 0;
  for (uint32_t i = 0; i < n; i++) {
    h->in_at[i] = in;
    h->out_at[i] = out;
    in += lens[i];
    out += payload_room(lens[i]);
  }
  h->n = n;
  atomic_store(&h->next, 0);
  pthread_mutex_lock(&h->mu);
  h->gives_core = gives_core;
  h->job = 1;
  atomic_fetch_add(&handed_batches, 1);
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
  c->pending = 1;
  return 1;
}

/*
 * The batch out on the codec's helper: claim its blocks beside the helper until none is left, wait
 * for the helper, then lay the payloads end to end into `dst` (capacity `room`), their lengths into
 * `out_lens`. cpu_ns[0] = the compression's CPU on both threads, cpu_ns[1] the helper's share.
 * 0, or -(i + 1) when block i failed or did not fit (the caller gave too little room).
 */
static int take_back(codec_t *c, uint8_t *dst, size_t room, uint32_t *out_lens, double *cpu_ns) {
  helper_t *h = c->helper;
  double t0 = sstkit_thread_cpu_ns();
  compress_claimed(c, h);
  double mine = sstkit_thread_cpu_ns() - t0;
  pthread_mutex_lock(&h->mu);
  /* Every block claimed here before the helper even woke (a busy machine): taken back from it, not waited for. */
  int unstarted = h->job == 1;
  if (unstarted) h->cpu_ns = 0;
  else
    while (h->job != 2) pthread_cond_wait(&h->cv, &h->mu);
  int gives_core = h->gives_core;
  h->job = 0;
  pthread_mutex_unlock(&h->mu);
  if (unstarted && gives_core) atomic_fetch_add(&spare_cores, 1);
  c->pending = 0;
  cpu_ns[0] = mine + h->cpu_ns;
  cpu_ns[1] = h->cpu_ns;
  if (h->n >= 2) c->last_batch_ns = cpu_ns[0];
  size_t at = 0;
  for (uint32_t i = 0; i < h->n; i++) {
    uint32_t len = h->out_lens[i];
    if (len == 0 || room - at < len) return -(int)(i + 1);
    memcpy(dst + at, h->out + h->out_at[i], len);
    out_lens[i] = len;
    at += len;
  }
  return 0;
}

/*
 * Compress `n` blocks, concatenated in `src` with lengths `lens`, into `dst` (capacity `cap`), one
 * framed payload after the other, their lengths into `out_lens`. cpu_ns[0] = the thread CPU time
 * of the compression (the clock read once per batch; with a helper, its thread's added), cpu_ns[1]
 * the helper's share of it (0 without one). Returns 0,
 * or -(i + 1) when block i failed or did not fit (the caller gave too little room).
 */
int sstkit_compress_blocks(void *p, const uint8_t *src, const uint32_t *lens, uint32_t n, uint8_t *dst, double cap, uint32_t *out_lens, double *cpu_ns) {
  codec_t *c = p;
  size_t room = (size_t)cap, used = 0;
  if (c->split && !c->pending && n >= 2 && c->last_batch_ns >= c->split_min_ns && take_spare_core()) {
    if (hand_over(c, src, lens, n, 0)) {
      int r = take_back(c, dst, room, out_lens, cpu_ns);
      atomic_fetch_add(&spare_cores, 1);
      return r;
    }
    atomic_fetch_add(&spare_cores, 1);
  }
  double t0 = sstkit_thread_cpu_ns();
  int r = compress_range(c, src, lens, n, dst, room, out_lens, &used);
  cpu_ns[0] = sstkit_thread_cpu_ns() - t0;
  cpu_ns[1] = 0;
  if (n >= 2) c->last_batch_ns = cpu_ns[0];
  return r;
}

/*
 * Hand a batch (as sstkit_compress_blocks takes it) to the codec's helper and return at once, so
 * that this thread goes on with its own work while a lent core compresses: 1 when taken (then
 * sstkit_compress_collect before the codec's next batch), 0 when not: no core is lent, the codec
 * does not use one (sstkit_codec_split), a batch is already out, or no thread or memory was to be
 * had. Compress it then. The blocks are copied: the caller's buffers are free again on return. The
 * helper gives the core back when it has no block left to claim, for any codec to take.
 */
int sstkit_compress_submit(void *p, const uint8_t *src, const uint32_t *lens, uint32_t n) {
  codec_t *c = p;
  if (!c || !c->split || c->pending || n == 0 || !take_spare_core()) return 0;
  if (hand_over(c, src, lens, n, 1)) return 1;
  atomic_fetch_add(&spare_cores, 1);
  return 0;
}

/*
 * The batch sstkit_compress_submit took: its blocks not yet claimed compressed on this thread
 * beside the helper, then the payloads into `dst` (capacity `cap`), as sstkit_compress_blocks
 * gives them. -(2^30) when no batch was out.
 */
int sstkit_compress_collect(void *p, uint8_t *dst, double cap, uint32_t *out_lens, double *cpu_ns) {
  codec_t *c = p;
  if (!c || !c->pending) return -(1 << 30);
  return take_back(c, dst, (size_t)cap, out_lens, cpu_ns);
}

static int read_varint32(const uint8_t *p, size_t n, uint32_t *v, size_t *used) {
  uint32_t r = 0;
  for (size_t i = 0; i < n && i < 5; i++) {
    r |= (uint32_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) return *v = r, *used = i + 1, 1;
  }
  return 0;
}

/* One framed payload back into exactly `size` bytes at dst: 1 when it decoded to that size. */
static int decompress_one(codec_t *c, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t size) {
  if (c->type == COMPRESSION_SNAPPY) {
    size_t out = size;
    return snappy.uncompress((const char *)src, n, (char *)dst, &out) == 0 && out == size;
  }
  uint32_t declared;
  size_t prefix;
  if (!read_varint32(src, n, &declared, &prefix) || declared != size) return 0;
  src += prefix, n -= (uint32_t)prefix;
  if (c->type == COMPRESSION_ZSTD) {
    size_t r = c->ddict ? ZSTD_decompress_usingDDict(c->dctx, dst, size, src, n, c->ddict) : ZSTD_decompressDCtx(c->dctx, dst, size, src, n);
    return !ZSTD_isError(r) && r == size;
  }
  int r = c->dict ? lz4.decompress_dict((const char *)src, (char *)dst, (int)n, (int)size, (const char *)c->dict, (int)c->dict_len)
                  : lz4.decompress((const char *)src, (char *)dst, (int)n, (int)size);
  return r == (int)size;
}

/*
 * Decompress `n` framed payloads (concatenated in `src`, lengths `lens`) into `dst`, one after the
 * other, each to its size in `sizes` (dst must hold their sum: `cap`), as RocksDB's read path
 * decodes a block (one block per call, the dictionary digested once). cpu_ns[0] = the thread CPU
 * time of the decoding alone. Then each output is compared with `raw` (the originals,
 * concatenated). Returns 0, or -(i + 1) when block i did not decode, or i + 1 when it decoded to
 * other bytes.
 */
int sstkit_round_trip_blocks(void *p, const uint8_t *src, const uint32_t *lens, const uint32_t *sizes, uint32_t n, uint8_t *dst, double cap,
                             const uint8_t *raw, double *cpu_ns) {
  codec_t *c = p;
  size_t room = (size_t)cap, total = 0;
  for (uint32_t i = 0; i < n; i++) total += sizes[i];
  if (total > room) return -1;
  if (c->type == COMPRESSION_ZSTD) {
    if (!c->dctx && !(c->dctx = ZSTD_createDCtx())) return -1;
    if (c->dict && !c->ddict && !(c->ddict = ZSTD_createDDict(c->dict, c->dict_len))) return -1;
  }
  double t0 = sstkit_thread_cpu_ns();
  size_t at = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!decompress_one(c, src, lens[i], dst + at, sizes[i])) {
      cpu_ns[0] = sstkit_thread_cpu_ns() - t0;
      return -(int)(i + 1);
    }
    src += lens[i];
    at += sizes[i];
  }
  cpu_ns[0] = sstkit_thread_cpu_ns() - t0;
  at = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (memcmp(dst + at, raw + at, sizes[i]) != 0) return (int)(i + 1);
    at += sizes[i];
  }
  return 0;
}

/*
 * What decoding a frame with zstd's content checksum adds to decoding the same frame without it:
 * XXH64 (seed 0) of the content, checked against the trailer. For `n` blocks (concatenated in
 * `raw`, lengths `lens`): cpu_ns[0] = the thread CPU time of hashing each. Returns 0.
 */
int sstkit_content_checksums(const uint8_t *raw, const uint32_t *lens, uint32_t n, double *cpu_ns) {
  volatile uint64_t sink = 0;
  double t0 = sstkit_thread_cpu_ns();
  for (uint32_t i = 0; i < n; i++) {
    sink ^= ZSTD_XXH64(raw, lens[i], 0);
    raw += lens[i];
  }
  cpu_ns[0] = sstkit_thread_cpu_ns() - t0;
  (void)sink;
  return 0;
}

/*
 * zstd's content checksum adds nothing to a frame but a flag and a trailer: the Frame_Header_Descriptor's
 * Content_Checksum_flag (bit 2) and, after the last block, the low 4 bytes of XXH64 (seed 0) of the
 * content, little-endian; the blocks are the same. So the frames of a setting with the checksum are
 * those of the same setting without it, flagged, with the trailer: `n` payloads compressed without it
 * (RocksDB-framed: varint32 size, then the frame; in `src`, lengths `lens`), the blocks they hold
 * (`raw`, concatenated, lengths `raw_lens`), written framed with it into `dst`. cpu_ns[0] = the thread
 * CPU time of the hashing, which is what the checksum costs zstd. Returns 0, or -(i + 1) when payload
 * i is not a zstd frame without a checksum or does not fit.
 */
int sstkit_checksum_frames(const uint8_t *src, const uint32_t *lens, const uint8_t *raw, const uint32_t *raw_lens, uint32_t n, uint8_t *dst, double cap,
                           uint32_t *out_lens, double *cpu_ns) {
  uint32_t *sums = malloc((n ? n : 1) * sizeof *sums);
  if (!sums) return -1;
  double t0 = sstkit_thread_cpu_ns();
  const uint8_t *r = raw;
  for (uint32_t i = 0; i < n; i++) {
    sums[i] = (uint32_t)ZSTD_XXH64(r, raw_lens[i], 0);
    r += raw_lens[i];
  }
  cpu_ns[0] = sstkit_thread_cpu_ns() - t0;
  size_t room = (size_t)cap, used = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t declared;
    size_t prefix;
    const uint8_t *p = src;
    src += lens[i];
    if (!read_varint32(p, lens[i], &declared, &prefix) || lens[i] < prefix + 5 || declared != raw_lens[i]) return free(sums), -(int)(i + 1);
    const uint8_t *frame = p + prefix;
    if (!(frame[0] == 0x28 && frame[1] == 0xB5 && frame[2] == 0x2F && frame[3] == 0xFD) || (frame[4] & 4)) return free(sums), -(int)(i + 1);
    if (room - used < (size_t)lens[i] + 4) return free(sums), -(int)(i + 1);
    uint8_t *o = dst + used;
    memcpy(o, p, lens[i]);
    o[prefix + 4] |= 4;
    for (int b = 0; b < 4; b++) o[lens[i] + b] = (uint8_t)(sums[i] >> (8 * b));
    out_lens[i] = lens[i] + 4;
    used += lens[i] + 4;
  }
  free(sums);
  return 0;
}
