/*
 * The codec kernel (../codec-kernel.c) as a Node-API addon, loaded with process.dlopen: koffi's
 * own load was ~13 ms of each recompress and advise start (bench/README.md, "Start-up"). Each
 * function takes the arguments of its declaration in src/codec/kernel.ts, in that order: numbers,
 * typed arrays (or null) for pointers, passed as they are (no copy), and a codec as the External
 * newCodec returned. Linked, as the kernel's shared library is, with zstd-napi's own zstd.
 *
 * Built by scripts/build-native.mjs into dist/native/codec.node against the running node's
 * headers; where it is not built, src/codec/kernel.ts loads the kernel's library through koffi.
 */
#include <node_api.h>

#include <stdio.h>

#include "../codec-kernel.c"

#include "napi-args.h"

/* A codec argument: the pointer inside newCodec's External; *ok = 0 for anything else. */
static void *codec_of(napi_env env, napi_value v, int *ok) {
  napi_valuetype type;
  void *codec = NULL;
  if (napi_typeof(env, v, &type) != napi_ok || type != napi_external || napi_get_value_external(env, v, &codec) != napi_ok) *ok = 0;
  return codec;
}

static napi_value codec_init(napi_env env, napi_callback_info info) {
  (void)info;
  return int_result(env, 1, sstkit_codec_init());
}

static napi_value zstd_version(napi_env env, napi_callback_info info) {
  (void)info;
  return uint_result(env, sstkit_codec_zstd_version());
}

static napi_value thread_cpu_ns(napi_env env, napi_callback_info info) {
  (void)info;
  return double_result(env, sstkit_thread_cpu_ns());
}

/* newCodec(type, level, checksum, dict, dictLength): an External, or null where the codec is not available here. */
static napi_value codec_new(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 5, a)) return NULL;
  int ok = 1;
  int32_t type = int_of(env, a[0], &ok), level = int_of(env, a[1], &ok), checksum = int_of(env, a[2], &ok);
  size_t dict_bytes = 0;
  int dict_ok = 1;
  const uint8_t *dict = pointer_of(env, a[3], &dict_ok) ? bytes_of(env, a[3], &dict_bytes) : NULL;
  uint32_t dict_len = uint_of(env, a[4], &ok);
  if (!ok || !dict_ok || dict_len > dict_bytes) return int_result(env, 0, 0);
  void *codec = sstkit_codec_new(type, level, checksum, dict, dict_len);
  napi_value r;
  if (!codec) napi_get_null(env, &r);
  else if (napi_create_external(env, codec, NULL, NULL, &r) != napi_ok) return sstkit_codec_free(codec), NULL;
  return r;
}

/* freeCodec(codec): once per codec (src/codec/kernel.ts forgets it after). */
static napi_value codec_free(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 1, a)) return NULL;
  int ok = 1;
  void *codec = codec_of(env, a[0], &ok);
  if (!ok) return int_result(env, 0, 0);
  sstkit_codec_free(codec);
  return NULL;
}

static napi_value codec_split(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 2, a)) return NULL;
  int ok = 1;
  void *codec = codec_of(env, a[0], &ok);
  double min_batch_ns = number_of(env, a[1], &ok);
  return ok ? int_result(env, 1, sstkit_codec_split(codec, min_batch_ns)) : int_result(env, 0, 0);
}

static napi_value lend_cores(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 1, a)) return NULL;
  int ok = 1;
  int32_t delta = int_of(env, a[0], &ok);
  return ok ? int_result(env, 1, sstkit_codec_lend_cores(delta)) : int_result(env, 0, 0);
}

static napi_value spare_cores_now(napi_env env, napi_callback_info info) {
  (void)info;
  return int_result(env, 1, sstkit_codec_spare_cores());
}

static napi_value handed_batches_so_far(napi_env env, napi_callback_info info) {
  (void)info;
  return double_result(env, sstkit_codec_handed_batches());
}

/* compress(codec, src, lens, n, dst, cap, outLens, cpuNs) */
static napi_value compress_blocks(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 8, a)) return NULL;
  int ok = 1;
  void *codec = codec_of(env, a[0], &ok);
  const uint8_t *src = pointer_of(env, a[1], &ok);
  const uint32_t *lens = pointer_of(env, a[2], &ok);
  uint32_t n = uint_of(env, a[3], &ok);
  uint8_t *dst = pointer_of(env, a[4], &ok);
  double cap = number_of(env, a[5], &ok);
  uint32_t *out_lens = pointer_of(env, a[6], &ok);
  double *cpu_ns = pointer_of(env, a[7], &ok);
  if (!ok || !src || !lens || !dst || !out_lens || !cpu_ns) return int_result(env, 0, 0);
  return int_result(env, 1, sstkit_compress_blocks(codec, src, lens, n, dst, cap, out_lens, cpu_ns));
}

/* submit(codec, src, lens, n): the helper keeps reading src until collect, which the caller keeps alive till then. */
static napi_value compress_submit(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 4, a)) return NULL;
  int ok = 1;
  void *codec = codec_of(env, a[0], &ok);
  const uint8_t *src = pointer_of(env, a[1], &ok);
  const uint32_t *lens = pointer_of(env, a[2], &ok);
  uint32_t n = uint_of(env, a[3], &ok);
  if (!ok || !src || !lens) return int_result(env, 0, 0);
  return int_result(env, 1, sstkit_compress_submit(codec, src, lens, n));
}

/* collect(codec, dst, cap, outLens, cpuNs) */
static napi_value compress_collect(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 5, a)) return NULL;
  int ok = 1;
  void *codec = codec_of(env, a[0], &ok);
  uint8_t *dst = pointer_of(env, a[1], &ok);
  double cap = number_of(env, a[2], &ok);
  uint32_t *out_lens = pointer_of(env, a[3], &ok);
  double *cpu_ns = pointer_of(env, a[4], &ok);
  if (!ok || !dst || !out_lens || !cpu_ns) return int_result(env, 0, 0);
  return int_result(env, 1, sstkit_compress_collect(codec, dst, cap, out_lens, cpu_ns));
}

/* roundTrip(codec, src, lens, sizes, n, dst, cap, raw, cpuNs) */
static napi_value round_trip_blocks(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 9, a)) return NULL;
  int ok = 1;
  void *codec = codec_of(env, a[0], &ok);
  const uint8_t *src = pointer_of(env, a[1], &ok);
  const uint32_t *lens = pointer_of(env, a[2], &ok);
  const uint32_t *sizes = pointer_of(env, a[3], &ok);
  uint32_t n = uint_of(env, a[4], &ok);
  uint8_t *dst = pointer_of(env, a[5], &ok);
  double cap = number_of(env, a[6], &ok);
  const uint8_t *raw = pointer_of(env, a[7], &ok);
  double *cpu_ns = pointer_of(env, a[8], &ok);
  if (!ok || !src || !lens || !sizes || !dst || !raw || !cpu_ns) return int_result(env, 0, 0);
  return int_result(env, 1, sstkit_round_trip_blocks(codec, src, lens, sizes, n, dst, cap, raw, cpu_ns));
}

/* contentChecksums(raw, lens, n, cpuNs) */
static napi_value content_checksums(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 4, a)) return NULL;
  int ok = 1;
  const uint8_t *raw = pointer_of(env, a[0], &ok);
  const uint32_t *lens = pointer_of(env, a[1], &ok);
  uint32_t n = uint_of(env, a[2], &ok);
  double *cpu_ns = pointer_of(env, a[3], &ok);
  if (!ok || !raw || !lens || !cpu_ns) return int_result(env, 0, 0);
  return int_result(env, 1, sstkit_content_checksums(raw, lens, n, cpu_ns));
}

/* checksumFrames(src, lens, raw, rawLens, n, dst, cap, outLens, cpuNs) */
static napi_value checksum_frames(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 9, a)) return NULL;
  int ok = 1;
  const uint8_t *src = pointer_of(env, a[0], &ok);
  const uint32_t *lens = pointer_of(env, a[1], &ok);
  const uint8_t *raw = pointer_of(env, a[2], &ok);
  const uint32_t *raw_lens = pointer_of(env, a[3], &ok);
  uint32_t n = uint_of(env, a[4], &ok);
  uint8_t *dst = pointer_of(env, a[5], &ok);
  double cap = number_of(env, a[6], &ok);
  uint32_t *out_lens = pointer_of(env, a[7], &ok);
  double *cpu_ns = pointer_of(env, a[8], &ok);
  if (!ok || !src || !lens || !raw || !raw_lens || !dst || !out_lens || !cpu_ns) return int_result(env, 0, 0);
  return int_result(env, 1, sstkit_checksum_frames(src, lens, raw, raw_lens, n, dst, cap, out_lens, cpu_ns));
}

/* snappy_max_compressed_length(n), through the kernel's libsnappy; -2^31 where libsnappy is missing. */
static napi_value snappy_max_compressed(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 1, a)) return NULL;
  int ok = 1;
  double n = number_of(env, a[0], &ok);
  if (!ok || n < 0 || n > INT32_MAX) return int_result(env, 0, 0);
  if (!(sstkit_codec_init() & 1)) return int_result(env, 1, INT32_MIN);
  return double_result(env, (double)snappy.max_length((size_t)n));
}

/*
 * snappy_compress (RawCompress, as RocksDB's Snappy_Compress) of all of src into dst, which holds at
 * least snappy_max_compressed_length(src's length) bytes: the bytes written, or -(snappy's status);
 * -2^31 where libsnappy is missing.
 */
static napi_value snappy_block_compress(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 2, a)) return NULL;
  size_t src_len, dst_len;
  const uint8_t *src = bytes_of(env, a[0], &src_len);
  uint8_t *dst = bytes_of(env, a[1], &dst_len);
  if (!src || !dst || src_len > INT32_MAX || dst_len > INT32_MAX) return int_result(env, 0, 0);
  if (!(sstkit_codec_init() & 1)) return int_result(env, 1, INT32_MIN);
  if (dst_len < snappy.max_length(src_len)) return int_result(env, 0, 0);
  static const char empty[1];
  size_t written = dst_len;
  int status = snappy.compress(src_len ? (const char *)src : empty, src_len, (char *)dst, &written);
  return int_result(env, 1, status != 0 ? -status : (int32_t)written);
}

/*
 * The system libzstd's dictionary builder (ZDICT), as src/codec/zdict.ts calls it: the library
 * Debian's RocksDB builds its dictionaries with (zstd-napi's zstd has no ZDICT), opened on first
 * use. Its calls stay inside it: dlopen'd local, and this addon's own zstd is hidden.
 */
typedef struct {
  int compressionLevel;
  unsigned notificationLevel;
  unsigned dictID;
} zdict_params;
typedef size_t (*zdict_train_fn)(void *, size_t, const void *, const size_t *, unsigned);
typedef size_t (*zdict_finalize_fn)(void *, size_t, const void *, size_t, const void *, const size_t *, unsigned, zdict_params);
typedef unsigned (*zdict_is_error_fn)(size_t);
typedef const char *(*zdict_error_name_fn)(size_t);
typedef unsigned (*zstd_version_fn)(void);

static struct {
  zdict_train_fn train;
  zdict_finalize_fn finalize;
  zdict_is_error_fn is_error;
  zdict_error_name_fn error_name;
  zstd_version_fn version;
  char why[256]; /* why the library is not available ("" when it is) */
} zdict;

static void resolve_zdict(void) {
  void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *first = dlerror();
    snprintf(zdict.why, sizeof zdict.why, "libzstd.so.1: %s", first ? first : "not found");
    h = dlopen("libzstd.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
  }
  zdict.train = (zdict_train_fn)dlsym(h, "ZDICT_trainFromBuffer");
  zdict.finalize = (zdict_finalize_fn)dlsym(h, "ZDICT_finalizeDictionary");
  zdict.is_error = (zdict_is_error_fn)dlsym(h, "ZDICT_isError");
  zdict.error_name = (zdict_error_name_fn)dlsym(h, "ZDICT_getErrorName");
  zdict.version = (zstd_version_fn)dlsym(h, "ZSTD_versionNumber");
  if (!zdict.train || !zdict.finalize || !zdict.is_error || !zdict.error_name || !zdict.version) {
    zdict.train = NULL;
    snprintf(zdict.why, sizeof zdict.why, "libzstd has no ZDICT_trainFromBuffer, ZDICT_finalizeDictionary or ZSTD_versionNumber");
  } else {
    zdict.why[0] = 0;
  }
}

static int zdict_ready(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, resolve_zdict);
  return zdict.train != NULL;
}

/* zdictUnavailable(): null where the system libzstd's ZDICT loads, else why not. */
static napi_value zdict_unavailable(napi_env env, napi_callback_info info) {
  (void)info;
  if (zdict_ready()) {
    napi_value r;
    napi_get_null(env, &r);
    return r;
  }
  return string_result(env, zdict.why);
}

/* zdictVersion(): the system libzstd's ZSTD_versionNumber(), e.g. 10504 (0 where it does not load). */
static napi_value zdict_version(napi_env env, napi_callback_info info) {
  (void)info;
  return uint_result(env, zdict_ready() ? zdict.version() : 0);
}

/* A ZDICT result: the dictionary's length, or ZDICT's error name (a string). */
static napi_value zdict_result(napi_env env, size_t r) {
  return zdict.is_error(r) ? string_result(env, zdict.error_name(r)) : double_result(env, (double)r);
}

/* The samples' sizes (a BigUint64Array: size_t here) and their count; NULL for anything else. */
static const size_t *sample_sizes_of(napi_env env, napi_value v, size_t *count) {
  _Static_assert(sizeof(size_t) == sizeof(uint64_t), "size_t is 64 bits");
  return typed_of(env, v, napi_biguint64_array, count);
}

/*
 * zdictTrain(dict, capacity, samples, sampleSizes, n): ZDICT_trainFromBuffer into dict[0, capacity).
 * A TypeError where capacity is past dict, n past sampleSizes or the sizes past the samples.
 */
static napi_value zdict_train(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 5, a)) return NULL;
  int ok = 1;
  size_t dict_len, samples_len, sizes_count;
  uint8_t *dict = bytes_of(env, a[0], &dict_len);
  double capacity = number_of(env, a[1], &ok);
  const uint8_t *samples = bytes_of(env, a[2], &samples_len);
  const size_t *sizes = sample_sizes_of(env, a[3], &sizes_count);
  uint32_t n = uint_of(env, a[4], &ok);
  size_t total = 0;
  if (ok && sizes && n <= sizes_count)
    for (uint32_t i = 0; i < n; i++) total += sizes[i];
  if (!ok || !dict || !samples || !sizes || capacity < 0 || capacity > (double)dict_len || n > sizes_count || total > samples_len) return int_result(env, 0, 0);
  if (!zdict_ready()) return string_result(env, zdict.why);
  return zdict_result(env, zdict.train(dict, (size_t)capacity, samples, sizes, n));
}

/*
 * zdictFinalize(dict, capacity, content, samples, sampleSizes, n, level): ZDICT_finalizeDictionary of
 * content into dict[0, capacity), with compressionLevel `level`, no notifications and an automatic ID.
 */
static napi_value zdict_finalize(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 7, a)) return NULL;
  int ok = 1;
  size_t dict_len, content_len, samples_len, sizes_count;
  uint8_t *dict = bytes_of(env, a[0], &dict_len);
  double capacity = number_of(env, a[1], &ok);
  const uint8_t *content = bytes_of(env, a[2], &content_len);
  const uint8_t *samples = bytes_of(env, a[3], &samples_len);
  const size_t *sizes = sample_sizes_of(env, a[4], &sizes_count);
  uint32_t n = uint_of(env, a[5], &ok);
  int32_t level = int_of(env, a[6], &ok);
  size_t total = 0;
  if (ok && sizes && n <= sizes_count)
    for (uint32_t i = 0; i < n; i++) total += sizes[i];
  if (!ok || !dict || !content || !samples || !sizes || capacity < 0 || capacity > (double)dict_len || n > sizes_count || total > samples_len)
    return int_result(env, 0, 0);
  if (!zdict_ready()) return string_result(env, zdict.why);
  zdict_params params = {level, 0, 0};
  return zdict_result(env, zdict.finalize(dict, (size_t)capacity, content, content_len, samples, sizes, n, params));
}

NAPI_MODULE_INIT() {
  static const napi_call calls[] = {
      {"init", codec_init},
      {"zstdVersion", zstd_version},
      {"threadCpuNs", thread_cpu_ns},
      {"newCodec", codec_new},
      {"freeCodec", codec_free},
      {"splitCodec", codec_split},
      {"lendCores", lend_cores},
      {"spareCores", spare_cores_now},
      {"handedBatches", handed_batches_so_far},
      {"compress", compress_blocks},
      {"submit", compress_submit},
      {"collect", compress_collect},
      {"roundTrip", round_trip_blocks},
      {"contentChecksums", content_checksums},
      {"checksumFrames", checksum_frames},
      {"snappyCompress", snappy_block_compress},
      {"snappyMaxCompressedLength", snappy_max_compressed},
      {"zdictUnavailable", zdict_unavailable},
      {"zdictVersion", zdict_version},
      {"zdictTrain", zdict_train},
      {"zdictFinalize", zdict_finalize},
  };
  return exported(env, exports, calls, sizeof calls / sizeof calls[0]);
}
