;; `scan`'s inner loop in WebAssembly: decode the entries of a data block and
;; print them as text lines, escaping or hex-encoding keys and values with
;; SIMD. The JavaScript side (src/scan/wasm-printer.ts) fills the tables,
;; places blocks in this memory and falls back to its own code for anything
;; unusual; the output is byte-identical to src/report/entries.ts entryLine.
;;
;; Memory layout (each start is an exported global the JavaScript side reads;
;; load and store offset= immediates below repeat them, as immediates must be
;; literals):
;;   [0, 1024)        ESCAPED: per byte, its escaped form packed little-endian (u32)
;;   [1024, 1280)     ESCAPED_LENGTH: per byte, 1, 2 or 4
;;   [1280, 1296)     HEX_DIGITS: "0123456789abcdef"
;;   [1296, 1312)     HEX_UPPER: "0123456789ABCDEF" (sst_dump's hex)
;;   [1536, 1568)     IS_DELETION: per value type below 32, 1 if a deletion
;;   [1792, 1824)     SSTDUMP_TYPES: per value type below 32, 1 if `sstdumpEntries` prints it
;;   [2048, 3072)     TYPE_LABELS: per value type below 32, TYPE_LABEL_BYTES (32) bytes:
;;                    length, then " kTypeName" (length 0: a type this module does not print)
;;   [65536, 131072)  KEY: the current key (shared prefixes build on it), KEY_CAPACITY bytes
;;   from FREE        (131072) the caller's output and block regions
(module
  (memory (export "memory") 3)

  (global $ESCAPED (export "ESCAPED") i32 (i32.const 0))
  (global $ESCAPED_LENGTH (export "ESCAPED_LENGTH") i32 (i32.const 1024))
  (global $HEX_DIGITS (export "HEX_DIGITS") i32 (i32.const 1280))
  (global $HEX_UPPER (export "HEX_UPPER") i32 (i32.const 1296))
  (global $IS_DELETION (export "IS_DELETION") i32 (i32.const 1536))
  (global $SSTDUMP_TYPES (export "SSTDUMP_TYPES") i32 (i32.const 1792))
  (global $TYPE_LABELS (export "TYPE_LABELS") i32 (i32.const 2048))
  (global $TYPE_LABEL_BYTES (export "TYPE_LABEL_BYTES") i32 (i32.const 32))
  (global $KEY (export "KEY") i32 (i32.const 65536))
  (global $KEY_CAPACITY (export "KEY_CAPACITY") i32 (i32.const 65536))
  (global $FREE (export "FREE") i32 (i32.const 131072))

  ;; Results of `entries`: where it stopped.
  (global $pos (export "pos") (mut i32) (i32.const 0))
  (global $out (export "out") (mut i32) (i32.const 0))
  (global $count (export "count") (mut i32) (i32.const 0))
  (global $keyLen (mut i32) (i32.const 0))
  ;; Set by $varint: the position after the varint, or -1 when malformed.
  (global $next (mut i32) (i32.const 0))
  ;; Set by $cstring: 1 when it stopped at a NUL byte.
  (global $cut (mut i32) (i32.const 0))
  ;; The block's restart points (set by JavaScript before a block; the array follows the entries)
  ;; and the next one the walk must land on.
  (global $numRestarts (export "numRestarts") (mut i32) (i32.const 0))
  (global $restart (mut i32) (i32.const 1))

  ;; Whether the entry at p begins the next restart interval: 1 when the next restart point is p
  ;; (the entry must then share no key bytes), 0 when it lies further on, -1 when the walk
  ;; stepped over it (it lies inside the previous entry). The restart array starts at absEnd.
  (func $restartAt (param $block i32) (param $p i32) (param $absEnd i32) (result i32)
    (local $point i32)
    (if (i32.ge_u (global.get $restart) (global.get $numRestarts)) (then (return (i32.const 0))))
    (local.set $point
      (i32.add (local.get $block) (i32.load align=1 (i32.add (local.get $absEnd) (i32.shl (global.get $restart) (i32.const 2))))))
    (if (i32.lt_u (local.get $p) (local.get $point)) (then (return (i32.const 0))))
    (if (i32.gt_u (local.get $p) (local.get $point)) (then (return (i32.const -1))))
    (global.set $restart (i32.add (global.get $restart) (i32.const 1)))
    (i32.const 1))

  ;; Write src[0, n) escaped at dst; returns the end of the output.
  ;; dst must have 4 * n + 16 bytes of room (stores may overrun the result).
  (func $escape (export "escape") (param $src i32) (param $n i32) (param $dst i32) (result i32)
    (local $end i32) (local $v v128) (local $c i32) (local $stop i32)
    (local.set $end (i32.add (local.get $src) (local.get $n)))
    (block $tail
      (loop $chunks
        (br_if $tail (i32.gt_u (i32.add (local.get $src) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load align=1 (local.get $src)))
        (if (v128.any_true
              (v128.or
                (v128.or
                  (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20))
                  (i8x16.gt_u (local.get $v) (v128.const i8x16 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e 0x7e)))
                (v128.or
                  (i8x16.eq (local.get $v) (v128.const i8x16 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27 0x27))
                  (i8x16.eq (local.get $v) (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c)))))
          (then
            ;; some byte needs escaping: these 16 bytes one at a time, from the table
            (local.set $stop (i32.add (local.get $src) (i32.const 16)))
            (loop $bytes
              (local.set $c (i32.load8_u (local.get $src)))
              (i32.store align=1 (local.get $dst) (i32.load (i32.shl (local.get $c) (i32.const 2))))
              (local.set $dst (i32.add (local.get $dst) (i32.load8_u offset=1024 (local.get $c)))) ;; ESCAPED_LENGTH
              (local.set $src (i32.add (local.get $src) (i32.const 1)))
              (br_if $bytes (i32.lt_u (local.get $src) (local.get $stop)))))
          (else
            (v128.store align=1 (local.get $dst) (local.get $v))
            (local.set $src (i32.add (local.get $src) (i32.const 16)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 16)))))
        (br $chunks)))
    (block $done
      (loop $rest
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $src)))
        (i32.store align=1 (local.get $dst) (i32.load (i32.shl (local.get $c) (i32.const 2))))
        (local.set $dst (i32.add (local.get $dst) (i32.load8_u offset=1024 (local.get $c)))) ;; ESCAPED_LENGTH
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (br $rest)))
    (local.get $dst))

  ;; Write src[0, n) as lowercase hex at dst; returns the end of the output.
  ;; dst must have 2 * n + 32 bytes of room.
  (func $hex (export "hex") (param $src i32) (param $n i32) (param $dst i32) (result i32)
    (call $hexWith (local.get $src) (local.get $n) (local.get $dst) (global.get $HEX_DIGITS)))

  ;; As $hex, with the 16 digits at `digits` (HEX_DIGITS or HEX_UPPER).
  (func $hexWith (param $src i32) (param $n i32) (param $dst i32) (param $table i32) (result i32)
    (local $end i32) (local $v v128) (local $hi v128) (local $lo v128) (local $digits v128) (local $c i32)
    (local.set $end (i32.add (local.get $src) (local.get $n)))
    (local.set $digits (v128.load (local.get $table)))
    (block $tail
      (loop $chunks
        (br_if $tail (i32.gt_u (i32.add (local.get $src) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load align=1 (local.get $src)))
        (local.set $hi (i8x16.swizzle (local.get $digits) (i8x16.shr_u (local.get $v) (i32.const 4))))
        (local.set $lo (i8x16.swizzle (local.get $digits) (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
        (v128.store align=1 (local.get $dst)
          (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $hi) (local.get $lo)))
        (v128.store offset=16 align=1 (local.get $dst)
          (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $hi) (local.get $lo)))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
        (br $chunks)))
    (block $done
      (loop $rest
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $src)))
        (i32.store8 (local.get $dst) (i32.load8_u (i32.add (local.get $table) (i32.shr_u (local.get $c) (i32.const 4)))))
        (i32.store8 offset=1 (local.get $dst) (i32.load8_u (i32.add (local.get $table) (i32.and (local.get $c) (i32.const 15)))))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
        (br $rest)))
    (local.get $dst))

  ;; Copy src[0, n) to dst up to its first NUL byte (printf's %s); sets $cut
  ;; when it met one. Returns the end of the output; dst must have n + 16 bytes of room.
  (func $cstring (param $src i32) (param $n i32) (param $dst i32) (result i32)
    (local $end i32) (local $v v128) (local $zeros i32)
    (global.set $cut (i32.const 0))
    (local.set $end (i32.add (local.get $src) (local.get $n)))
    (block $tail
      (loop $chunks
        (br_if $tail (i32.gt_u (i32.add (local.get $src) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load align=1 (local.get $src)))
        (v128.store align=1 (local.get $dst) (local.get $v))
        (local.set $zeros (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i64x2 0 0))))
        (if (local.get $zeros)
          (then
            (global.set $cut (i32.const 1))
            (return (i32.add (local.get $dst) (i32.ctz (local.get $zeros))))))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $chunks)))
    (block $done
      (loop $rest
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (if (i32.eqz (i32.load8_u (local.get $src)))
          (then (global.set $cut (i32.const 1)) (return (local.get $dst))))
        (i32.store8 (local.get $dst) (i32.load8_u (local.get $src)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (br $rest)))
    (local.get $dst))

  ;; Write src[0, n) at dst with a space after each byte, a NUL as "\0 " (the
  ;; ASCII lines of sst_dump's raw dump); returns the end of the output. dst
  ;; must have 3 * n + 32 bytes of room.
  (func $spaced (param $src i32) (param $n i32) (param $dst i32) (result i32)
    (local $end i32) (local $v v128) (local $c i32) (local $stop i32)
    (local.set $end (i32.add (local.get $src) (local.get $n)))
    (block $tail
      (loop $chunks
        (br_if $tail (i32.gt_u (i32.add (local.get $src) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load align=1 (local.get $src)))
        (if (v128.any_true (i8x16.eq (local.get $v) (v128.const i64x2 0 0)))
          (then
            ;; a NUL among these 16 bytes: one at a time
            (local.set $stop (i32.add (local.get $src) (i32.const 16)))
            (loop $bytes
              (local.set $dst (call $spacedByte (i32.load8_u (local.get $src)) (local.get $dst)))
              (local.set $src (i32.add (local.get $src) (i32.const 1)))
              (br_if $bytes (i32.lt_u (local.get $src) (local.get $stop)))))
          (else
            (v128.store align=1 (local.get $dst)
              (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (v128.store offset=16 align=1 (local.get $dst)
              (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $src (i32.add (local.get $src) (i32.const 16)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 32)))))
        (br $chunks)))
    (block $done
      (loop $rest
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $dst (call $spacedByte (i32.load8_u (local.get $src)) (local.get $dst)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (br $rest)))
    (local.get $dst))

  ;; One byte of $spaced at dst; returns the end.
  (func $spacedByte (param $c i32) (param $dst i32) (result i32)
    (if (result i32) (local.get $c)
      (then
        (i32.store16 align=1 (local.get $dst) (i32.or (local.get $c) (i32.const 0x2000)))
        (i32.add (local.get $dst) (i32.const 2)))
      (else
        (i32.store16 align=1 (local.get $dst) (i32.const 0x305c)) ;; "\0"
        (i32.store8 offset=2 (local.get $dst) (i32.const 0x20))
        (i32.add (local.get $dst) (i32.const 3)))))

  ;; varint32 at p (before end); sets $next to the position after it, -1 when malformed.
  (func $varint (param $p i32) (param $end i32) (result i32)
    (local $result i32) (local $shift i32) (local $b i32)
    (loop $more
      (if (i32.ge_u (local.get $p) (local.get $end))
        (then (global.set $next (i32.const -1)) (return (i32.const 0))))
      (local.set $b (i32.load8_u (local.get $p)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (local.set $result (i32.or (local.get $result) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (local.get $shift))))
      (if (i32.ge_u (local.get $b) (i32.const 0x80))
        (then
          (local.set $shift (i32.add (local.get $shift) (i32.const 7)))
          (if (i32.gt_u (local.get $shift) (i32.const 28))
            (then (global.set $next (i32.const -1)) (return (i32.const 0))))
          (br $more))))
    ;; a fifth byte above 0x0f does not fit 32 bits
    (if (i32.and (i32.eq (local.get $shift) (i32.const 28)) (i32.gt_u (local.get $b) (i32.const 0x0f)))
      (then (global.set $next (i32.const -1)) (return (i32.const 0))))
    (global.set $next (local.get $p))
    (local.get $result))

  ;; Unsigned decimal of v at dst; returns the end.
  (func $decimal (param $v i64) (param $dst i32) (result i32)
    (local $digits i32) (local $t i64) (local $end i32)
    (local.set $t (local.get $v))
    (loop $count
      (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
      (local.set $t (i64.div_u (local.get $t) (i64.const 10)))
      (br_if $count (i64.ne (local.get $t) (i64.const 0))))
    (local.set $end (i32.add (local.get $dst) (local.get $digits)))
    (local.set $dst (local.get $end))
    (loop $write
      (local.set $dst (i32.sub (local.get $dst) (i32.const 1)))
      (i32.store8 (local.get $dst) (i32.add (i32.const 0x30) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $write (i64.ne (local.get $v) (i64.const 0))))
    (local.get $end))

  ;; Key or value bytes as scan prints them: 'escaped' or 0xhex.
  (func $bytes (param $src i32) (param $n i32) (param $dst i32) (param $hex i32) (result i32)
    (if (result i32) (local.get $hex)
      (then
        (i32.store16 align=1 (local.get $dst) (i32.const 0x7830)) ;; "0x"
        (call $hex (local.get $src) (local.get $n) (i32.add (local.get $dst) (i32.const 2))))
      (else
        (i32.store8 (local.get $dst) (i32.const 0x27))
        (local.set $dst (call $escape (local.get $src) (local.get $n) (i32.add (local.get $dst) (i32.const 1))))
        (i32.store8 (local.get $dst) (i32.const 0x27))
        (i32.add (local.get $dst) (i32.const 1)))))

  ;; Print the entries of the block at `block` whose entries end at `end`
  ;; (the restart array's offset), starting with the entry at `start`
  ;; (`resume` = 1: continuing after `entries` returned 1, the key as left).
  ;; Lines go to [out, limit). `seqOverride` >= 0 replaces every seqno
  ;; (an ingested file's global seqno). At most `maxEntries` entries are
  ;; printed (counted from the block's start); reaching it ends the block.
  ;;
  ;; Returns 0 when the block is done, 1 when the output is full (flush, then
  ;; call again from `pos` with resume = 1), 2 when an entry is not for this
  ;; module (a malformed entry, a restart point the walk does not land on at an
  ;; entry sharing nothing, a key over 64 KiB, a type it does not print,
  ;; an entry that alone overflows the output): the caller prints the block
  ;; from entry `count` on. `out` is where the output ends, `count` the entries
  ;; printed since the block's start.
  (func (export "entries") (param $block i32) (param $start i32) (param $end i32) (param $resume i32)
      (param $out i32) (param $limit i32) (param $hex i32) (param $seqOverride i64) (param $maxEntries i32) (result i32)
    (local $p i32) (local $shared i32) (local $nonShared i32) (local $valueLen i32) (local $keyLen i32)
    (local $n i32) (local $trailer i64) (local $type i32) (local $label i32) (local $value i32)
    (local $outStart i32) (local $absEnd i32) (local $atRestart i32)
    (if (i32.eqz (local.get $resume))
      (then (global.set $keyLen (i32.const 0)) (global.set $count (i32.const 0)) (global.set $restart (i32.const 1))))
    (local.set $outStart (local.get $out))
    (local.set $absEnd (i32.add (local.get $block) (local.get $end)))
    (local.set $p (i32.add (local.get $block) (local.get $start)))
    (block $stop
      (loop $entry
        (global.set $pos (i32.sub (local.get $p) (local.get $block)))
        (global.set $out (local.get $out))
        (if (i32.ge_u (local.get $p) (local.get $absEnd))
          (then
            ;; a restart point not met lies inside the last entry
            (if (i32.lt_u (global.get $restart) (global.get $numRestarts)) (then (return (i32.const 2))))
            (br $stop)))
        (br_if $stop (i32.ge_u (global.get $count) (local.get $maxEntries)))
        (local.set $atRestart (call $restartAt (local.get $block) (local.get $p) (local.get $absEnd)))
        (if (i32.lt_s (local.get $atRestart) (i32.const 0)) (then (return (i32.const 2))))
        ;; header: shared, non_shared, value_len (one-byte varints inline)
        (local.set $shared (call $varint (local.get $p) (local.get $absEnd)))
        (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const 2))))
        (local.set $nonShared (call $varint (global.get $next) (local.get $absEnd)))
        (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const 2))))
        (local.set $valueLen (call $varint (global.get $next) (local.get $absEnd)))
        (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const 2))))
        (local.set $p (global.get $next))
        (if (i32.gt_u (local.get $shared) (global.get $keyLen)) (then (return (i32.const 2))))
        (if (i32.and (i32.gt_s (local.get $atRestart) (i32.const 0)) (i32.ne (local.get $shared) (i32.const 0))) (then (return (i32.const 2))))
        (if (i32.gt_u (local.get $nonShared) (i32.sub (local.get $absEnd) (local.get $p))) (then (return (i32.const 2))))
        (local.set $keyLen (i32.add (local.get $shared) (local.get $nonShared)))
        (if (i32.gt_u (local.get $keyLen) (global.get $KEY_CAPACITY)) (then (return (i32.const 2))))
        (if (i32.lt_u (local.get $keyLen) (i32.const 8)) (then (return (i32.const 2))))
        (local.set $value (i32.add (local.get $p) (local.get $nonShared)))
        (if (i32.gt_u (local.get $valueLen) (i32.sub (local.get $absEnd) (local.get $value))) (then (return (i32.const 2))))
        ;; the line takes at most 4 bytes per key and value byte, plus 96 (quotes, seqno, label, slack)
        (if (i64.gt_u
              (i64.add (i64.shl (i64.extend_i32_u (i32.add (local.get $keyLen) (local.get $valueLen))) (i64.const 2)) (i64.const 96))
              (i64.extend_i32_u (i32.sub (local.get $limit) (local.get $out))))
          (then (return (select (i32.const 2) (i32.const 1) (i32.eq (local.get $out) (local.get $outStart))))))
        ;; the key: shared prefix already in KEY, then the new bytes
        (memory.copy (i32.add (global.get $KEY) (local.get $shared)) (local.get $p) (local.get $nonShared))
        (local.set $n (i32.sub (local.get $keyLen) (i32.const 8)))
        (local.set $trailer (i64.load align=1 (i32.add (global.get $KEY) (local.get $n))))
        (local.set $type (i32.wrap_i64 (i64.and (local.get $trailer) (i64.const 0xff))))
        (if (i32.ge_u (local.get $type) (i32.const 32)) (then (return (i32.const 2))))
        (local.set $label (i32.add (global.get $TYPE_LABELS) (i32.mul (local.get $type) (global.get $TYPE_LABEL_BYTES))))
        (if (i32.eqz (i32.load8_u (local.get $label))) (then (return (i32.const 2))))
        (global.set $keyLen (local.get $keyLen))
        ;; 'key' @seq kTypeName[ => 'value']\n
        (local.set $out (call $bytes (global.get $KEY) (local.get $n) (local.get $out) (local.get $hex)))
        (i32.store16 align=1 (local.get $out) (i32.const 0x4020)) ;; " @"
        (local.set $out (call $decimal
          (select (local.get $seqOverride) (i64.shr_u (local.get $trailer) (i64.const 8)) (i64.ge_s (local.get $seqOverride) (i64.const 0)))
          (i32.add (local.get $out) (i32.const 2))))
        (memory.copy (local.get $out) (i32.add (local.get $label) (i32.const 1)) (i32.load8_u (local.get $label)))
        (local.set $out (i32.add (local.get $out) (i32.load8_u (local.get $label))))
        (if (i32.or (i32.eqz (i32.load8_u offset=1536 (local.get $type))) (i32.ne (local.get $valueLen) (i32.const 0))) ;; IS_DELETION
          (then
            (i32.store align=1 (local.get $out) (i32.const 0x203e3d20)) ;; " => "
            (local.set $out (call $bytes (local.get $value) (local.get $valueLen) (i32.add (local.get $out) (i32.const 4)) (local.get $hex)))))
        (i32.store8 (local.get $out) (i32.const 0x0a))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))
        (global.set $count (i32.add (global.get $count) (i32.const 1)))
        (local.set $p (i32.add (local.get $value) (local.get $valueLen)))
        (br $entry)))
    (i32.const 0))

  ;; sst_dump's scan lines (RocksDB 7.8.3 ReadSequential, src/sstdump/dumper.ts):
  ;;   'KEY' seq:N, type:T => VALUE\n
  ;; mode 1: key and value as C strings, cut at their first NUL (printf's %s;
  ;; a NUL in the key also cuts the " seq:N, type:T" part, which is printed in
  ;; the same string); mode 2: key and value in upper-case hex; mode 0: nothing
  ;; printed, entries only decoded and counted (--command=check). A type whose
  ;; SSTDUMP_TYPES byte is 0 (or 32 and above) returns 2. Mode 3: the entry of
  ;; a data block in the raw dump (BlockBasedTable::DumpDataBlocks, every type):
  ;;   "  HEX    KEY: VALUE\n  ASCII  K E Y : V A L U E \n  ------\n"
  ;; (upper-case hex, then each byte followed by a space, a NUL as "\0").
  ;; Arguments, results and globals as for `entries`.
  (func (export "sstdumpEntries") (param $block i32) (param $start i32) (param $end i32) (param $resume i32)
      (param $out i32) (param $limit i32) (param $mode i32) (param $seqOverride i64) (param $maxEntries i32) (result i32)
    (local $p i32) (local $shared i32) (local $nonShared i32) (local $valueLen i32) (local $keyLen i32)
    (local $n i32) (local $trailer i64) (local $type i32) (local $value i32)
    (local $outStart i32) (local $absEnd i32) (local $atRestart i32)
    (if (i32.eqz (local.get $resume))
      (then (global.set $keyLen (i32.const 0)) (global.set $count (i32.const 0)) (global.set $restart (i32.const 1))))
    (local.set $outStart (local.get $out))
    (local.set $absEnd (i32.add (local.get $block) (local.get $end)))
    (local.set $p (i32.add (local.get $block) (local.get $start)))
    (block $stop
      (loop $entry
        (global.set $pos (i32.sub (local.get $p) (local.get $block)))
        (global.set $out (local.get $out))
        (if (i32.ge_u (local.get $p) (local.get $absEnd))
          (then
            ;; a restart point not met lies inside the last entry
            (if (i32.lt_u (global.get $restart) (global.get $numRestarts)) (then (return (i32.const 2))))
            (br $stop)))
        (br_if $stop (i32.ge_u (global.get $count) (local.get $maxEntries)))
        (local.set $atRestart (call $restartAt (local.get $block) (local.get $p) (local.get $absEnd)))
        (if (i32.lt_s (local.get $atRestart) (i32.const 0)) (then (return (i32.const 2))))
        (local.set $shared (call $varint (local.get $p) (local.get $absEnd)))
        (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const 2))))
        (local.set $nonShared (call $varint (global.get $next) (local.get $absEnd)))
        (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const 2))))
        (local.set $valueLen (call $varint (global.get $next) (local.get $absEnd)))
        (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const 2))))
        (local.set $p (global.get $next))
        (if (i32.gt_u (local.get $shared) (global.get $keyLen)) (then (return (i32.const 2))))
        (if (i32.and (i32.gt_s (local.get $atRestart) (i32.const 0)) (i32.ne (local.get $shared) (i32.const 0))) (then (return (i32.const 2))))
        (if (i32.gt_u (local.get $nonShared) (i32.sub (local.get $absEnd) (local.get $p))) (then (return (i32.const 2))))
        (local.set $keyLen (i32.add (local.get $shared) (local.get $nonShared)))
        (if (i32.gt_u (local.get $keyLen) (global.get $KEY_CAPACITY)) (then (return (i32.const 2))))
        (if (i32.lt_u (local.get $keyLen) (i32.const 8)) (then (return (i32.const 2))))
        (local.set $value (i32.add (local.get $p) (local.get $nonShared)))
        (if (i32.gt_u (local.get $valueLen) (i32.sub (local.get $absEnd) (local.get $value))) (then (return (i32.const 2))))
        ;; a line takes at most 2 bytes per key and value byte (5 in the raw dump) plus 96 (quotes, seqno, type, SIMD overrun)
        (if (i32.and (i32.ne (local.get $mode) (i32.const 0))
              (i64.gt_u
                (i64.add
                  (i64.mul (i64.extend_i32_u (i32.add (local.get $keyLen) (local.get $valueLen)))
                    (select (i64.const 5) (i64.const 2) (i32.eq (local.get $mode) (i32.const 3))))
                  (i64.const 96))
                (i64.extend_i32_u (i32.sub (local.get $limit) (local.get $out)))))
          (then (return (select (i32.const 2) (i32.const 1) (i32.eq (local.get $out) (local.get $outStart))))))
        (memory.copy (i32.add (global.get $KEY) (local.get $shared)) (local.get $p) (local.get $nonShared))
        (local.set $n (i32.sub (local.get $keyLen) (i32.const 8)))
        (local.set $trailer (i64.load align=1 (i32.add (global.get $KEY) (local.get $n))))
        (local.set $type (i32.wrap_i64 (i64.and (local.get $trailer) (i64.const 0xff))))
        (if (i32.ne (local.get $mode) (i32.const 3))
          (then
            (if (i32.ge_u (local.get $type) (i32.const 32)) (then (return (i32.const 2))))
            (if (i32.eqz (i32.load8_u offset=1792 (local.get $type))) (then (return (i32.const 2)))))) ;; SSTDUMP_TYPES
        (global.set $keyLen (local.get $keyLen))
        (if (i32.eq (local.get $mode) (i32.const 3))
          (then
            (i64.store align=1 (local.get $out) (i64.const 0x2020205845482020)) ;; "  HEX   "
            (i32.store8 offset=8 (local.get $out) (i32.const 0x20))
            (local.set $out (call $hexWith (global.get $KEY) (local.get $n) (i32.add (local.get $out) (i32.const 9)) (global.get $HEX_UPPER)))
            (i32.store16 align=1 (local.get $out) (i32.const 0x203a)) ;; ": "
            (local.set $out (call $hexWith (local.get $value) (local.get $valueLen) (i32.add (local.get $out) (i32.const 2)) (global.get $HEX_UPPER)))
            (i64.store align=1 (local.get $out) (i64.const 0x494943534120200a)) ;; "\n  ASCII"
            (i32.store16 offset=8 align=1 (local.get $out) (i32.const 0x2020))
            (local.set $out (call $spaced (global.get $KEY) (local.get $n) (i32.add (local.get $out) (i32.const 10))))
            (i32.store16 align=1 (local.get $out) (i32.const 0x203a)) ;; ": "
            (local.set $out (call $spaced (local.get $value) (local.get $valueLen) (i32.add (local.get $out) (i32.const 2))))
            (i64.store align=1 (local.get $out) (i64.const 0x2d2d2d2d2d20200a)) ;; "\n  -----"
            (i32.store16 offset=8 align=1 (local.get $out) (i32.const 0x0a2d)) ;; "-\n"
            (local.set $out (i32.add (local.get $out) (i32.const 10))))
          (else (if (local.get $mode)
          (then
            (i32.store8 (local.get $out) (i32.const 0x27))
            (global.set $cut (i32.const 0))
            (local.set $out
              (if (result i32) (i32.eq (local.get $mode) (i32.const 2))
                (then (call $hexWith (global.get $KEY) (local.get $n) (i32.add (local.get $out) (i32.const 1)) (global.get $HEX_UPPER)))
                (else (call $cstring (global.get $KEY) (local.get $n) (i32.add (local.get $out) (i32.const 1))))))
            (if (i32.eqz (global.get $cut))
              (then
                (i32.store align=1 (local.get $out) (i32.const 0x65732027)) ;; "' se"
                (i32.store16 offset=4 align=1 (local.get $out) (i32.const 0x3a71)) ;; "q:"
                (local.set $out (call $decimal
                  (select (local.get $seqOverride) (i64.shr_u (local.get $trailer) (i64.const 8)) (i64.ge_s (local.get $seqOverride) (i64.const 0)))
                  (i32.add (local.get $out) (i32.const 6))))
                (i32.store align=1 (local.get $out) (i32.const 0x7974202c)) ;; ", ty"
                (i32.store16 offset=4 align=1 (local.get $out) (i32.const 0x6570)) ;; "pe"
                (i32.store8 offset=6 (local.get $out) (i32.const 0x3a)) ;; ":"
                (local.set $out (call $decimal (i64.extend_i32_u (local.get $type)) (i32.add (local.get $out) (i32.const 7))))))
            (i32.store align=1 (local.get $out) (i32.const 0x203e3d20)) ;; " => "
            (local.set $out
              (if (result i32) (i32.eq (local.get $mode) (i32.const 2))
                (then (call $hexWith (local.get $value) (local.get $valueLen) (i32.add (local.get $out) (i32.const 4)) (global.get $HEX_UPPER)))
                (else (call $cstring (local.get $value) (local.get $valueLen) (i32.add (local.get $out) (i32.const 4))))))
            (i32.store8 (local.get $out) (i32.const 0x0a))
            (local.set $out (i32.add (local.get $out) (i32.const 1)))))))
        (global.set $count (i32.add (global.get $count) (i32.const 1)))
        (local.set $p (i32.add (local.get $value) (local.get $valueLen)))
        (br $entry)))
    (i32.const 0))
)
