;; `verify`'s inner loop in WebAssembly: decode the entries of a data block and
;; check that internal keys strictly increase under the bytewise comparator
;; (user key ascending, then (seqno, type) descending), and that the walk lands
;; on every restart point, at an entry sharing no key bytes. The JavaScript side
;; (src/verify/wasm.ts) places blocks here and, when this module reports
;; anything unusual, checks that block again in JavaScript, which words the
;; problem; so results are exactly those of src/verify/verify.ts alone.
;;
;; Memory layout (each start is an exported global the JavaScript side reads;
;; each key region holds KEY_CAPACITY bytes):
;;   [65536, 131072)   PREV: the previous key (JS puts the last key of the block before here)
;;   [131072, 196608)  (unused)
;;   [196608, 262144)  FIRST: the block's first key
;;   from BLOCK        (262144) the block
(module
  (memory (export "memory") 5)

  (global $PREV (export "PREV") i32 (i32.const 65536))
  (global $FIRST (export "FIRST") i32 (i32.const 196608))
  (global $BLOCK (export "BLOCK") i32 (i32.const 262144))
  (global $KEY_CAPACITY (export "KEY_CAPACITY") i32 (i32.const 65536))

  ;; Length of the key in PREV (set by JS before a block; by `check` after it).
  (global $prevLen (export "prevLen") (mut i32) (i32.const 0))
  (global $firstLen (export "firstLen") (mut i32) (i32.const 0))
  ;; Where `check` also stores firstLen and prevLen (two i32) for JavaScript, which reads
  ;; memory faster than it reads a WebAssembly.Global.
  (global $LENS (export "LENS") i32 (i32.const 0))
  ;; Set by $varint: the position after the varint, or -1 when malformed.
  (global $next (mut i32) (i32.const 0))

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
    (if (i32.and (i32.eq (local.get $shift) (i32.const 28)) (i32.gt_u (local.get $b) (i32.const 0x0f)))
      (then (global.set $next (i32.const -1)) (return (i32.const 0))))
    (global.set $next (local.get $p))
    (local.get $result))

;; Copy $n bytes from $src to $dst (regions that do not overlap), 8 at a time: memory.copy is
  ;; a call out of the module, which costs more than a key's few dozen bytes.
  (func $copy (param $dst i32) (param $src i32) (param $n i32)
    (local $end i32)
    (if (i32.gt_u (local.get $n) (i32.const 256))
      (then (memory.copy (local.get $dst) (local.get $src) (local.get $n)) (return)))
    (local.set $end (i32.add (local.get $dst) (local.get $n)))
    (block $tail
      (loop $words
        (br_if $tail (i32.gt_u (i32.add (local.get $dst) (i32.const 8)) (local.get $end)))
        (i64.store align=1 (local.get $dst) (i64.load align=1 (local.get $src)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
        (local.set $src (i32.add (local.get $src) (i32.const 8)))
        (br $words)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (i32.store8 (local.get $dst) (i32.load8_u (local.get $src)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (br $bytes))))

  ;; Check the entries of the block at `block` whose entries end at `end`, where
  ;; its `numRestarts` restart points follow (the first, 0, checked by the caller)
  ;; (`hasPrev`: PREV holds the previous block's last key). Returns the number
  ;; of entries when all is well (PREV then holds the last key, FIRST the
  ;; first), or -1 when JavaScript must check this block itself.
  ;;
  ;; PREV holds the previous key; an entry's key is its `shared` bytes followed by
  ;; its `nonShared` bytes in the block. The two keys are compared in place (the
  ;; shared bytes are equal by construction, so the comparison starts after them),
  ;; then the new bytes are copied over PREV's: one copy of the new bytes per entry.
  (func (export "check") (param $block i32) (param $end i32) (param $numRestarts i32) (param $hasPrev i32) (result i32)
    (local $p i32) (local $shared i32) (local $nonShared i32) (local $valueLen i32)
    (local $keyLen i32) (local $blockKeyLen i32) (local $value i32) (local $count i32) (local $absEnd i32)
    (local $b i32) (local $ua i32) (local $ub i32) (local $n i32) (local $i i32) (local $x i32) (local $y i32)
    (local $cmp i32) (local $ta i64) (local $tb i64) (local $src i32)
    (local $restart i32) (local $point i32) (local $atRestart i32)
    (if (i32.and (local.get $hasPrev) (i32.lt_u (global.get $prevLen) (i32.const 8))) (then (return (i32.const -1))))
    (local.set $absEnd (i32.add (local.get $block) (local.get $end)))
    (local.set $p (local.get $block))
    ;; the next restart point to meet (absolute), past the entries once all are met
    (local.set $restart (i32.const 1))
    (local.set $point (local.get $absEnd))
    (if (i32.gt_u (local.get $numRestarts) (i32.const 1))
      (then (local.set $point (i32.add (local.get $block) (i32.load offset=4 align=1 (local.get $absEnd))))))
    (block $done
      (loop $entry
        (if (i32.ge_u (local.get $p) (local.get $absEnd))
          (then
            ;; a restart point not met lies inside the last entry
            (if (i32.lt_u (local.get $restart) (local.get $numRestarts)) (then (return (i32.const -1))))
            (br $done)))
        (local.set $atRestart (i32.eq (local.get $p) (local.get $block)))
        (if (i32.ge_u (local.get $p) (local.get $point))
          (then
            ;; stepped over a restart point: it lies inside the previous entry
            (if (i32.gt_u (local.get $p) (local.get $point)) (then (return (i32.const -1))))
            (local.set $atRestart (i32.const 1))
            (local.set $restart (i32.add (local.get $restart) (i32.const 1)))
            (local.set $point (local.get $absEnd))
            (if (i32.lt_u (local.get $restart) (local.get $numRestarts))
              (then
                (local.set $point
                  (i32.add (local.get $block)
                    (i32.load align=1 (i32.add (local.get $absEnd) (i32.shl (local.get $restart) (i32.const 2))))))))))
        ;; the three varints, each usually one byte
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.lt_u (local.get $b) (i32.const 0x80))
          (then (local.set $shared (local.get $b)) (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
            (local.set $shared (call $varint (local.get $p) (local.get $absEnd)))
            (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const -1))))
            (local.set $p (global.get $next))))
        (if (i32.ge_u (local.get $p) (local.get $absEnd)) (then (return (i32.const -1))))
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.lt_u (local.get $b) (i32.const 0x80))
          (then (local.set $nonShared (local.get $b)) (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
            (local.set $nonShared (call $varint (local.get $p) (local.get $absEnd)))
            (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const -1))))
            (local.set $p (global.get $next))))
        (if (i32.ge_u (local.get $p) (local.get $absEnd)) (then (return (i32.const -1))))
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.lt_u (local.get $b) (i32.const 0x80))
          (then (local.set $valueLen (local.get $b)) (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
            (local.set $valueLen (call $varint (local.get $p) (local.get $absEnd)))
            (if (i32.lt_s (global.get $next) (i32.const 0)) (then (return (i32.const -1))))
            (local.set $p (global.get $next))))
        (if (i32.gt_u (local.get $shared) (local.get $blockKeyLen)) (then (return (i32.const -1))))
        (if (i32.and (local.get $atRestart) (i32.ne (local.get $shared) (i32.const 0))) (then (return (i32.const -1))))
        (if (i32.gt_u (local.get $nonShared) (i32.sub (local.get $absEnd) (local.get $p))) (then (return (i32.const -1))))
        (local.set $keyLen (i32.add (local.get $shared) (local.get $nonShared)))
        (if (i32.gt_u (local.get $keyLen) (global.get $KEY_CAPACITY)) (then (return (i32.const -1))))
        (if (i32.lt_u (local.get $keyLen) (i32.const 8)) (then (return (i32.const -1))))
        (local.set $value (i32.add (local.get $p) (local.get $nonShared)))
        (if (i32.gt_u (local.get $valueLen) (i32.sub (local.get $absEnd) (local.get $value))) (then (return (i32.const -1))))
        (if (i32.or (local.get $hasPrev) (i32.ne (local.get $count) (i32.const 0)))
          (then
            ;; internal-key order of PREV (a) and the new key (b): user keys bytewise, then
            ;; the larger (seqno << 8 | type) first. $cmp < 0: in order.
            (local.set $ua (i32.sub (global.get $prevLen) (i32.const 8)))
            (local.set $ub (i32.sub (local.get $keyLen) (i32.const 8)))
            (local.set $ta (i64.load align=1 (i32.add (global.get $PREV) (local.get $ua))))
            (local.set $n (select (local.get $ua) (local.get $ub) (i32.lt_u (local.get $ua) (local.get $ub))))
            (local.set $i (select (local.get $shared) (local.get $n) (i32.lt_u (local.get $shared) (local.get $n))))
            (local.set $cmp (i32.const 0))
            (block $decided
              (loop $bytes
                (br_if $decided (i32.ge_u (local.get $i) (local.get $n)))
                (local.set $x (i32.load8_u (i32.add (global.get $PREV) (local.get $i))))
                (local.set $y (i32.load8_u (i32.add (local.get $p) (i32.sub (local.get $i) (local.get $shared)))))
                (if (i32.ne (local.get $x) (local.get $y))
                  (then (local.set $cmp (i32.sub (local.get $x) (local.get $y))) (br $decided)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $bytes)))
            (if (i32.and (i32.eqz (local.get $cmp)) (i32.ne (local.get $ua) (local.get $ub)))
              (then (local.set $cmp (select (i32.const -1) (i32.const 1) (i32.lt_u (local.get $ua) (local.get $ub))))))
            (if (i32.gt_s (local.get $cmp) (i32.const 0)) (then (return (i32.const -1))))))
        ;; PREV = the new key (its first `shared` bytes are PREV's already)
        (call $copy (i32.add (global.get $PREV) (local.get $shared)) (local.get $p) (local.get $nonShared))
        (if (i32.and (i32.or (local.get $hasPrev) (i32.ne (local.get $count) (i32.const 0))) (i32.eqz (local.get $cmp)))
          (then
            ;; same user key: compare the trailers, the new one now in PREV
            (local.set $tb (i64.load align=1 (i32.add (global.get $PREV) (local.get $ub))))
            (if (i64.le_u (local.get $ta) (local.get $tb)) (then (return (i32.const -1))))))
        (if (i32.eqz (local.get $count))
          (then
            (call $copy (global.get $FIRST) (global.get $PREV) (local.get $keyLen))
            (global.set $firstLen (local.get $keyLen))))
        (global.set $prevLen (local.get $keyLen))
        (local.set $blockKeyLen (local.get $keyLen))
        (local.set $count (i32.add (local.get $count) (i32.const 1)))
        (local.set $p (i32.add (local.get $value) (local.get $valueLen)))
        (br $entry)))
    (i32.store (global.get $LENS) (global.get $firstLen))
    (i32.store (i32.add (global.get $LENS) (i32.const 4)) (global.get $prevLen))
    (local.get $count))
)
