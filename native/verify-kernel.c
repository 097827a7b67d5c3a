/*
 * verify's per-block work in C, one call per chunk of data blocks: for each
 * block, its checksum (RocksDB's stored value, context modifier included),
 * its decompression (none; Snappy, ZSTD and LZ4 through the system's libsnappy,
 * libzstd and liblz4, with the table's dictionary where RocksDB uses it), its block
 * footer and restart array, and the internal-key order of its entries under
 * the bytewise comparator. It answers per block what the WebAssembly path
 * answers (src/wasm/verify-kernels.wat with src/verify/parallel.ts's
 * checks around it): the entry count and the first and last keys, or "check
 * this block again in JavaScript" (anything unusual: the JavaScript path
 * words the problem), or "not handled here" (a codec or checksum this file
 * does not do: the caller checks the block as before). Two more calls serve
 * verify's main thread: sstkit_verify_across (verify.ts's checks across the
 * blocks of a chunk, so that a clean chunk is taken whole) and
 * sstkit_index_walk (a one-block index's entries, as IndexBlockIter decodes
 * them). sst-dump's --command=check uses sstkit_verify_blocks too.
 *
 * Why C: the JavaScript path makes four or five calls per block across the
 * JavaScript/native boundary (read, checksum, decompress, WebAssembly), and
 * on a 4 KiB-block file that overhead costs more than the checking. Codecs
 * and hashes are the system's libraries (dlopen: no link-time dependency);
 * a library that is missing makes its blocks "not handled".
 *
 * Built by scripts/build-native.mjs into dist/native; loaded through koffi
 * by src/verify/native.ts. No allocation is sized by what a block
 * claims beyond the caller's limit; nothing here reads outside the buffers
 * it is given.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* Per block of meta: entries (or one of the two codes below), first key offset and length, last key offset and length. */
#define SUMMARY_INTS 5
#define REDO (-1)
#define NOT_HANDLED (-2)
/* sstkit_decode_blocks: the block's contents do not fit in what is left of the output (internal: ends the call). */
#define OUT_FULL (-3)

/* ChecksumType (format/checksum-type.ts). */
enum { CHECKSUM_NONE = 0, CHECKSUM_CRC32C = 1, CHECKSUM_XXHASH = 2, CHECKSUM_XXHASH64 = 3, CHECKSUM_XXH3 = 4 };
/* CompressionType (format/compression-type.ts). */
enum { COMPRESSION_NONE = 0, COMPRESSION_SNAPPY = 1, COMPRESSION_LZ4 = 4, COMPRESSION_LZ4HC = 5, COMPRESSION_ZSTD = 7, COMPRESSION_ZSTD_NOT_FINAL = 0x40 };

/* sstkit_verify_blocks's flags. */
#define VERIFY_CHECKSUMS 1
#define CHECK_ORDER 2
#define KEEP_KEYS 4
/* Every block's payload is its contents, whatever its type byte says (sst_dump 7.8.3 on a NoCompression file). */
#define RAW_BLOCKS 8

#define BLOCK_TRAILER_BYTES 5
#define NUM_RESTARTS_MASK 0x0fffffffu
#define SEPARATED_KV_BIT (1u << 28)
#define RESERVED_BIT (1u << 30)
#define HASH_INDEX_BIT 0x80000000u
#define MAX_BLOCK_SIZE_WITH_HASH_INDEX (1u << 16)
#define XXH3_LAST_BYTE_MULTIPLIER 0x6b9083d9u
#define CRC_MASK_DELTA 0xa282ead8u

typedef uint64_t (*xxh3_fn)(const void *, size_t);
typedef uint32_t (*xxh32_fn)(const void *, size_t, uint32_t);
typedef uint64_t (*xxh64_fn)(const void *, size_t, uint64_t);
typedef int (*snappy_length_fn)(const char *, size_t, size_t *);
typedef int (*snappy_uncompress_fn)(const char *, size_t, char *, size_t *);
/* zstd.h and lz4.h are not needed to build: the few calls used, as the libraries export them. */
typedef void *(*zstd_create_fn)(void);
typedef size_t (*zstd_free_fn)(void *);
typedef size_t (*zstd_decompress_fn)(void *dctx, void *dst, size_t capacity, const void *src, size_t n);
typedef void *(*zstd_create_ddict_fn)(const void *dict, size_t n);
typedef size_t (*zstd_decompress_ddict_fn)(void *dctx, void *dst, size_t capacity, const void *src, size_t n, const void *ddict);
typedef unsigned (*zstd_is_error_fn)(size_t);
typedef unsigned long long (*zstd_content_size_fn)(const void *src, size_t n);
typedef int (*lz4_decompress_fn)(const char *src, char *dst, int n, int capacity);
typedef int (*lz4_decompress_dict_fn)(const char *src, char *dst, int n, int capacity, const char *dict, int dict_size);

static xxh3_fn xxh3;
static xxh32_fn xxh32;
static xxh64_fn xxh64;
static snappy_length_fn snappy_length;
static snappy_uncompress_fn snappy_uncompress;
static int crc32c_hardware;
static struct {
  zstd_create_fn create_dctx;
  zstd_free_fn free_dctx;
  zstd_decompress_fn decompress;
  zstd_create_ddict_fn create_ddict;
  zstd_free_fn free_ddict;
  zstd_decompress_ddict_fn decompress_ddict;
  zstd_is_error_fn is_error;
  zstd_content_size_fn content_size;
} zstd;
static lz4_decompress_fn lz4_decompress;
static lz4_decompress_dict_fn lz4_decompress_dict;

static void *open_first(const char *a, const char *b) {
  void *h = dlopen(a, RTLD_NOW | RTLD_LOCAL);
  return h ? h : dlopen(b, RTLD_NOW | RTLD_LOCAL);
}

/* Resolve the libraries, once per process (the symbols are process-wide; every worker thread calls init too). */
static void resolve_libraries(void) {
  /*
   * Keep this library mapped for the life of the process: a worker thread that used it runs
   * free_thread_state (its thread-specific data destructor) when it ends, which may be after
   * koffi has closed the library with the thread's isolate (a segfault in the destructor).
   */
  Dl_info self;
  if (dladdr((void *)resolve_libraries, &self) && self.dli_fname) dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  void *xx = open_first("libxxhash.so.0", "libxxhash.so");
  if (xx) {
    xxh3 = (xxh3_fn)dlsym(xx, "XXH3_64bits");
    xxh32 = (xxh32_fn)dlsym(xx, "XXH32");
    xxh64 = (xxh64_fn)dlsym(xx, "XXH64");
  }
  void *sn = open_first("libsnappy.so.1", "libsnappy.so");
  if (sn) {
    snappy_length = (snappy_length_fn)dlsym(sn, "snappy_uncompressed_length");
    snappy_uncompress = (snappy_uncompress_fn)dlsym(sn, "snappy_uncompress");
    if (!snappy_length || !snappy_uncompress) snappy_length = NULL, snappy_uncompress = NULL;
  }
  void *zs = open_first("libzstd.so.1", "libzstd.so");
  if (zs) {
    zstd.create_dctx = (zstd_create_fn)dlsym(zs, "ZSTD_createDCtx");
    zstd.free_dctx = (zstd_free_fn)dlsym(zs, "ZSTD_freeDCtx");
    zstd.decompress = (zstd_decompress_fn)dlsym(zs, "ZSTD_decompressDCtx");
    zstd.create_ddict = (zstd_create_ddict_fn)dlsym(zs, "ZSTD_createDDict");
    zstd.free_ddict = (zstd_free_fn)dlsym(zs, "ZSTD_freeDDict");
    zstd.decompress_ddict = (zstd_decompress_ddict_fn)dlsym(zs, "ZSTD_decompress_usingDDict");
    zstd.is_error = (zstd_is_error_fn)dlsym(zs, "ZSTD_isError");
    zstd.content_size = (zstd_content_size_fn)dlsym(zs, "ZSTD_getFrameContentSize");
    if (!zstd.create_dctx || !zstd.free_dctx || !zstd.decompress || !zstd.create_ddict || !zstd.free_ddict || !zstd.decompress_ddict ||
        !zstd.is_error || !zstd.content_size)
      zstd.decompress = NULL;
  }
  void *lz = open_first("liblz4.so.1", "liblz4.so");
  if (lz) {
    lz4_decompress = (lz4_decompress_fn)dlsym(lz, "LZ4_decompress_safe");
    lz4_decompress_dict = (lz4_decompress_dict_fn)dlsym(lz, "LZ4_decompress_safe_usingDict");
    if (!lz4_decompress || !lz4_decompress_dict) lz4_decompress = NULL;
  }
#if defined(__x86_64__)
  __builtin_cpu_init();
  crc32c_hardware = __builtin_cpu_supports("sse4.2");
#endif
}

/*
 * Returns a bit set of what is available: 1 libxxhash (XXH3), 2 libsnappy, 4 CRC32C instructions,
 * 8 libzstd, 16 liblz4.
 */
int sstkit_verify_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, resolve_libraries);
  return (xxh3 ? 1 : 0) | (snappy_uncompress ? 2 : 0) | (crc32c_hardware ? 4 : 0) | (zstd.decompress ? 8 : 0) | (lz4_decompress ? 16 : 0);
}

/*
 * A new id for a dictionary (the caller keeps one per dictionary object and passes it with
 * the bytes): each thread digests a ZSTD dictionary once per id, not once per call.
 */
uint32_t sstkit_verify_dictionary_id(void) {
  static uint32_t last;
  return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

static inline uint32_t fixed32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t fixed64(const uint8_t *p) { return (uint64_t)fixed32(p) | (uint64_t)fixed32(p + 4) << 32; }

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c(const uint8_t *p, size_t n) {
  uint64_t crc = 0xffffffffu;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    crc = __builtin_ia32_crc32di(crc, v);
  }
  uint32_t c = (uint32_t)crc;
  for (; n > 0; n--) c = __builtin_ia32_crc32qi(c, *p++);
  return ~c;
}
#else
static uint32_t crc32c(const uint8_t *p, size_t n) {
  (void)p, (void)n;
  return 0; /* unreachable: crc32c_hardware is 0 */
}
#endif

/* Whether this checksum type can be computed here. */
static int checksum_available(int type) {
  switch (type) {
    case CHECKSUM_NONE:
      return 1;
    case CHECKSUM_CRC32C:
      return crc32c_hardware;
    case CHECKSUM_XXHASH:
      return xxh32 != NULL;
    case CHECKSUM_XXHASH64:
      return xxh64 != NULL;
    case CHECKSUM_XXH3:
      return xxh3 != NULL;
    default:
      return 0;
  }
}

/* The uint32 RocksDB stores for these bytes (payload and type byte), before the context modifier (codec/checksum.ts). */
static uint32_t block_checksum(int type, const uint8_t *p, size_t n) {
  switch (type) {
    case CHECKSUM_CRC32C: {
      uint32_t c = crc32c(p, n);
      return ((c >> 15) | (c << 17)) + CRC_MASK_DELTA;
    }
    case CHECKSUM_XXHASH:
      return xxh32(p, n, 0);
    case CHECKSUM_XXHASH64:
      return (uint32_t)xxh64(p, n, 0);
    case CHECKSUM_XXH3:
      if (n == 0) return 0;
      return (uint32_t)xxh3(p, n - 1) ^ ((uint32_t)p[n - 1] * XXH3_LAST_BYTE_MULTIPLIER);
    default:
      return 0;
  }
}

/* format_version >= 6: the modifier binding a block's checksum to its offset (codec/checksum.ts contextModifier). */
static uint32_t context_modifier(uint32_t base, uint64_t offset) {
  if (base == 0) return 0;
  return base ^ (uint32_t)((offset & 0xffffffffu) + (offset >> 32));
}

/* A varint32 at *p before end, as format/coding.ts reads one; -1 when malformed. */
static inline int64_t varint32(const uint8_t **p, const uint8_t *end) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (*p >= end) return -1;
    uint32_t b = *(*p)++;
    if (shift == 28 && b > 0x0f) return -1;
    result |= (b & 0x7f) << shift;
    if (b < 0x80) return result;
  }
  return -1;
}

/* The keys of the block being walked: the previous key, grown to the largest block's size. */
static __thread uint8_t *prev_key;
static __thread size_t prev_capacity;
/* Where compressed blocks are decompressed, grown to the largest block's size. */
static __thread uint8_t *contents_buf;
static __thread size_t contents_capacity;
/* This thread's zstd context, and the dictionary digested for dictionary id ddict_id (NULL: it failed to load). */
static __thread void *zstd_dctx;
static __thread void *zstd_ddict;
static __thread uint32_t ddict_id;

/* Worker threads come and go (one set per verify run): what a thread allocated is freed when it exits. */
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static int thread_key_ok;

static void free_thread_state(void *unused) {
  (void)unused;
  free(prev_key);
  free(contents_buf);
  prev_key = contents_buf = NULL;
  prev_capacity = contents_capacity = 0;
  if (zstd_dctx) zstd.free_dctx(zstd_dctx);
  if (zstd_ddict) zstd.free_ddict(zstd_ddict);
  zstd_dctx = zstd_ddict = NULL;
  ddict_id = 0;
}

static void make_thread_key(void) { thread_key_ok = pthread_key_create(&thread_key, free_thread_state) == 0; }

static void register_thread(void) {
  static __thread int registered;
  if (registered) return;
  registered = 1;
  pthread_once(&thread_key_once, make_thread_key);
  if (thread_key_ok) pthread_setspecific(thread_key, (void *)1);
}

static int reserve(uint8_t **buf, size_t *capacity, size_t n) {
  if (n <= *capacity) return 1;
  size_t want = n > 2 * *capacity ? n : 2 * *capacity;
  if (want < 64 * 1024) want = 64 * 1024;
  uint8_t *b = realloc(*buf, want);
  if (!b) return 0;
  *buf = b;
  *capacity = want;
  return 1;
}

/* A ZSTD or LZ4 block's contents are at most this large here; larger ones are left to the caller (NOT_HANDLED). */
#define MAX_FRAMED_CONTENTS (16u << 20)
/* LZ4_MAX_INPUT_SIZE: LZ4's sizes are C ints (codec/lz4.ts refuses more, on either side). */
#define LZ4_MAX_SIZE 0x7e000000u
/* ZSTD_getFrameContentSize's "error" (and above it, "unknown"): not a size. */
#define ZSTD_CONTENTSIZE_ERROR (0ULL - 2)

/* A varint32 of up to 4 bytes (< 2^28) at *p before end, else -1 (a longer one is left to the JavaScript path). */
static int64_t short_varint(const uint8_t **p, const uint8_t *end) {
  uint32_t result = 0;
  for (int shift = 0; shift < 28 && *p < end; shift += 7) {
    uint32_t b = *(*p)++;
    result |= (b & 0x7f) << shift;
    if (b < 0x80) return result;
  }
  return -1;
}

/*
 * A ZSTD or LZ4 block's payload decompressed into dst (NULL: this thread's contents_buf), with codec/compression.ts
 * decompressBlock's framing and checks: the declared size (a varint, or for LZ4 below
 * format_version 2 the first 4 bytes of an 8-byte header), at most max_output, and exactly
 * what decoding yields. The dictionary (dict_len 0: none) is used as the JavaScript path uses
 * it. Returns the contents' size, REDO (the JavaScript path words the problem), NOT_HANDLED, or
 * OUT_FULL when the declared size is over dst_capacity.
 */
static int64_t decompress_framed(uint8_t type, const uint8_t *payload, size_t size, int32_t format_version, double max_output, const uint8_t *dict,
                                 size_t dict_len, uint32_t dict_id, uint8_t *dst, size_t dst_capacity) {
  const uint8_t *body = payload, *end = payload + size;
  const int lz4 = type == COMPRESSION_LZ4 || type == COMPRESSION_LZ4HC;
  int64_t declared;
  if (lz4 && format_version < 2) {
    if (size < 8) return REDO;
    declared = fixed32(payload);
    body += 8;
  } else {
    declared = short_varint(&body, end);
    if (declared < 0) return REDO;
  }
  const size_t body_len = (size_t)(end - body);
  if ((double)declared > max_output) return REDO;
  /* Decoding cannot yield more than this (an LZ4 byte at most 255, a 3-byte zstd block header at most 128 KiB): a larger claim is damage. */
  if (lz4 ? (uint64_t)declared > 255 * (uint64_t)body_len + 64 : (uint64_t)declared > ((uint64_t)body_len / 3 + 1) << 17) return REDO;
  if ((uint64_t)declared > MAX_FRAMED_CONTENTS) return NOT_HANDLED;
  if (dst) {
    if ((uint64_t)declared > dst_capacity) return OUT_FULL;
  } else {
    if (!reserve(&contents_buf, &contents_capacity, declared > 0 ? (size_t)declared : 1)) return REDO;
    dst = contents_buf;
  }
  if (lz4) {
    if (body_len > LZ4_MAX_SIZE || dict_len > LZ4_MAX_SIZE) return REDO;
    int n = dict_len > 0 ? lz4_decompress_dict((const char *)body, (char *)dst, (int)body_len, (int)declared, (const char *)dict, (int)dict_len)
                         : lz4_decompress((const char *)body, (char *)dst, (int)body_len, (int)declared);
    return n == declared ? declared : REDO;
  }
  /* A frame announcing another size fails in decoding (or in the size check) anyway: not decoded. */
  unsigned long long announced = zstd.content_size(body, body_len);
  if (announced < ZSTD_CONTENTSIZE_ERROR && announced != (unsigned long long)declared) return REDO;
  if (!zstd_dctx && !(zstd_dctx = zstd.create_dctx())) return NOT_HANDLED;
  size_t n;
  if (dict_len > 0) {
    if (ddict_id != dict_id) {
      /* zstd reads it as a zstd dictionary when it has the magic, else as raw content (ZSTD_dct_auto, as zstd-napi's DDict) */
      if (zstd_ddict) zstd.free_ddict(zstd_ddict);
      zstd_ddict = zstd.create_ddict(dict, dict_len);
      ddict_id = dict_id;
    }
    if (!zstd_ddict) return REDO;
    n = zstd.decompress_ddict(zstd_dctx, dst, (size_t)declared, body, body_len, zstd_ddict);
  } else {
    n = zstd.decompress(zstd_dctx, dst, (size_t)declared, body, body_len);
  }
  return !zstd.is_error(n) && n == (size_t)declared ? declared : REDO;
}

/*
 * Walk the entries of a data block's contents: the same conditions as verify's
 * JavaScript path meets without a problem (format/block.ts decodeBlockLayout and
 * checkRestartPoints, src/verify/parallel.ts checkBytes, the WebAssembly check), else REDO;
 * with `valid_types`, every entry's type byte must be one it marks (sst-dump's check).
 * Returns the entry count; *first / *last point at the keys (last in prev_key).
 */
static int32_t walk_block(const uint8_t *block, size_t size, int check_order, const uint8_t *valid_types, const uint8_t **first, uint32_t *first_len,
                          uint32_t *last_len) {
  if (size < 4) return REDO;
  uint32_t packed = fixed32(block + size - 4);
  size_t tail = size - 4;
  if (size > MAX_BLOCK_SIZE_WITH_HASH_INDEX && packed >= HASH_INDEX_BIT && (packed & SEPARATED_KV_BIT) == 0) packed &= 0x7fffffffu;
  uint32_t num_restarts = packed & NUM_RESTARTS_MASK;
  if (packed & (RESERVED_BIT | SEPARATED_KV_BIT)) return REDO;
  if (packed >= HASH_INDEX_BIT) {
    if (tail < 2) return REDO;
    size_t buckets = (size_t)block[tail - 2] | (size_t)block[tail - 1] << 8;
    tail -= 2;
    if (buckets > tail) return REDO;
    tail -= buckets;
  }
  if ((uint64_t)num_restarts * 4 > tail) return REDO;
  size_t entries_end = tail - (size_t)num_restarts * 4;
  if (num_restarts == 0) return REDO;
  const uint8_t *restarts = block + entries_end;
  if (fixed32(restarts) != 0) return REDO;
  uint32_t previous = 0;
  for (uint32_t i = 1; i < num_restarts; i++) {
    uint32_t point = fixed32(restarts + 4 * (size_t)i);
    if (point <= previous || point >= entries_end) return REDO;
    previous = point;
  }
  if (!reserve(&prev_key, &prev_capacity, entries_end > 8 ? entries_end : 8)) return REDO;

  const uint8_t *p = block;
  const uint8_t *end = block + entries_end;
  uint32_t key_len = 0;
  int32_t count = 0;
  const uint8_t *first_at = NULL;
  uint32_t first_size = 0;
  /* The next restart point to meet: the walk must land on each (an entry sharing nothing there), never step over one. */
  uint32_t next_restart = 1;
  size_t next_point = num_restarts > 1 ? fixed32(restarts + 4) : entries_end;
  while (p < end) {
    const size_t at = (size_t)(p - block);
    int restart = at == 0;
    if (at >= next_point) {
      if (at > next_point) return REDO;
      restart = 1;
      next_restart++;
      next_point = next_restart < num_restarts ? fixed32(restarts + 4 * (size_t)next_restart) : entries_end;
    }
    int64_t shared = *p < 0x80 ? *p++ : varint32(&p, end);
    if (shared < 0 || p >= end || (restart && shared != 0)) return REDO;
    int64_t non_shared = *p < 0x80 ? *p++ : varint32(&p, end);
    if (non_shared < 0 || p >= end) return REDO;
    int64_t value_len = *p < 0x80 ? *p++ : varint32(&p, end);
    if (value_len < 0) return REDO;
    if ((uint64_t)shared > key_len || (uint64_t)non_shared > (uint64_t)(end - p)) return REDO;
    uint32_t new_len = (uint32_t)(shared + non_shared);
    if (new_len < 8) return REDO;
    const uint8_t *value = p + non_shared;
    if ((uint64_t)value_len > (uint64_t)(end - value)) return REDO;
    if (check_order && count > 0) {
      /* internal-key order: user keys bytewise ascending, then (seqno << 8 | type) descending */
      uint32_t ua = key_len - 8, ub = new_len - 8;
      uint32_t n = ua < ub ? ua : ub;
      int cmp = 0;
      if ((uint32_t)shared < n) {
        cmp = memcmp(prev_key + shared, p, n - (uint32_t)shared);
      }
      if (cmp == 0 && ua != ub) cmp = ua < ub ? -1 : 1;
      if (cmp > 0) return REDO;
      if (cmp == 0) {
        uint8_t trailer[8];
        /* the new key's trailer: its last 8 bytes, which may start in the shared prefix */
        for (int k = 0; k < 8; k++) {
          uint32_t at = ub + (uint32_t)k;
          trailer[k] = at < (uint32_t)shared ? prev_key[at] : p[at - (uint32_t)shared];
        }
        if (fixed64(prev_key + ua) <= fixed64(trailer)) return REDO;
      }
    }
    memcpy(prev_key + shared, p, (size_t)non_shared);
    key_len = new_len;
    if (valid_types && !valid_types[prev_key[key_len - 8]]) return REDO;
    if (count == 0) {
      /* the first key is whole in the block: shared is 0 for it */
      first_at = p;
      first_size = new_len;
    }
    count++;
    p = value + value_len;
  }
  if (next_restart < num_restarts) return REDO;
  *first = first_at;
  *first_len = first_size;
  *last_len = key_len;
  return count;
}

/*
 * Check the n data blocks at handles[2i] (file offset), handles[2i+1] (size), whose bytes
 * src holds from file offset src_offset on. meta gets SUMMARY_INTS ints per block (entries,
 * or REDO / NOT_HANDLED; key offsets and lengths in keys), keys the first and last keys from
 * *keys_used on (KEEP_KEYS). A block must end (trailer included) by `limit` (the footer) and
 * be at most max_block_bytes; a compressed block may declare at most max_output bytes. dict
 * (dict_len bytes, 0: none) is the table's compression dictionary, dict_id its id
 * (sstkit_verify_dictionary_id), used for ZSTD and LZ4 blocks as RocksDB does. flags:
 * VERIFY_CHECKSUMS, CHECK_ORDER (internal keys, bytewise), KEEP_KEYS, RAW_BLOCKS; valid_types: NULL, or
 * 256 bytes, non-zero for the entry types that pass.
 *
 * Returns how many blocks were done: n, or fewer when keys is full (the caller grows it and
 * calls again with the rest), or -1 when the call's own arguments are unusable.
 */
int32_t sstkit_verify_blocks(const uint8_t *src, double src_length, double src_offset, const double *handles, int32_t n, int32_t flags,
                             const uint8_t *valid_types, int32_t checksum_type, uint32_t context_base, int32_t format_version, double limit,
                             double max_block_bytes, double max_output, const uint8_t *dict, double dict_length, uint32_t dict_id, int32_t *meta,
                             uint8_t *keys, double keys_capacity, double *keys_used) {
  if (n < 0 || src_length < 0 || keys_capacity < 0 || dict_length < 0 || (dict_length > 0 && !dict)) return -1;
  register_thread();
  const size_t dict_len = (size_t)dict_length;
  const uint64_t src_len = (uint64_t)src_length, src_off = (uint64_t)src_offset;
  const int verify = (flags & VERIFY_CHECKSUMS) != 0;
  const int checksum_ok = !verify || checksum_available(checksum_type);
  size_t used = (size_t)*keys_used;
  const size_t capacity = (size_t)keys_capacity;
  int32_t b = 0;
  for (; b < n; b++) {
    int32_t *m = meta + (size_t)b * SUMMARY_INTS;
    const double offset_d = handles[2 * (size_t)b], size_d = handles[2 * (size_t)b + 1];
    m[1] = m[2] = m[3] = m[4] = 0;
    if (size_d > max_block_bytes || offset_d + size_d + BLOCK_TRAILER_BYTES > limit) {
      m[0] = REDO;
      continue;
    }
    const uint64_t offset = (uint64_t)offset_d, size = (uint64_t)size_d;
    if (!checksum_ok || offset < src_off || offset - src_off + size + BLOCK_TRAILER_BYTES > src_len) {
      m[0] = NOT_HANDLED;
      continue;
    }
    const uint8_t *block = src + (offset - src_off);
    const uint8_t type = (flags & RAW_BLOCKS) ? COMPRESSION_NONE : block[size];
    const int framed = ((type == COMPRESSION_ZSTD || type == COMPRESSION_ZSTD_NOT_FINAL) && zstd.decompress) ||
                       ((type == COMPRESSION_LZ4 || type == COMPRESSION_LZ4HC) && lz4_decompress);
    if (type != COMPRESSION_NONE && !(type == COMPRESSION_SNAPPY && snappy_uncompress) && !framed) {
      m[0] = NOT_HANDLED;
      continue;
    }
    if (verify) {
      uint32_t computed = block_checksum(checksum_type, block, (size_t)size + 1);
      if (format_version >= 6) computed += context_modifier(context_base, offset);
      if (computed != fixed32(block + size + 1)) {
        m[0] = REDO;
        continue;
      }
    }
    const uint8_t *contents = block;
    size_t contents_len = (size_t)size;
    if (type == COMPRESSION_SNAPPY) {
      size_t declared;
      /* Snappy's densest element, a 3-byte copy, yields 64 bytes: a larger claim is damage, not a reason to allocate. */
      if (snappy_length((const char *)block, (size_t)size, &declared) != 0 || (double)declared > max_output || declared > 22 * size + 32 ||
          !reserve(&contents_buf, &contents_capacity, declared > 0 ? declared : 1)) {
        m[0] = REDO;
        continue;
      }
      size_t out_len = declared;
      if (snappy_uncompress((const char *)block, (size_t)size, (char *)contents_buf, &out_len) != 0 || out_len != declared) {
        m[0] = REDO;
        continue;
      }
      contents = contents_buf;
      contents_len = declared;
    } else if (framed) {
      const int64_t r = decompress_framed(type, block, (size_t)size, format_version, max_output, dict, dict_len, dict_id, NULL, 0);
      if (r < 0) {
        m[0] = (int32_t)r;
        continue;
      }
      contents = contents_buf;
      contents_len = (size_t)r;
    }
    const uint8_t *first;
    uint32_t first_len = 0, last_len = 0;
    const int32_t entries = walk_block(contents, contents_len, (flags & CHECK_ORDER) != 0, valid_types, &first, &first_len, &last_len);
    if (entries > 0 && (flags & KEEP_KEYS)) {
      if (used + first_len + last_len > capacity) break;
      m[1] = (int32_t)used;
      m[2] = (int32_t)first_len;
      memcpy(keys + used, first, first_len);
      used += first_len;
      m[3] = (int32_t)used;
      m[4] = (int32_t)last_len;
      memcpy(keys + used, prev_key, last_len);
      used += last_len;
    }
    m[0] = entries;
  }
  *keys_used = (double)used;
  return b;
}

/*
 * scan's and sst-dump's per-block reading of a chunk in one call: for each block of `handles`
 * (inside src, the chunk's bytes read from file offset src_offset), the checksum (with
 * VERIFY_CHECKSUMS) and the contents, decompressed as sstkit_verify_blocks decompresses them
 * (RAW_BLOCKS: the payload as stored), written one after another into out. results[2b] is
 * where block b's contents start in out, results[2b + 1] their length, or REDO (read it again
 * in JavaScript, which words the problem) or NOT_HANDLED (a codec or checksum not done here).
 *
 * Returns how many blocks were done: n, or fewer when the next block's contents do not fit in
 * what is left of out (the caller prints those done and calls again from there), or -1 when
 * the call's own arguments are unusable.
 */
int32_t sstkit_decode_blocks(const uint8_t *src, double src_length, double src_offset, const double *handles, int32_t n, int32_t flags,
                             int32_t checksum_type, uint32_t context_base, int32_t format_version, double limit, double max_block_bytes,
                             double max_output, const uint8_t *dict, double dict_length, uint32_t dict_id, uint8_t *out, double out_capacity,
                             double *results) {
  if (n < 0 || src_length < 0 || out_capacity < 0 || dict_length < 0 || (dict_length > 0 && !dict)) return -1;
  register_thread();
  const size_t dict_len = (size_t)dict_length, capacity = (size_t)out_capacity;
  const uint64_t src_len = (uint64_t)src_length, src_off = (uint64_t)src_offset;
  const int verify = (flags & VERIFY_CHECKSUMS) != 0;
  const int checksum_ok = !verify || checksum_available(checksum_type);
  size_t used = 0;
  int32_t b = 0;
  for (; b < n; b++) {
    double *r = results + 2 * (size_t)b;
    const double offset_d = handles[2 * (size_t)b], size_d = handles[2 * (size_t)b + 1];
    r[0] = (double)used;
    if (size_d > max_block_bytes || offset_d + size_d + BLOCK_TRAILER_BYTES > limit) {
      r[1] = REDO;
      continue;
    }
    const uint64_t offset = (uint64_t)offset_d, size = (uint64_t)size_d;
    if (!checksum_ok || offset < src_off || offset - src_off + size + BLOCK_TRAILER_BYTES > src_len) {
      r[1] = NOT_HANDLED;
      continue;
    }
    const uint8_t *block = src + (offset - src_off);
    const uint8_t type = (flags & RAW_BLOCKS) ? COMPRESSION_NONE : block[size];
    const int framed = ((type == COMPRESSION_ZSTD || type == COMPRESSION_ZSTD_NOT_FINAL) && zstd.decompress) ||
                       ((type == COMPRESSION_LZ4 || type == COMPRESSION_LZ4HC) && lz4_decompress);
    if (type != COMPRESSION_NONE && !(type == COMPRESSION_SNAPPY && snappy_uncompress) && !framed) {
      r[1] = NOT_HANDLED;
      continue;
    }
    /* Whether it fits, before the checksum: a block that does not is done by the next call. */
    size_t declared = (size_t)size;
    if (type == COMPRESSION_SNAPPY) {
      /* Snappy's densest element, a 3-byte copy, yields 64 bytes: a larger claim is damage. */
      if (snappy_length((const char *)block, (size_t)size, &declared) != 0 || (double)declared > max_output || declared > 22 * size + 32) {
        r[1] = REDO;
        continue;
      }
    }
    if (!framed && declared > capacity - used) break;
    if (verify) {
      uint32_t computed = block_checksum(checksum_type, block, (size_t)size + 1);
      if (format_version >= 6) computed += context_modifier(context_base, offset);
      if (computed != fixed32(block + size + 1)) {
        r[1] = REDO;
        continue;
      }
    }
    if (type == COMPRESSION_NONE) {
      memcpy(out + used, block, (size_t)size);
    } else if (type == COMPRESSION_SNAPPY) {
      size_t out_len = declared;
      if (snappy_uncompress((const char *)block, (size_t)size, (char *)out + used, &out_len) != 0 || out_len != declared) {
        r[1] = REDO;
        continue;
      }
    } else {
      const int64_t d = decompress_framed(type, block, (size_t)size, format_version, max_output, dict, dict_len, dict_id, out + used, capacity - used);
      if (d == OUT_FULL) break;
      if (d < 0) {
        r[1] = (double)d;
        continue;
      }
      declared = (size_t)d;
    }
    r[1] = (double)declared;
    used += declared;
  }
  return b;
}

/* Bytewise order of a[0..an) and b[0..bn), as format/internal-key.ts bytewisePrefix. */
static int bytewise(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  const size_t n = an < bn ? an : bn;
  const int r = n ? memcmp(a, b, n) : 0;
  if (r != 0) return r;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/* Internal-key order (both at least 8 bytes): user keys bytewise, then (seqno << 8 | type) descending. */
static int internal_order(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  const int r = bytewise(a, an - 8, b, bn - 8);
  if (r != 0) return r;
  const uint64_t ta = fixed64(a + an - 8), tb = fixed64(b + bn - 8);
  return ta > tb ? -1 : ta < tb ? 1 : 0;
}

/* verify.ts indexCompare: an index separator (a user key, or an internal key) against a stored internal key b. */
static int index_order(const uint8_t *sep, size_t sn, int sep_is_user_key, const uint8_t *b, size_t bn) {
  return sep_is_user_key ? bytewise(sep, sn, b, bn - 8) : internal_order(sep, sn, b, bn);
}

/*
 * verify.ts's checks across the n summarized blocks of a chunk (meta and keys as
 * sstkit_verify_blocks leaves them; each block's index separator is
 * index_keys[index_ends[b - 1] (0 for b = 0) .. index_ends[b])), after the previous
 * block's state: prev_key (the last key of the last block with entries; prev_len -1: none)
 * and prev_index (the previous separator; -1: none). Returns 1 when every block was
 * passed and no check fires (the first key of each block after the last key before it
 * and after the separator before it, the separator not before the block's last key):
 * verify.ts then takes the chunk whole; else 0, and verify.ts walks it block by block.
 */
int32_t sstkit_verify_across(const int32_t *meta, const uint8_t *keys, int32_t n, const uint8_t *index_keys, const int32_t *index_ends,
                             int32_t sep_is_user_key, const uint8_t *prev_key, int32_t prev_len, const uint8_t *prev_index, int32_t prev_index_len) {
  const uint8_t *last = prev_key;
  int32_t last_len = prev_len;
  const uint8_t *sep = prev_index;
  int32_t sep_len = prev_index_len;
  if ((last_len >= 0 && last_len < 8) || (!sep_is_user_key && sep_len >= 0 && sep_len < 8)) return 0;
  for (int32_t b = 0; b < n; b++) {
    const int32_t *m = meta + (size_t)b * SUMMARY_INTS;
    if (m[0] < 0) return 0;
    const int32_t from = b == 0 ? 0 : index_ends[b - 1];
    const uint8_t *index_key = index_keys + from;
    const int32_t index_len = index_ends[b] - from;
    if (index_len < 0 || (!sep_is_user_key && index_len < 8)) return 0;
    if (m[0] > 0) {
      const uint8_t *first = keys + m[1];
      if (last_len >= 0 && internal_order(last, (size_t)last_len, first, (size_t)m[2]) >= 0) return 0;
      if (sep_len >= 0 && index_order(sep, (size_t)sep_len, sep_is_user_key, first, (size_t)m[2]) >= 0) return 0;
      last = keys + m[3];
      last_len = m[4];
    }
    if (last_len >= 0 && index_order(index_key, (size_t)index_len, sep_is_user_key, last, (size_t)last_len) < 0) return 0;
    sep = index_key;
    sep_len = index_len;
  }
  return 1;
}

/* A varint64 at *p before end that fits in a double exactly (format/index-block.ts readVarint); -1 when not. */
static inline double varint_number(const uint8_t **p, const uint8_t *end) {
  double result = 0, scale = 1;
  for (int i = 0; i < 10; i++) {
    if (*p >= end) return -1;
    const uint8_t b = *(*p)++;
    result += (double)(b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) return result > 9007199254740991.0 ? -1 : result;
  }
  return -1;
}

/*
 * The entries of an index block (not partitioned, no first keys in its values), from the entry
 * at state[0] on, as format/index-block.ts IndexBlockIter decodes them over format/block.ts
 * BlockIter: each entry's handle into handles (offset, size), its key into keys from keys_from
 * on (entry b's key ends at key_ends[b]). state: [0] the next entry's position, [1] [2] the previous handle
 * (offset, size: delta-encoded values add to it), [3] the previous key's length (the key in
 * prev_key, whose capacity is entries_end), [4] set to 1 at an entry the JavaScript iterator
 * would throw for or decode otherwise (the caller's iterator goes on from there and meets it),
 * 2 at the end of the entries, [5] the next restart point to meet (of the num_restarts stored
 * from entries_end on: the walk lands on each, at an entry sharing no key bytes, or stops there
 * as unusual). Stops after max_blocks entries, once their sizes reach
 * max_bytes, or when keys is full (state[4] 0); returns the entries written.
 */
int32_t sstkit_index_walk(const uint8_t *block, double entries_end, double num_restarts, int32_t delta_values, double *state, uint8_t *prev_key,
                          int32_t max_blocks, double max_bytes, double *handles, uint8_t *keys, int32_t keys_from, int32_t keys_capacity,
                          int32_t *key_ends) {
  const uint8_t *end = block + (size_t)entries_end;
  const uint8_t *p = block + (size_t)state[0];
  double prev_offset = state[1], prev_size = state[2];
  uint32_t key_len = (uint32_t)state[3];
  double next_restart = state[5];
  int32_t n = 0, used = keys_from;
  double bytes = 0;
  state[4] = 0;
  while (n < max_blocks && bytes < max_bytes) {
    const size_t next_point = next_restart < num_restarts ? fixed32(end + 4 * (size_t)next_restart) : (size_t)entries_end;
    if (p >= end) {
      state[4] = next_restart < num_restarts ? 1 : 2;
      break;
    }
    const uint8_t *entry = p;
    const size_t at = (size_t)(p - block);
    if (at > next_point) goto unusual;
    const int64_t shared = varint32(&p, end);
    if (shared < 0 || p >= end || (at == next_point && shared != 0)) goto unusual;
    const int64_t non_shared = varint32(&p, end);
    if (non_shared < 0) goto unusual;
    int64_t value_len = 0;
    if (!delta_values) {
      if (p >= end) goto unusual;
      value_len = varint32(&p, end);
      if (value_len < 0) goto unusual;
    }
    if ((uint64_t)shared > key_len || (uint64_t)non_shared > (uint64_t)(end - p)) goto unusual;
    const uint32_t new_len = (uint32_t)(shared + non_shared);
    if (used + (int64_t)new_len > keys_capacity) {
      p = entry;
      break;
    }
    const uint8_t *key_delta = p;
    p += non_shared;
    const uint8_t *value_end = end;
    if (!delta_values) {
      if ((uint64_t)value_len > (uint64_t)(end - p)) goto unusual;
      value_end = p + value_len;
    }
    double offset, size;
    if (delta_values && shared > 0) {
      const double z = varint_number(&p, end);
      if (z < 0) goto unusual;
      const double delta = fmod(z, 2) == 0 ? z / 2 : -(z + 1) / 2;
      size = prev_size + delta;
      if (size < 0) goto unusual;
      offset = prev_offset + prev_size + BLOCK_TRAILER_BYTES;
    } else {
      offset = varint_number(&p, end);
      if (offset < 0) goto unusual;
      size = varint_number(&p, end);
      if (size < 0) goto unusual;
    }
    if (p > value_end) goto unusual;
    memcpy(prev_key + shared, key_delta, (size_t)non_shared);
    key_len = new_len;
    if (at == next_point) next_restart++;
    memcpy(keys + used, prev_key, key_len);
    used += (int32_t)key_len;
    key_ends[n] = used;
    handles[2 * (size_t)n] = offset;
    handles[2 * (size_t)n + 1] = size;
    n++;
    bytes += size;
    prev_offset = offset;
    prev_size = size;
    p = delta_values ? p : value_end;
    continue;
  unusual:
    p = entry;
    state[4] = 1;
    break;
  }
  state[0] = (double)(p - block);
  state[1] = prev_offset;
  state[2] = prev_size;
  state[3] = key_len;
  state[5] = next_restart;
  return n;
}
