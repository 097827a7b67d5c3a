/*
 * Re-cutting a table's entries into data blocks of another size, as RocksDB's table builder cuts
 * them (BlockBuilder, FlushBlockBySizePolicy): the loop recompress and advise run over every entry
 * of a file, here in one native call per stored block instead of several JavaScript calls per
 * entry. It mirrors, check for check, what src/format/block.ts (BlockIter over the stored block,
 * BlockBuilder building the new one) and src/table/block-builder.ts (FlushBySizePolicy) do, and
 * counts each block's entries as src/recompress/evaluate.ts's countEntry; src/recompress/
 * recut-native.ts drives it, and its test holds both paths to the same blocks.
 *
 * Where a stored entry is unreadable it stops and says where; the caller walks that block with
 * BlockIter for the one-line error (the checks are the same, so it fails at the same entry).
 *
 * All state lives in `st` (doubles, slots below) and in the caller's buffers, so a call can stop
 * when a block is finished or a buffer is too small and resume where it stopped.
 */
#include <stdint.h>
#include <string.h>

enum {
  /* The stored block being read (set by the caller before the first call on it, RC_FRESH = 1). */
  RC_FRESH,
  RC_END,           /* entries end */
  RC_RESTARTS_OFF,  /* offset of the restart array */
  RC_NUM_RESTARTS,
  RC_SEPARATED,     /* separated key/value layout */
  RC_VALUES_START,
  RC_VALUES_END,
  RC_SRC_INTERVAL,  /* the table's restart interval (separated layout) */
  /* The stored block's iterator. */
  RC_POS,
  RC_RESTART_INDEX,
  RC_SINCE_RESTART,
  RC_PENDING_RESTART,
  RC_VALID,
  RC_SRC_KEY_LEN,
  RC_NEXT_VALUE,
  RC_ENTRY_INDEX,   /* entries read from the stored block */
  /* An entry read but not yet added (a block was finished before it, or a buffer was short). */
  RC_PENDING,
  RC_PENDING_VALUE,
  RC_PENDING_VALUE_LEN,
  RC_PENDING_ENTRY,
  /* The block being built. */
  RC_BLOCK_SIZE,
  RC_DEVIATION_LIMIT,
  RC_INTERVAL,
  RC_SIZE,
  RC_COUNTER,
  RC_ESTIMATE,
  RC_NUM_BUILT_RESTARTS,
  RC_LAST_LEN,
  RC_FIRST_OFF,
  RC_FIRST_LEN,
  RC_STARTED,       /* 1 when a block got its first entry in this call (RC_START_ENTRY: which) */
  RC_START_ENTRY,
  /* A finished block (result 1): its length, its last key's length, its entries counted. */
  RC_BLOCK_LEN,
  RC_BLOCK_LAST_LEN,
  RC_ENTRIES,
  RC_DELETIONS,
  RC_MERGES,
  RC_RAW_KEY,
  RC_RAW_VALUE,
  RC_MIN_HI, /* sequence numbers as (seq >> 24, seq & 0xffffff), as src/format/internal-key.ts's sequenceFrom splits them */
  RC_MIN_LO,
  RC_MAX_HI,
  RC_MAX_LO,
  /* Result 2 or 3: the capacity needed (-2: the short key's length); -1 or -2: the unreadable entry's offset in the block (RC_ERROR_AT). */
  RC_NEED,
  RC_ERROR_AT,
  /* Set by the caller: a key shorter than its 8-byte trailer is an error (-2), for callers that count entries by it. */
  RC_STRICT,
  RC_SLOTS
};

enum { RC_EXHAUSTED = 0, RC_BLOCK = 1, RC_GROW_OUT = 2, RC_GROW_KEYS = 3, RC_CORRUPT = -1, RC_SHORT_KEY = -2 };

static inline uint32_t rc_fixed32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* BlockIter's varint32: at most 5 bytes, each before `end`; 0 when truncated or malformed. */
static inline int rc_varint(const uint8_t *b, uint64_t *p, uint64_t end, uint64_t *out) {
  uint64_t q = *p, result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (q >= end) return 0;
    uint8_t byte = b[q++];
    result |= (uint64_t)(byte & 0x7f) << shift;
    if (byte < 0x80) {
      *p = q;
      *out = result;
      return 1;
    }
  }
  return 0;
}

static inline int rc_varint_length(uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static inline uint64_t rc_put_varint(uint8_t *b, uint64_t p, uint64_t v) {
  while (v >= 0x80) {
    b[p++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[p++] = (uint8_t)v;
  return p;
}

/* BlockBuilder.finish: the restart array and its count after the entries; the builder starts over. */
static void rc_finish(double *st, uint8_t *out, const uint32_t *restarts) {
  uint64_t p = (uint64_t)st[RC_SIZE];
  uint32_t n = (uint32_t)st[RC_NUM_BUILT_RESTARTS];
  for (uint32_t i = 0; i < n; i++, p += 4) memcpy(out + p, &restarts[i], 4); /* little-endian hosts only (x86-64, arm64) */
  memcpy(out + p, &n, 4);
  st[RC_BLOCK_LEN] = (double)(p + 4);
  st[RC_BLOCK_LAST_LEN] = st[RC_LAST_LEN];
  st[RC_SIZE] = 0;
  st[RC_NUM_BUILT_RESTARTS] = 1;
  st[RC_COUNTER] = 0;
  st[RC_LAST_LEN] = 0;
  st[RC_ESTIMATE] = 8;
}

/*
 * mode 0: read entries of src into blocks until one is finished (1), src is read (0), a buffer is
 * short (2: out, 3: the key buffers; RC_NEED says how large), or an entry is unreadable (-1, -2).
 * mode 1: finish the block being built (1), or 0 when it is empty.
 */
static int sstkit_recut(int mode, const uint8_t *src, uint64_t src_len, uint8_t *out, uint64_t out_cap, uint32_t *restarts, uint64_t restarts_cap,
                        uint8_t *src_key, uint8_t *last_key, uint64_t key_cap, double *st) {
  if (mode == 1) {
    if (st[RC_SIZE] == 0) return RC_EXHAUSTED;
    rc_finish(st, out, restarts);
    return RC_BLOCK;
  }
  const uint64_t end = (uint64_t)st[RC_END];
  const uint64_t restarts_off = (uint64_t)st[RC_RESTARTS_OFF];
  const uint64_t num_restarts = (uint64_t)st[RC_NUM_RESTARTS];
  const int separated = st[RC_SEPARATED] != 0;
  const uint64_t src_interval = (uint64_t)st[RC_SRC_INTERVAL];
  /* the caller's layout says otherwise: never read past src */
  if (end > src_len || restarts_off + 4 * num_restarts > src_len || (separated && st[RC_VALUES_END] > (double)src_len)) return RC_CORRUPT;
  if (st[RC_FRESH] != 0) {
    /* BlockIter.seekToFirst */
    st[RC_FRESH] = 0;
    st[RC_ENTRY_INDEX] = 0;
    st[RC_VALID] = 0;
    if (num_restarts == 0 || end == 0) {
      st[RC_POS] = (double)end;
      st[RC_RESTART_INDEX] = 0;
      return RC_EXHAUSTED;
    }
    uint32_t first = rc_fixed32(src + restarts_off);
    if (first >= end) return (st[RC_ERROR_AT] = 0), RC_CORRUPT;
    st[RC_POS] = first;
    st[RC_RESTART_INDEX] = 0;
    st[RC_SRC_KEY_LEN] = 0;
    st[RC_PENDING_RESTART] = 1;
    st[RC_SINCE_RESTART] = 0;
  }
  const uint64_t block_size = (uint64_t)st[RC_BLOCK_SIZE];
  const uint64_t deviation_limit = (uint64_t)st[RC_DEVIATION_LIMIT];
  const uint64_t interval = (uint64_t)st[RC_INTERVAL];
  for (;;) {
    if (st[RC_PENDING] == 0) {
      /* BlockIter.next, committed only once the whole entry is read */
      uint64_t pos = (uint64_t)st[RC_POS];
      uint64_t ri = (uint64_t)st[RC_RESTART_INDEX], since = (uint64_t)st[RC_SINCE_RESTART];
      int at_restart;
      if (pos >= end) {
        if (ri + 1 < num_restarts && st[RC_VALID] != 0) return (st[RC_ERROR_AT] = (double)pos), RC_CORRUPT;
        st[RC_VALID] = 0;
        return RC_EXHAUSTED;
      }
      st[RC_ERROR_AT] = (double)pos;
      if (st[RC_PENDING_RESTART] != 0) {
        at_restart = 1;
        since = 0;
      } else if (ri + 1 < num_restarts && pos >= rc_fixed32(src + restarts_off + 4 * (ri + 1))) {
        if (pos != rc_fixed32(src + restarts_off + 4 * (ri + 1))) return RC_CORRUPT;
        if (separated && since + 1 != src_interval) return RC_CORRUPT;
        ri++;
        at_restart = 1;
        since = 0;
      } else {
        at_restart = 0;
        since++;
        if (separated && since == src_interval) return RC_CORRUPT;
      }
      uint64_t p = pos, shared, non_shared, value_len, value_at_restart = 0;
      int has_value_at_restart = 0;
      if (!rc_varint(src, &p, end, &shared) || !rc_varint(src, &p, end, &non_shared) || !rc_varint(src, &p, end, &value_len)) return RC_CORRUPT;
      if (separated && since % src_interval == 0) {
        if (!rc_varint(src, &p, end, &value_at_restart)) return RC_CORRUPT;
        has_value_at_restart = 1;
      }
      uint64_t key_len = (uint64_t)st[RC_SRC_KEY_LEN];
      if (at_restart && shared != 0) return RC_CORRUPT;
      if (shared > key_len) return RC_CORRUPT;
      if (non_shared > end - p) return RC_CORRUPT;
      uint64_t new_len = shared + non_shared, value_start, next_pos;
      if (separated) {
        uint64_t values_start = (uint64_t)st[RC_VALUES_START], values_end = (uint64_t)st[RC_VALUES_END];
        value_start = has_value_at_restart ? values_start + value_at_restart : (uint64_t)st[RC_NEXT_VALUE];
        if (value_start < values_start || value_start > values_end || value_len > values_end - value_start) return RC_CORRUPT;
        next_pos = p + non_shared;
      } else {
        if (value_len > end - p - non_shared) return RC_CORRUPT;
        value_start = p + non_shared;
        next_pos = value_start + value_len;
      }
      if (new_len > key_cap) return (st[RC_NEED] = (double)new_len), RC_GROW_KEYS;
      if (new_len < 8 && st[RC_STRICT] != 0) return (st[RC_NEED] = (double)new_len), RC_SHORT_KEY;
      memcpy(src_key + shared, src + p, non_shared);
      st[RC_SRC_KEY_LEN] = (double)new_len;
      st[RC_POS] = (double)next_pos;
      st[RC_RESTART_INDEX] = (double)ri;
      st[RC_SINCE_RESTART] = (double)since;
      st[RC_PENDING_RESTART] = 0;
      st[RC_VALID] = 1;
      if (separated) st[RC_NEXT_VALUE] = (double)(value_start + value_len);
      st[RC_PENDING] = 1;
      st[RC_PENDING_VALUE] = (double)value_start;
      st[RC_PENDING_VALUE_LEN] = (double)value_len;
      st[RC_PENDING_ENTRY] = st[RC_ENTRY_INDEX];
      st[RC_ENTRY_INDEX] += 1;
    }
    /* The pending entry: FlushBySizePolicy.shouldFlush, then BlockBuilder.add */
    const uint64_t key_len = (uint64_t)st[RC_SRC_KEY_LEN];
    const uint64_t value_start = (uint64_t)st[RC_PENDING_VALUE], value_len = (uint64_t)st[RC_PENDING_VALUE_LEN];
    uint64_t size = (uint64_t)st[RC_SIZE], counter = (uint64_t)st[RC_COUNTER];
    uint64_t estimate = (uint64_t)st[RC_ESTIMATE];
    if (size != 0) {
      int flush = estimate >= block_size;
      if (!flush && deviation_limit != 0) {
        uint64_t after = estimate + key_len + value_len + (counter >= interval ? 4 : 0) + 4 + rc_varint_length(key_len) + rc_varint_length(value_len);
        flush = after > block_size && estimate > deviation_limit;
      }
      if (flush) {
        rc_finish(st, out, restarts);
        return RC_BLOCK;
      }
    }
    uint64_t nr = (uint64_t)st[RC_NUM_BUILT_RESTARTS];
    if (size + 15 + key_len + value_len + 4 * (nr + 1) + 4 > out_cap || nr + 1 > restarts_cap)
      return (st[RC_NEED] = (double)(size + 15 + key_len + value_len + 4 * (nr + 1) + 4)), RC_GROW_OUT;
    uint64_t shared = 0;
    if (counter >= interval) {
      restarts[nr++] = (uint32_t)size;
      estimate += 4;
      counter = 0;
    } else {
      uint64_t n = key_len < (uint64_t)st[RC_LAST_LEN] ? key_len : (uint64_t)st[RC_LAST_LEN];
      while (shared < n && src_key[shared] == last_key[shared]) shared++;
    }
    if (size == 0) {
      st[RC_STARTED] = 1;
      st[RC_START_ENTRY] = st[RC_PENDING_ENTRY];
      st[RC_ENTRIES] = st[RC_DELETIONS] = st[RC_MERGES] = st[RC_RAW_KEY] = st[RC_RAW_VALUE] = 0;
      st[RC_MIN_HI] = st[RC_MIN_LO] = st[RC_MAX_HI] = st[RC_MAX_LO] = -1;
    }
    uint64_t p = rc_put_varint(out, size, shared);
    p = rc_put_varint(out, p, key_len - shared);
    p = rc_put_varint(out, p, value_len);
    if (size == 0) {
      st[RC_FIRST_OFF] = (double)p;
      st[RC_FIRST_LEN] = (double)key_len;
    }
    memcpy(out + p, src_key + shared, key_len - shared);
    p += key_len - shared;
    memcpy(out + p, src + value_start, value_len);
    p += value_len;
    memcpy(last_key + shared, src_key + shared, key_len - shared);
    st[RC_LAST_LEN] = (double)key_len;
    st[RC_COUNTER] = (double)(counter + 1);
    st[RC_ESTIMATE] = (double)(estimate + (p - size));
    st[RC_SIZE] = (double)p;
    st[RC_NUM_BUILT_RESTARTS] = (double)nr;
    st[RC_PENDING] = 0;
    /* countEntry: the internal key's trailer */
    st[RC_ENTRIES] += 1;
    st[RC_RAW_KEY] += (double)key_len;
    st[RC_RAW_VALUE] += (double)value_len;
    if (key_len < 8) continue; /* not strict: nothing counts by the trailer */
    uint8_t type = src_key[key_len - 8];
    if (type == 0x00 || type == 0x07 || type == 0x14) st[RC_DELETIONS] += 1;
    else if (type == 0x02) st[RC_MERGES] += 1;
    uint64_t seq = (uint64_t)rc_fixed32(src_key + key_len - 4) << 24 | rc_fixed32(src_key + key_len - 8) >> 8;
    double hi = (double)(seq >> 24), lo = (double)(seq & 0xffffff);
    if (st[RC_MIN_HI] < 0 || hi < st[RC_MIN_HI] || (hi == st[RC_MIN_HI] && lo < st[RC_MIN_LO])) st[RC_MIN_HI] = hi, st[RC_MIN_LO] = lo;
    if (st[RC_MAX_HI] < 0 || hi > st[RC_MAX_HI] || (hi == st[RC_MAX_HI] && lo > st[RC_MAX_LO])) st[RC_MAX_HI] = hi, st[RC_MAX_LO] = lo;
  }
}
