/*
 * Reading a Node-API call's arguments, making its result and exporting the calls, for the kernels'
 * addons (sstkit.c, codec.c): numbers, and
 * typed arrays (or null) for pointers, passed as they are (no copy). A wrong count of arguments or
 * an argument of the wrong type is a TypeError: a caller's bug, not a file's.
 */
#ifndef SSTKIT_NAPI_ARGS_H
#define SSTKIT_NAPI_ARGS_H

#include <node_api.h>
#include <stdint.h>

#define MAX_ARGS 20

/* Where an empty typed array points (V8 may give it no backing store): not NULL, never read or written. */
static double empty_backing;

/* The pointer of a typed array or ArrayBuffer argument (null and undefined: NULL); *ok = 0 for anything else. */
static inline void *pointer_of(napi_env env, napi_value v, int *ok) {
  napi_valuetype type;
  if (napi_typeof(env, v, &type) != napi_ok) return (*ok = 0), NULL;
  if (type == napi_null || type == napi_undefined) return NULL;
  bool is;
  if (napi_is_typedarray(env, v, &is) == napi_ok && is) {
    void *data = NULL;
    if (napi_get_typedarray_info(env, v, NULL, NULL, &data, NULL, NULL) != napi_ok) *ok = 0;
    return data ? data : &empty_backing;
  }
  if (napi_is_arraybuffer(env, v, &is) == napi_ok && is) {
    void *data = NULL;
    if (napi_get_arraybuffer_info(env, v, &data, NULL) != napi_ok) *ok = 0;
    return data ? data : &empty_backing;
  }
  *ok = 0;
  return NULL;
}

static inline double number_of(napi_env env, napi_value v, int *ok) {
  double d = 0;
  if (napi_get_value_double(env, v, &d) != napi_ok) *ok = 0;
  return d;
}

static inline int32_t int_of(napi_env env, napi_value v, int *ok) {
  int32_t i = 0;
  if (napi_get_value_int32(env, v, &i) != napi_ok) *ok = 0;
  return i;
}

static inline uint32_t uint_of(napi_env env, napi_value v, int *ok) {
  uint32_t u = 0;
  if (napi_get_value_uint32(env, v, &u) != napi_ok) *ok = 0;
  return u;
}

/* The call's arguments: exactly `want` of them, else a TypeError (a caller's bug, not a file's). */
static inline int arguments_of(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = MAX_ARGS;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != want) {
    napi_throw_type_error(env, NULL, "sstkit addon: wrong number of arguments");
    return 0;
  }
  return 1;
}

static inline napi_value int_result(napi_env env, int ok, int32_t value) {
  napi_value r;
  if (!ok) {
    napi_throw_type_error(env, NULL, "sstkit addon: an argument of the wrong type");
    return NULL;
  }
  napi_create_int32(env, value, &r);
  return r;
}

static inline napi_value uint_result(napi_env env, uint32_t value) {
  napi_value r;
  napi_create_uint32(env, value, &r);
  return r;
}

/* The elements of a typed array argument of `kind` and their count; NULL for anything else. */
static inline void *typed_of(napi_env env, napi_value v, napi_typedarray_type want, size_t *length) {
  bool is = false;
  napi_typedarray_type kind;
  void *data = NULL;
  *length = 0;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return NULL;
  if (napi_get_typedarray_info(env, v, &kind, length, &data, NULL, NULL) != napi_ok || kind != want) {
    *length = 0;
    return NULL;
  }
  return data ? data : &empty_backing;
}

/* The bytes of a Uint8Array argument and their count; NULL for anything else. */
static inline uint8_t *bytes_of(napi_env env, napi_value v, size_t *length) { return typed_of(env, v, napi_uint8_array, length); }

static inline napi_value double_result(napi_env env, double value) {
  napi_value r;
  napi_create_double(env, value, &r);
  return r;
}

static inline napi_value string_result(napi_env env, const char *text) {
  napi_value r;
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &r);
  return r;
}

/* A function of an addon's exports: its name in JavaScript and its callback. */
typedef struct {
  const char *name;
  napi_callback fn;
} napi_call;

/* `exports` with each of calls[0, n) set on it; NULL (the load fails) where one cannot be. */
static inline napi_value exported(napi_env env, napi_value exports, const napi_call *calls, size_t n) {
  for (size_t i = 0; i < n; i++) {
    napi_value fn;
    if (napi_create_function(env, calls[i].name, NAPI_AUTO_LENGTH, calls[i].fn, NULL, &fn) != napi_ok ||
        napi_set_named_property(env, exports, calls[i].name, fn) != napi_ok)
      return NULL;
  }
  return exports;
}

#endif
