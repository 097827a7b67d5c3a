/*
 * The native kernel (../verify-kernel.c) as a Node-API addon: loaded with process.dlopen, where
 * koffi's own load cost ~8 ms of CPU of each process (of verify's ~40 ms after node's start on a
 * small file; measured in bench/README.md, "Start-up"). Each function takes the arguments the
 * koffi declarations in src/verify/native.ts take, in that order: numbers, and typed arrays (or
 * null) for pointers, which are passed as they are (no copy).
 *
 * Built by scripts/build-native.mjs into dist/native/sstkit.node against the running node's
 * headers; where it is not built, src/codec/addon.ts returns null and koffi loads the kernel.
 */
#include <node_api.h>

#include "../verify-kernel.c"
#include "../recut-kernel.h"

#include "napi-args.h"

#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

static napi_value verify_init(napi_env env, napi_callback_info info) {
  (void)info;
  return int_result(env, 1, sstkit_verify_init());
}

static napi_value dictionary_id(napi_env env, napi_callback_info info) {
  (void)info;
  return uint_result(env, sstkit_verify_dictionary_id());
}

static napi_value verify_blocks(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 20, a)) return NULL;
  int ok = 1;
  const uint8_t *src = pointer_of(env, a[0], &ok);
  double src_length = number_of(env, a[1], &ok), src_offset = number_of(env, a[2], &ok);
  const double *handles = pointer_of(env, a[3], &ok);
  int32_t n = int_of(env, a[4], &ok), flags = int_of(env, a[5], &ok);
  const uint8_t *valid_types = pointer_of(env, a[6], &ok);
  int32_t checksum_type = int_of(env, a[7], &ok);
  uint32_t context_base = uint_of(env, a[8], &ok);
  int32_t format_version = int_of(env, a[9], &ok);
  double limit = number_of(env, a[10], &ok), max_block = number_of(env, a[11], &ok), max_output = number_of(env, a[12], &ok);
  const uint8_t *dict = pointer_of(env, a[13], &ok);
  double dict_length = number_of(env, a[14], &ok);
  uint32_t dict_id = uint_of(env, a[15], &ok);
  int32_t *meta = pointer_of(env, a[16], &ok);
  uint8_t *keys = pointer_of(env, a[17], &ok);
  double keys_capacity = number_of(env, a[18], &ok);
  double *keys_used = pointer_of(env, a[19], &ok);
  if (!ok || !src || !handles || !meta || !keys || !keys_used) return int_result(env, 0, 0);
  return int_result(env, 1,
                    sstkit_verify_blocks(src, src_length, src_offset, handles, n, flags, valid_types, checksum_type, context_base, format_version,
                                         limit, max_block, max_output, dict, dict_length, dict_id, meta, keys, keys_capacity, keys_used));
}

static napi_value decode_blocks(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 18, a)) return NULL;
  int ok = 1;
  const uint8_t *src = pointer_of(env, a[0], &ok);
  double src_length = number_of(env, a[1], &ok), src_offset = number_of(env, a[2], &ok);
  const double *handles = pointer_of(env, a[3], &ok);
  int32_t n = int_of(env, a[4], &ok), flags = int_of(env, a[5], &ok), checksum_type = int_of(env, a[6], &ok);
  uint32_t context_base = uint_of(env, a[7], &ok);
  int32_t format_version = int_of(env, a[8], &ok);
  double limit = number_of(env, a[9], &ok), max_block = number_of(env, a[10], &ok), max_output = number_of(env, a[11], &ok);
  const uint8_t *dict = pointer_of(env, a[12], &ok);
  double dict_length = number_of(env, a[13], &ok);
  uint32_t dict_id = uint_of(env, a[14], &ok);
  uint8_t *out = pointer_of(env, a[15], &ok);
  double out_capacity = number_of(env, a[16], &ok);
  double *results = pointer_of(env, a[17], &ok);
  if (!ok || !src || !handles || !out || !results) return int_result(env, 0, 0);
  return int_result(env, 1,
                    sstkit_decode_blocks(src, src_length, src_offset, handles, n, flags, checksum_type, context_base, format_version, limit,
                                         max_block, max_output, dict, dict_length, dict_id, out, out_capacity, results));
}

static napi_value verify_across(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 10, a)) return NULL;
  int ok = 1;
  const int32_t *meta = pointer_of(env, a[0], &ok);
  const uint8_t *keys = pointer_of(env, a[1], &ok);
  int32_t n = int_of(env, a[2], &ok);
  const uint8_t *index_keys = pointer_of(env, a[3], &ok);
  const int32_t *index_ends = pointer_of(env, a[4], &ok);
  int32_t sep_is_user_key = int_of(env, a[5], &ok);
  const uint8_t *prev_key = pointer_of(env, a[6], &ok);
  int32_t prev_len = int_of(env, a[7], &ok);
  const uint8_t *prev_index = pointer_of(env, a[8], &ok);
  int32_t prev_index_len = int_of(env, a[9], &ok);
  if (!ok || !meta || !keys || !index_keys || !index_ends) return int_result(env, 0, 0);
  return int_result(env, 1, sstkit_verify_across(meta, keys, n, index_keys, index_ends, sep_is_user_key, prev_key, prev_len, prev_index, prev_index_len));
}

static napi_value index_walk(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 13, a)) return NULL;
  int ok = 1;
  const uint8_t *block = pointer_of(env, a[0], &ok);
  double entries_end = number_of(env, a[1], &ok), num_restarts = number_of(env, a[2], &ok);
  int32_t delta_values = int_of(env, a[3], &ok);
  double *state = pointer_of(env, a[4], &ok);
  uint8_t *prev_key = pointer_of(env, a[5], &ok);
  int32_t max_blocks = int_of(env, a[6], &ok);
  double max_bytes = number_of(env, a[7], &ok);
  double *handles = pointer_of(env, a[8], &ok);
  uint8_t *keys = pointer_of(env, a[9], &ok);
  int32_t keys_from = int_of(env, a[10], &ok), keys_capacity = int_of(env, a[11], &ok);
  int32_t *key_ends = pointer_of(env, a[12], &ok);
  if (!ok || !block || !state || !prev_key || !handles || !keys || !key_ends) return int_result(env, 0, 0);
  return int_result(env, 1,
                    sstkit_index_walk(block, entries_end, num_restarts, delta_values, state, prev_key, max_blocks, max_bytes, handles, keys,
                                      keys_from, keys_capacity, key_ends));
}

/*
 * The arguments (bytes: Uint8Array, length) of a hash of bytes[0, length): 1 with their data (never
 * NULL) and the length; 0 when the length is not a number or is past the bytes; -1 when the count
 * of arguments is wrong (a TypeError thrown).
 */
static int prefix_of(napi_env env, napi_callback_info info, const uint8_t **data, size_t *want) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 2, a)) return -1;
  int ok = 1;
  size_t byte_length = 0;
  const uint8_t *bytes = bytes_of(env, a[0], &byte_length);
  double length = number_of(env, a[1], &ok);
  if (!ok || length < 0 || length > (double)byte_length) return 0;
  *data = bytes ? bytes : (const uint8_t *)"";
  *want = (size_t)length;
  return 1;
}

/*
 * hash(data[0, length)) for a (bytes, length) call; a RangeError with `refusal` when length is over
 * the bytes given or the hash is not available here (`available`, after init).
 */
static napi_value prefix_hash(napi_env env, napi_callback_info info, uint32_t (*hash)(const uint8_t *, size_t), int available, const char *refusal) {
  const uint8_t *data;
  size_t want;
  int got = prefix_of(env, info, &data, &want);
  if (got < 0) return NULL;
  if (!got || !available) {
    napi_throw_range_error(env, NULL, refusal);
    return NULL;
  }
  return uint_result(env, hash(data, want));
}

static uint32_t xxh3_lo32(const uint8_t *data, size_t n) { return (uint32_t)xxh3(data, n); }

/* lo32(XXH3_64bits) of data[0, length): the block checksums JavaScript computes (meta blocks, a block read alone). */
static napi_value xxh3_low32(napi_env env, napi_callback_info info) {
  sstkit_verify_init();
  return prefix_hash(env, info, xxh3_lo32, xxh3 != NULL, "sstkit addon: xxh3 of more bytes than given, or libxxhash missing");
}

/* crc32c (unmasked) of data[0, length), with SSE 4.2; throws where the CPU has none (init()'s bit 4: codec/checksum.ts asks it first). */
static napi_value crc32c_of(napi_env env, napi_callback_info info) {
  sstkit_verify_init();
  return prefix_hash(env, info, crc32c, crc32c_hardware, "sstkit addon: crc32c of more bytes than given, or no SSE 4.2");
}

/*
 * LZ4_decompress_safe(_usingDict) of src into dst (all of each; dict null or a Uint8Array): LZ4's
 * result (bytes written, or negative at malformed input); -2^31 where liblz4 is missing.
 */
static napi_value lz4_block_decompress(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 3, a)) return NULL;
  sstkit_verify_init();
  size_t src_len, dst_len, dict_len = 0;
  const uint8_t *src = bytes_of(env, a[0], &src_len);
  uint8_t *dst = bytes_of(env, a[1], &dst_len);
  int dict_ok = 1;
  const uint8_t *dict = pointer_of(env, a[2], &dict_ok) ? bytes_of(env, a[2], &dict_len) : NULL;
  if (!src || !dst || !dict_ok || src_len > INT32_MAX || dst_len > INT32_MAX || dict_len > INT32_MAX) return int_result(env, 0, 0);
  if (!lz4_decompress) return int_result(env, 1, INT32_MIN);
  int n = dict && dict_len > 0 ? lz4_decompress_dict((const char *)src, (char *)dst, (int)src_len, (int)dst_len, (const char *)dict, (int)dict_len)
                               : lz4_decompress((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
  return int_result(env, 1, n);
}

/* snappy_uncompress of src into dst: the bytes written, or -(snappy's status) (1 invalid input, 2 too small); -2^31 where libsnappy is missing. */
static napi_value snappy_block_uncompress(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 2, a)) return NULL;
  sstkit_verify_init();
  size_t src_len, dst_len;
  const uint8_t *src = bytes_of(env, a[0], &src_len);
  uint8_t *dst = bytes_of(env, a[1], &dst_len);
  if (!src || !dst || dst_len > INT32_MAX) return int_result(env, 0, 0);
  if (!snappy_uncompress) return int_result(env, 1, INT32_MIN);
  size_t written = dst_len;
  int status = snappy_uncompress((const char *)src, src_len, (char *)dst, &written);
  return int_result(env, 1, status != 0 ? -status : (int32_t)written);
}

/* sstkit_recut (../recut-kernel.h): mode, src, out, restarts (Uint32Array), srcKey, lastKey, state (Float64Array of RC_SLOTS). */
static napi_value recut(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 7, a)) return NULL;
  int ok = 1;
  int32_t mode = int_of(env, a[0], &ok);
  size_t src_len, out_len, restarts_len, src_key_len, last_key_len, state_len;
  const uint8_t *src = typed_of(env, a[1], napi_uint8_array, &src_len);
  uint8_t *out = typed_of(env, a[2], napi_uint8_array, &out_len);
  uint32_t *restarts = typed_of(env, a[3], napi_uint32_array, &restarts_len);
  uint8_t *src_key = typed_of(env, a[4], napi_uint8_array, &src_key_len);
  uint8_t *last_key = typed_of(env, a[5], napi_uint8_array, &last_key_len);
  double *state = typed_of(env, a[6], napi_float64_array, &state_len);
  if (!ok || !src || !out || !restarts || !src_key || !last_key || !state || state_len < RC_SLOTS || restarts_len < 1) return int_result(env, 0, 0);
  return int_result(env, 1,
                    sstkit_recut(mode, src, src_len, out, out_len, restarts, restarts_len, src_key, last_key,
                                 src_key_len < last_key_len ? src_key_len : last_key_len, state));
}

/*
 * mallopt(param, value) (glibc; 0, its failure, elsewhere): src/util/malloc.ts fixes malloc's
 * mmap and trim thresholds with it.
 */
static napi_value mallopt_call(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 2, a)) return NULL;
  int ok = 1;
  int32_t param = int_of(env, a[0], &ok), value = int_of(env, a[1], &ok);
  if (!ok) return int_result(env, 0, 0);
#ifdef __GLIBC__
  return int_result(env, 1, mallopt(param, value));
#else
  (void)param, (void)value;
  return int_result(env, 1, 0);
#endif
}

/* malloc_trim(pad) (glibc; 0 elsewhere): 1 when memory went back to the system. */
static napi_value malloc_trim_call(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 1, a)) return NULL;
  int ok = 1;
  uint32_t pad = uint_of(env, a[0], &ok);
  if (!ok) return int_result(env, 0, 0);
#ifdef __GLIBC__
  return int_result(env, 1, malloc_trim(pad));
#else
  (void)pad;
  return int_result(env, 1, 0);
#endif
}

/*
 * _exit(code): the process ends here, without Node's and V8's teardown (src/util/exit.ts says
 * when a command may); a TypeError for a code that is not an int32.
 */
static napi_value exit_now(napi_env env, napi_callback_info info) {
  napi_value a[MAX_ARGS];
  if (!arguments_of(env, info, 1, a)) return NULL;
  int ok = 1;
  int32_t code = int_of(env, a[0], &ok);
  if (ok) _exit(code);
  return int_result(env, 0, 0);
}

NAPI_MODULE_INIT() {
  static const napi_call calls[] = {
      {"init", verify_init},     {"dictionaryId", dictionary_id}, {"verifyBlocks", verify_blocks}, {"decodeBlocks", decode_blocks},
      {"verifyAcross", verify_across}, {"indexWalk", index_walk},       {"xxh3Low32", xxh3_low32},
      {"lz4Decompress", lz4_block_decompress}, {"crc32c", crc32c_of}, {"snappyUncompress", snappy_block_uncompress}, {"recut", recut},
      {"mallopt", mallopt_call}, {"mallocTrim", malloc_trim_call}, {"exitNow", exit_now},
  };
  return exported(env, exports, calls, sizeof calls / sizeof calls[0]);
}
