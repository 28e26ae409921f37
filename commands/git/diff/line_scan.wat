;; The byte-level work of a line diff (line_scan.ts runs it, line_diff.ts has the same steps in
;; JavaScript): finding the lines, hashing them, numbering equal lines, xdiff's clean-up, search,
;; sliding and script, then the patch text. The module imports nothing and can do nothing but read
;; and write its own memory, which line_scan.ts grows and lays out.
;;
;; This file is the source: `deno task build-wasm` assembles it (wabt's wat2wasm) into the module
;; line_scan.ts carries (LINE_SCAN_MODULE); tests/commands/git/line_scan_wat_test.ts fails when the
;; two differ.
;;
;; Memory layout (line_scan.ts): the `lines` cursor at 0, the OR of every byte read by `count` at 4
;; (its 0x80 bits say whether a file is not ASCII), a split's score at SCORE_AT = 48 (two i32:
;; effective indent, penalty), git's "\ No newline at end of file" line at MARKER_AT = 16, the
;; first file at FIRST_FILE_AT = 64.
;;
;; A number line_scan.ts names is annotated with that name (`i32.const 200 ;; INDENT.MAX_INDENT`);
;; line_scan_wat_test.ts holds each annotated number to line_scan.ts's value, so change both together.
;; Bytes the patch writes are annotated with their character (`i32.const 64 ;; "@"`). A comment
;; `;; name(args): ...` opens a recurring sequence (a group slide, a hash round...) and says what it does.
;; Line hashes: FNV-style seed 0x811c9dc5, mixed per word with 0x9e3779b1 and rotl 13, finished
;; with murmur3's fmix (x ^= x >> 16; x *= 0x85ebca6b; x ^= x >> 13). Word tricks: 0x0a0a0a0a
;; turns newline bytes into zero bytes; (t & 0x7f7f7f7f) + 0x7f7f7f7f | t | 0x7f7f7f7f, inverted,
;; has the high bit of each zero byte of t set.
;;
;; Every block, loop and if is typed empty (values pass through locals); `br N` counts enclosing
;; blocks outwards from 0.

(module
  (memory (export "memory") 1) ;; at least a page, grown from JavaScript

  ;; The number of `\n` in [p, end), and the bytes OR-ed into the word at 4 (so its 0x80 bits say
  ;; whether any byte is not ASCII); the bytes after `end` up to the next multiple of 4 are read too (zero).
  (func $count (export "count")
    (param $p i32) (param $end i32) (result i32)
    (local $n i32) (local $t i32) (local $high i32)
    block
      loop
        local.get $p
        local.get $end
        i32.ge_u
        br_if 1
        local.get $high
        local.get $p
        i32.load
        i32.or
        local.set $high
        ;; newlinesAsZero(p): The word at `p` with its newline bytes turned into zero bytes.
        local.get $p
        i32.load
        i32.const 0x0a0a0a0a
        i32.xor
        local.set $t
        local.get $n
        ;; zeroBytes(t): The 0x80 bits of the bytes of the word on the stack that are zero (exact, no false hits): Mycroft's test.
        local.get $t
        i32.const 0x7f7f7f7f
        i32.and
        i32.const 0x7f7f7f7f
        i32.add
        local.get $t
        i32.or
        i32.const 0x7f7f7f7f
        i32.or
        i32.const -1
        i32.xor
        i32.popcnt
        i32.add
        local.set $n
        local.get $p
        i32.const 4
        i32.add
        local.set $p
        br 0
      end
    end
    i32.const 4
    i32.const 4
    i32.load
    local.get $high
    i32.or
    i32.store
    local.get $n
  )

  ;; The lines of [p, end) (p = the file's first byte, `base`): their starts (relative to base) and
  ;; hashes, then starts[count] = end - base. Words are read from each line's start, so a line's
  ;; hash depends on its bytes only; the 4 bytes after `end` must be readable and not `\n`.
  (func $lines (export "lines")
    (param $base i32) (param $p i32) (param $end i32) (param $starts i32) (param $hashes i32) (param $line i32) (param $limit i32) (result i32)
    (local $h i32) (local $w i32) (local $z i32) (local $k i32) (local $mask i32)
    i32.const 0x811c9dc5 ;; the hash seed (FNV-1a's offset basis)
    local.set $h
    block
      loop
        local.get $p
        local.get $end
        i32.ge_u
        br_if 1
        local.get $p
        i32.load
        local.set $w
        ;; newlinesAsZero(p): The word at `p` with its newline bytes turned into zero bytes.
        local.get $p
        i32.load
        i32.const 0x0a0a0a0a
        i32.xor
        local.set $z
        ;; zeroBytes(z): The 0x80 bits of the bytes of the word on the stack that are zero (exact, no false hits): Mycroft's test.
        local.get $z
        i32.const 0x7f7f7f7f
        i32.and
        i32.const 0x7f7f7f7f
        i32.add
        local.get $z
        i32.or
        i32.const 0x7f7f7f7f
        i32.or
        i32.const -1
        i32.xor
        local.tee $z
        if
          local.get $z
          i32.ctz
          i32.const 3
          i32.shr_u
          local.set $k
          i32.const -1
          i32.const 24
          local.get $k
          i32.const 8
          i32.mul
          i32.sub
          i32.shr_u
          local.set $mask
          local.get $h
          local.get $w
          local.get $mask
          i32.and
          i32.xor
          i32.const 13
          i32.rotl
          i32.const 0x9e3779b1
          i32.mul
          local.set $h
          ;; storeLineHash: Finishes the line's hash in `h` (two mixing rounds) and stores it as `hashes[line]`.
          local.get $h
          local.get $h
          i32.const 16
          i32.shr_u
          i32.xor
          i32.const 0x85ebca6b
          i32.mul
          local.set $h
          local.get $hashes
          local.get $line
          i32.const 2
          i32.shl
          i32.add
          local.get $h
          local.get $h
          i32.const 13
          i32.shr_u
          i32.xor
          i32.store
          local.get $starts
          local.get $line
          i32.const 2
          i32.shl
          i32.add
          i32.const 4
          i32.add
          local.get $p
          local.get $k
          i32.add
          i32.const 1
          i32.add
          local.tee $p
          local.get $base
          i32.sub
          i32.store
          local.get $line
          i32.const 1
          i32.add
          local.set $line
          i32.const 0x811c9dc5 ;; the hash seed (FNV-1a's offset basis)
          local.set $h
          local.get $p
          local.get $limit
          i32.ge_u
          br_if 2
        else
          local.get $end
          local.get $p
          i32.sub
          local.set $k
          local.get $k
          i32.const 4
          i32.lt_u
          if
            i32.const -1
            i32.const 32
            local.get $k
            i32.const 8
            i32.mul
            i32.sub
            i32.shr_u
            local.set $mask
          else
            i32.const -1
            local.set $mask
          end
          local.get $h
          local.get $w
          local.get $mask
          i32.and
          i32.xor
          i32.const 13
          i32.rotl
          i32.const 0x9e3779b1
          i32.mul
          local.set $h
          local.get $p
          i32.const 4
          i32.add
          local.set $p
          local.get $p
          local.get $end
          i32.ge_u
          if
            ;; storeLineHash: Finishes the line's hash in `h` (two mixing rounds) and stores it as `hashes[line]`.
            local.get $h
            local.get $h
            i32.const 16
            i32.shr_u
            i32.xor
            i32.const 0x85ebca6b
            i32.mul
            local.set $h
            local.get $hashes
            local.get $line
            i32.const 2
            i32.shl
            i32.add
            local.get $h
            local.get $h
            i32.const 13
            i32.shr_u
            i32.xor
            i32.store
            local.get $line
            i32.const 1
            i32.add
            local.set $line
            local.get $end
            local.set $p
          end
        end
        br 0
      end
    end
    i32.const 0
    local.get $p
    i32.store
    local.get $line
  )

  ;; Whether [a, a + length) and [b, b + length) hold the same bytes.
  (func $same (export "same")
    (param $a i32) (param $b i32) (param $length i32) (result i32)
    (local $k i32)
    block
      loop
        local.get $k
        i32.const 4
        i32.add
        local.get $length
        i32.gt_u
        br_if 1
        local.get $a
        local.get $k
        i32.add
        i32.load
        local.get $b
        local.get $k
        i32.add
        i32.load
        i32.ne
        if
          i32.const 0
          return
        end
        local.get $k
        i32.const 4
        i32.add
        local.set $k
        br 0
      end
    end
    block
      loop
        local.get $k
        local.get $length
        i32.ge_u
        br_if 1
        local.get $a
        local.get $k
        i32.add
        i32.load8_u
        local.get $b
        local.get $k
        i32.add
        i32.load8_u
        i32.ne
        if
          i32.const 0
          return
        end
        local.get $k
        i32.const 1
        i32.add
        local.set $k
        br 0
      end
    end
    i32.const 1
  )

  ;; xdiff's classifier for one file's lines (starts relative to `base`): ids[i] = the number of the
  ;; line's bytes, shared by both files; returns the next free number. The table has 2^(32 - shift)
  ;; slots of 8 bytes (slotClass = number + 1, then slotHash = its hash: one cache line for both);
  ;; classAt/classLength hold each number's first line, and
  ;; counts[number] how many of this file's lines have it (xdiff's len1/len2, for the clean-up).
  (func $classify (export "classify")
    (param $base i32) (param $starts i32) (param $hashes i32) (param $i i32) (param $count i32) (param $ids i32) (param $slotHash i32) (param $slotClass i32) (param $shift i32) (param $classAt i32) (param $classLength i32) (param $next i32) (param $counts i32) (result i32)
    (local $at i32) (local $length i32) (local $h i32) (local $slot i32) (local $c i32) (local $mask i32)
    i32.const -1
    local.get $shift
    i32.shr_u
    local.set $mask
    block
      loop
        local.get $i
        local.get $count
        i32.ge_u
        br_if 1
        local.get $starts
        local.get $i
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.get $base
        i32.add
        local.set $at
        local.get $starts
        local.get $i
        i32.const 2
        i32.shl
        i32.add
        i32.const 4
        i32.add
        i32.load
        local.get $base
        i32.add
        local.get $at
        i32.sub
        local.set $length
        local.get $hashes
        local.get $i
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.set $h
        local.get $h
        i32.const 0x9e3779b1
        i32.mul
        local.get $shift
        i32.shr_u
        local.set $slot
        block
          loop
            local.get $slotClass
            local.get $slot
            i32.const 3
            i32.shl
            i32.add
            i32.load
            local.tee $c
            i32.eqz
            if
              local.get $slotHash
              local.get $slot
              i32.const 3
              i32.shl
              i32.add
              local.get $h
              i32.store
              local.get $slotClass
              local.get $slot
              i32.const 3
              i32.shl
              i32.add
              local.get $next
              i32.const 1
              i32.add
              i32.store
              local.get $classAt
              local.get $next
              i32.const 2
              i32.shl
              i32.add
              local.get $at
              i32.store
              local.get $classLength
              local.get $next
              i32.const 2
              i32.shl
              i32.add
              local.get $length
              i32.store
              local.get $ids
              local.get $i
              i32.const 2
              i32.shl
              i32.add
              local.get $next
              i32.store
              local.get $next
              local.set $c
              local.get $next
              i32.const 1
              i32.add
              local.set $next
              ;; countClass: `counts[c] += 1` (in `classify`).
              local.get $counts
              local.get $c
              i32.const 2
              i32.shl
              i32.add
              local.get $counts
              local.get $c
              i32.const 2
              i32.shl
              i32.add
              i32.load
              i32.const 1
              i32.add
              i32.store
              br 2
            end
            local.get $c
            i32.const 1
            i32.sub
            local.set $c
            local.get $slotHash
            local.get $slot
            i32.const 3
            i32.shl
            i32.add
            i32.load
            local.get $h
            i32.eq
            if
              local.get $classLength
              local.get $c
              i32.const 2
              i32.shl
              i32.add
              i32.load
              local.get $length
              i32.eq
              if
                local.get $classAt
                local.get $c
                i32.const 2
                i32.shl
                i32.add
                i32.load
                local.get $at
                local.get $length
                call $same
                if
                  local.get $ids
                  local.get $i
                  i32.const 2
                  i32.shl
                  i32.add
                  local.get $c
                  i32.store
                  ;; countClass: `counts[c] += 1` (in `classify`).
                  local.get $counts
                  local.get $c
                  i32.const 2
                  i32.shl
                  i32.add
                  local.get $counts
                  local.get $c
                  i32.const 2
                  i32.shl
                  i32.add
                  i32.load
                  i32.const 1
                  i32.add
                  i32.store
                  br 4
                end
              end
            end
            local.get $slot
            i32.const 1
            i32.add
            local.get $mask
            i32.and
            local.set $slot
            br 0
          end
        end
        local.get $i
        i32.const 1
        i32.add
        local.set $i
        br 0
      end
    end
    local.get $next
  )

  ;; Lines [from, to) of a file at `base` (line starts relative to it at `starts`) copied to `out`,
  ;; `prefix` before each; returns the new end of `out`.
  (func $copyLines (export "copyLines")
    (param $out i32) (param $base i32) (param $starts i32) (param $from i32) (param $to i32) (param $prefix i32) (result i32)
    (local $at i32) (local $length i32)
    block
      loop
        local.get $from
        local.get $to
        i32.ge_u
        br_if 1
        local.get $starts
        local.get $from
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.get $base
        i32.add
        local.set $at
        local.get $starts
        local.get $from
        i32.const 2
        i32.shl
        i32.add
        i32.const 4
        i32.add
        i32.load
        local.get $base
        i32.add
        local.get $at
        i32.sub
        local.set $length
        local.get $out
        local.get $prefix
        i32.store8
        local.get $out
        i32.const 1
        i32.add
        local.get $at
        local.get $length
        memory.copy
        local.get $out
        i32.const 1
        i32.add
        local.get $length
        i32.add
        local.set $out
        local.get $from
        i32.const 1
        i32.add
        local.set $from
        br 0
      end
    end
    local.get $out
  )

  ;; `value` (unsigned) in decimal at `out`; returns the new end.
  (func $decimal (export "decimal")
    (param $out i32) (param $value i32) (result i32)
    (local $digits i32) (local $t i32) (local $p i32)
    i32.const 1
    local.set $digits
    local.get $value
    local.set $t
    block
      loop
        local.get $t
        i32.const 10
        i32.lt_u
        br_if 1
        local.get $t
        i32.const 10
        i32.div_u
        local.set $t
        local.get $digits
        i32.const 1
        i32.add
        local.set $digits
        br 0
      end
    end
    local.get $out
    local.get $digits
    i32.add
    local.tee $p
    local.set $t
    loop
      local.get $p
      i32.const -1
      i32.add
      local.set $p
      local.get $p
      local.get $value
      i32.const 10
      i32.rem_u
      i32.const 48
      i32.add
      i32.store8
      local.get $value
      i32.const 10
      i32.div_u
      local.tee $value
      br_if 0
    end
    local.get $t
  )

  ;; One side's range in a hunk header, as xdl_emit_hunk_hdr writes it: an empty side names the
  ;; line before it, a count of 1 is left out.
  (func $range (export "range")
    (param $out i32) (param $start i32) (param $count i32) (result i32)
    local.get $out
    local.get $start
    i32.const 1
    i32.sub
    local.get $start
    local.get $count
    i32.eqz
    select
    call $decimal
    local.set $out
    local.get $count
    i32.const 1
    i32.ne
    if
      ;; putAscii(","): ASCII `text` written at `out`, `out` moved past it.
      local.get $out
      i32.const 0
      i32.add
      i32.const 44 ;; ","
      i32.store8
      local.get $out
      i32.const 1
      i32.add
      local.set $out
      local.get $out
      local.get $count
      call $decimal
      local.set $out
    end
    local.get $out
  )

  ;; Lines [from, to) after `prefix` (copyLines), then the marker if the last of them is the file's
  ;; last line and has no newline (`noEol`: that line's index, or -1).
  (func $run (export "run")
    (param $out i32) (param $base i32) (param $starts i32) (param $from i32) (param $to i32) (param $prefix i32) (param $noEol i32) (result i32)
    local.get $from
    local.get $to
    i32.ge_s
    if
      local.get $out
      return
    end
    local.get $out
    local.get $base
    local.get $starts
    local.get $from
    local.get $to
    local.get $prefix
    call $copyLines
    local.set $out
    local.get $to
    i32.const 1
    i32.sub
    local.get $noEol
    i32.eq
    if
      local.get $out
      i32.const 16 ;; MARKER_AT
      i32.const 29 ;; NO_NEWLINE_MARKER.length
      memory.copy
      local.get $out
      i32.const 29 ;; NO_NEWLINE_MARKER.length
      i32.add
      local.set $out
    end
    local.get $out
  )

  ;; The end of the longest valid UTF-8 prefix of [p, end) (git's sane_truncate_line with utf8.c's
  ;; rules: no overlong forms, surrogates, U+FFFE/U+FFFF or code points past U+10FFFF).
  (func $utf8Prefix (export "utf8Prefix")
    (param $p i32) (param $end i32) (result i32)
    (local $c i32) (local $c1 i32) (local $c2 i32) (local $length i32)
    block
      loop
        local.get $p
        local.get $end
        i32.ge_u
        br_if 1
        local.get $p
        i32.load8_u
        local.set $c
        local.get $p
        i32.const 1
        i32.add
        i32.load8_u
        i32.const 0
        local.get $p
        i32.const 1
        i32.add
        local.get $end
        i32.lt_u
        select
        local.set $c1
        local.get $p
        i32.const 2
        i32.add
        i32.load8_u
        i32.const 0
        local.get $p
        i32.const 2
        i32.add
        local.get $end
        i32.lt_u
        select
        local.set $c2
        i32.const 0
        local.set $length
        local.get $c
        i32.const 128
        i32.lt_u
        if
          i32.const 1
          local.set $length
        else
          local.get $c
          i32.const 224
          i32.and
          i32.const 192
          i32.eq
          if
            local.get $c1
            i32.const 192
            i32.and
            i32.const 128
            i32.eq
            local.get $c
            i32.const 254
            i32.and
            i32.const 192
            i32.ne
            i32.and
            if
              i32.const 2
              local.set $length
            end
          else
            local.get $c
            i32.const 240
            i32.and
            i32.const 224
            i32.eq
            if
              local.get $c1
              i32.const 192
              i32.and
              i32.const 128
              i32.eq
              local.get $c2
              i32.const 192
              i32.and
              i32.const 128
              i32.eq
              i32.and
              local.get $c
              i32.const 224
              i32.eq
              local.get $c1
              i32.const 224
              i32.and
              i32.const 128
              i32.eq
              i32.and
              i32.eqz
              i32.and
              local.get $c
              i32.const 237
              i32.eq
              local.get $c1
              i32.const 224
              i32.and
              i32.const 160
              i32.eq
              i32.and
              i32.eqz
              i32.and
              local.get $c
              i32.const 239
              i32.eq
              local.get $c1
              i32.const 191
              i32.eq
              i32.and
              local.get $c2
              i32.const 254
              i32.and
              i32.const 190
              i32.eq
              i32.and
              i32.eqz
              i32.and
              if
                i32.const 3
                local.set $length
              end
            else
              local.get $c
              i32.const 248
              i32.and
              i32.const 240
              i32.eq
              if
                local.get $c1
                i32.const 192
                i32.and
                i32.const 128
                i32.eq
                local.get $c2
                i32.const 192
                i32.and
                i32.const 128
                i32.eq
                i32.and
                local.get $p
                i32.const 3
                i32.add
                local.get $end
                i32.lt_u
                local.get $p
                i32.const 3
                i32.add
                i32.load8_u
                i32.const 192
                i32.and
                i32.const 128
                i32.eq
                i32.and
                i32.and
                local.get $c
                i32.const 240
                i32.eq
                local.get $c1
                i32.const 240
                i32.and
                i32.const 128
                i32.eq
                i32.and
                i32.eqz
                i32.and
                local.get $c
                i32.const 244
                i32.eq
                local.get $c1
                i32.const 143
                i32.gt_u
                i32.and
                i32.eqz
                i32.and
                local.get $c
                i32.const 244
                i32.le_u
                i32.and
                if
                  i32.const 4
                  local.set $length
                end
              end
            end
          end
        end
        local.get $length
        i32.eqz
        br_if 1
        local.get $p
        local.get $length
        i32.add
        local.set $p
        br 0
      end
    end
    local.get $p
  )

  ;; The whole patch body, as xdl_emit_diff writes it: changes (four i32 each: i1, i2, chg1, chg2)
  ;; joined into hunks when at most 2 × context lines apart, each hunk's `@@` header with git's
  ;; default function line (the last line before the hunk that starts with a letter, `_` or `$`:
  ;; its first 80 bytes, trailing white space dropped, cut at the first invalid UTF-8), then its
  ;; lines. Returns the new end of `out`.
  (func $patch (export "patch")
    (param $changes i32) (param $n i32) (param $context i32) (param $aBase i32) (param $aStarts i32) (param $aCount i32) (param $aNoEol i32) (param $bBase i32) (param $bStarts i32) (param $bCount i32) (param $bNoEol i32) (param $out i32) (result i32)
    (local $first i32) (local $last i32) (local $s1 i32) (local $s2 i32) (local $e1 i32) (local $e2 i32) (local $scanned i32) (local $found i32) (local $k i32) (local $i1 i32) (local $c i32) (local $start i32) (local $end i32)
    i32.const -1
    local.set $found
    block
      loop
        local.get $first
        local.get $n
        i32.ge_u
        br_if 1
        local.get $first
        local.set $last
        block
          loop
            local.get $last
            i32.const 1
            i32.add
            local.get $n
            i32.ge_u
            br_if 1
            local.get $changes
            local.get $last
            i32.const 1
            i32.add
            i32.const 4
            i32.shl
            i32.add
            i32.const 0
            i32.add
            i32.load
            local.get $changes
            local.get $last
            i32.const 4
            i32.shl
            i32.add
            i32.const 0
            i32.add
            i32.load
            local.get $changes
            local.get $last
            i32.const 4
            i32.shl
            i32.add
            i32.const 8
            i32.add
            i32.load
            i32.add
            i32.sub
            local.get $context
            i32.const 1
            i32.shl
            i32.gt_s
            br_if 1
            local.get $last
            i32.const 1
            i32.add
            local.set $last
            br 0
          end
        end
        local.get $changes
        local.get $first
        i32.const 4
        i32.shl
        i32.add
        i32.const 0
        i32.add
        i32.load
        local.get $context
        i32.sub
        local.tee $s1
        i32.const 0
        local.get $s1
        i32.const 0
        i32.gt_s
        select
        local.set $s1
        local.get $changes
        local.get $first
        i32.const 4
        i32.shl
        i32.add
        i32.const 4
        i32.add
        i32.load
        local.get $context
        i32.sub
        local.tee $s2
        i32.const 0
        local.get $s2
        i32.const 0
        i32.gt_s
        select
        local.set $s2
        local.get $changes
        local.get $last
        i32.const 4
        i32.shl
        i32.add
        i32.const 0
        i32.add
        i32.load
        local.get $changes
        local.get $last
        i32.const 4
        i32.shl
        i32.add
        i32.const 8
        i32.add
        i32.load
        i32.add
        local.get $context
        i32.add
        local.tee $e1
        local.get $aCount
        local.get $e1
        local.get $aCount
        i32.lt_s
        select
        local.set $e1
        local.get $changes
        local.get $last
        i32.const 4
        i32.shl
        i32.add
        i32.const 4
        i32.add
        i32.load
        local.get $changes
        local.get $last
        i32.const 4
        i32.shl
        i32.add
        i32.const 12
        i32.add
        i32.load
        i32.add
        local.get $context
        i32.add
        local.tee $e2
        local.get $bCount
        local.get $e2
        local.get $bCount
        i32.lt_s
        select
        local.set $e2
        block
          loop
            local.get $scanned
            local.get $s1
            i32.ge_s
            br_if 1
            local.get $aBase
            local.get $aStarts
            local.get $scanned
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.add
            i32.load8_u
            local.tee $c
            i32.const 32
            i32.or
            i32.const 97
            i32.sub
            i32.const 26
            i32.lt_u
            local.get $c
            i32.const 95
            i32.eq
            i32.or
            local.get $c
            i32.const 36
            i32.eq
            i32.or
            if
              local.get $scanned
              local.set $found
            end
            local.get $scanned
            i32.const 1
            i32.add
            local.set $scanned
            br 0
          end
        end
        ;; putAscii("@@ -"): ASCII `text` written at `out`, `out` moved past it.
        local.get $out
        i32.const 0
        i32.add
        i32.const 64 ;; "@"
        i32.store8
        local.get $out
        i32.const 1
        i32.add
        i32.const 64 ;; "@"
        i32.store8
        local.get $out
        i32.const 2
        i32.add
        i32.const 32 ;; " "
        i32.store8
        local.get $out
        i32.const 3
        i32.add
        i32.const 45 ;; "-"
        i32.store8
        local.get $out
        i32.const 4
        i32.add
        local.set $out
        local.get $out
        local.get $s1
        i32.const 1
        i32.add
        local.get $e1
        local.get $s1
        i32.sub
        call $range
        local.set $out
        ;; putAscii(" +"): ASCII `text` written at `out`, `out` moved past it.
        local.get $out
        i32.const 0
        i32.add
        i32.const 32 ;; " "
        i32.store8
        local.get $out
        i32.const 1
        i32.add
        i32.const 43 ;; "+"
        i32.store8
        local.get $out
        i32.const 2
        i32.add
        local.set $out
        local.get $out
        local.get $s2
        i32.const 1
        i32.add
        local.get $e2
        local.get $s2
        i32.sub
        call $range
        local.set $out
        ;; putAscii(" @@"): ASCII `text` written at `out`, `out` moved past it.
        local.get $out
        i32.const 0
        i32.add
        i32.const 32 ;; " "
        i32.store8
        local.get $out
        i32.const 1
        i32.add
        i32.const 64 ;; "@"
        i32.store8
        local.get $out
        i32.const 2
        i32.add
        i32.const 64 ;; "@"
        i32.store8
        local.get $out
        i32.const 3
        i32.add
        local.set $out
        local.get $found
        i32.const 0
        i32.ge_s
        if
          local.get $aStarts
          local.get $found
          i32.const 2
          i32.shl
          i32.add
          i32.load
          local.get $aBase
          i32.add
          local.set $start
          local.get $aStarts
          local.get $found
          i32.const 1
          i32.add
          i32.const 2
          i32.shl
          i32.add
          i32.load
          local.get $aBase
          i32.add
          local.tee $end
          local.get $start
          i32.const 80
          i32.add
          local.get $end
          local.get $start
          i32.const 80
          i32.add
          i32.lt_u
          select
          local.set $end
          block
            loop
              local.get $end
              local.get $start
              i32.le_u
              br_if 1
              local.get $end
              i32.const 1
              i32.sub
              i32.load8_u
              local.tee $c
              i32.const 32
              i32.ne
              local.get $c
              i32.const 9
              i32.sub
              i32.const 5
              i32.ge_u
              i32.and
              br_if 1
              local.get $end
              i32.const -1
              i32.add
              local.set $end
              br 0
            end
          end
          local.get $start
          local.get $end
          call $utf8Prefix
          local.set $end
          local.get $out
          i32.const 32
          i32.store8
          local.get $out
          i32.const 1
          i32.add
          local.get $start
          local.get $end
          local.get $start
          i32.sub
          memory.copy
          local.get $out
          local.get $end
          local.get $start
          i32.sub
          i32.const 1
          i32.add
          i32.add
          local.set $out
        end
        ;; putAscii("\n"): ASCII `text` written at `out`, `out` moved past it.
        local.get $out
        i32.const 0
        i32.add
        i32.const 10 ;; "\n"
        i32.store8
        local.get $out
        i32.const 1
        i32.add
        local.set $out
        local.get $s1
        local.set $i1
        local.get $first
        local.set $k
        block
          loop
            local.get $k
            local.get $last
            i32.gt_s
            br_if 1
            ;; runOf(a, …, …, 32): `out = run(out, base, starts, from, to, prefix, noEol)`
            local.get $out
            local.get $aBase
            local.get $aStarts
            local.get $i1
            local.get $changes
            local.get $k
            i32.const 4
            i32.shl
            i32.add
            i32.const 0
            i32.add
            i32.load
            i32.const 32 ;; " "
            local.get $aNoEol
            call $run
            local.set $out
            local.get $changes
            local.get $k
            i32.const 4
            i32.shl
            i32.add
            i32.const 0
            i32.add
            i32.load
            local.get $changes
            local.get $k
            i32.const 4
            i32.shl
            i32.add
            i32.const 8
            i32.add
            i32.load
            i32.add
            local.set $c
            ;; runOf(a, …, …, 45): `out = run(out, base, starts, from, to, prefix, noEol)`
            local.get $out
            local.get $aBase
            local.get $aStarts
            local.get $changes
            local.get $k
            i32.const 4
            i32.shl
            i32.add
            i32.const 0
            i32.add
            i32.load
            local.get $c
            i32.const 45 ;; "-"
            local.get $aNoEol
            call $run
            local.set $out
            ;; runOf(b, …, …, 43): `out = run(out, base, starts, from, to, prefix, noEol)`
            local.get $out
            local.get $bBase
            local.get $bStarts
            local.get $changes
            local.get $k
            i32.const 4
            i32.shl
            i32.add
            i32.const 4
            i32.add
            i32.load
            local.get $changes
            local.get $k
            i32.const 4
            i32.shl
            i32.add
            i32.const 4
            i32.add
            i32.load
            local.get $changes
            local.get $k
            i32.const 4
            i32.shl
            i32.add
            i32.const 12
            i32.add
            i32.load
            i32.add
            i32.const 43 ;; "+"
            local.get $bNoEol
            call $run
            local.set $out
            local.get $c
            local.set $i1
            local.get $k
            i32.const 1
            i32.add
            local.set $k
            br 0
          end
        end
        ;; runOf(a, …, …, 32): `out = run(out, base, starts, from, to, prefix, noEol)`
        local.get $out
        local.get $aBase
        local.get $aStarts
        local.get $i1
        local.get $e1
        i32.const 32 ;; " "
        local.get $aNoEol
        call $run
        local.set $out
        local.get $last
        i32.const 1
        i32.add
        local.set $first
        br 0
      end
    end
    local.get $out
  )

  ;; How many i32 from `a` and `b` on are equal, at most `limit`, stepping `stride` bytes (4 from
  ;; the start, -4 from the end): xdl_trim_ends' common start and end.
  (func $common (export "common")
    (param $a i32) (param $b i32) (param $limit i32) (param $stride i32) (result i32)
    (local $k i32)
    block
      loop
        local.get $k
        local.get $limit
        i32.ge_s
        br_if 1
        local.get $a
        i32.load
        local.get $b
        i32.load
        i32.ne
        br_if 1
        local.get $a
        local.get $stride
        i32.add
        local.set $a
        local.get $b
        local.get $stride
        i32.add
        local.set $b
        local.get $k
        i32.const 1
        i32.add
        local.set $k
        br 0
      end
    end
    local.get $k
  )

  ;; xdl_clean_mmatch: 1 when line i (many matches) stands among lines without a match (dis 0)
  ;; and other lines with many (dis 2), looked at up to XDL_SIMSCAN_WINDOW lines each way.
  (func $cleanMultiMatch (export "cleanMultiMatch")
    (param $dis i32) (param $i i32) (param $s i32) (param $e i32) (result i32)
    (local $r i32) (local $d i32) (local $rdis0 i32) (local $rpdis0 i32) (local $rdis1 i32) (local $rpdis1 i32)
    local.get $i
    local.get $s
    i32.sub
    i32.const 100 ;; SIMSCAN_WINDOW
    i32.gt_s
    if
      local.get $i
      i32.const 100 ;; SIMSCAN_WINDOW
      i32.sub
      local.set $s
    end
    local.get $e
    local.get $i
    i32.sub
    i32.const 100 ;; SIMSCAN_WINDOW
    i32.gt_s
    if
      local.get $i
      i32.const 100 ;; SIMSCAN_WINDOW
      i32.add
      local.set $e
    end
    i32.const 1
    local.set $rpdis0
    i32.const 1
    local.set $r
    block
      loop
        local.get $i
        local.get $r
        i32.sub
        local.get $s
        i32.lt_s
        br_if 1
        local.get $dis
        local.get $i
        i32.add
        local.get $r
        i32.sub
        i32.load8_u
        local.tee $d
        i32.eqz
        if
          local.get $rdis0
          i32.const 1
          i32.add
          local.set $rdis0
        else
          local.get $d
          i32.const 2
          i32.ne
          br_if 2
          local.get $rpdis0
          i32.const 1
          i32.add
          local.set $rpdis0
        end
        local.get $r
        i32.const 1
        i32.add
        local.set $r
        br 0
      end
    end
    local.get $rdis0
    i32.eqz
    if
      i32.const 0
      return
    end
    i32.const 1
    local.set $rpdis1
    i32.const 1
    local.set $r
    block
      loop
        local.get $i
        local.get $r
        i32.add
        local.get $e
        i32.gt_s
        br_if 1
        local.get $dis
        local.get $i
        i32.add
        local.get $r
        i32.add
        i32.load8_u
        local.tee $d
        i32.eqz
        if
          local.get $rdis1
          i32.const 1
          i32.add
          local.set $rdis1
        else
          local.get $d
          i32.const 2
          i32.ne
          br_if 2
          local.get $rpdis1
          i32.const 1
          i32.add
          local.set $rpdis1
        end
        local.get $r
        i32.const 1
        i32.add
        local.set $r
        br 0
      end
    end
    local.get $rdis1
    i32.eqz
    if
      i32.const 0
      return
    end
    local.get $rdis1
    local.get $rdis0
    i32.add
    local.set $rdis1
    local.get $rpdis1
    local.get $rpdis0
    i32.add
    local.set $rpdis1
    local.get $rpdis1
    i32.const 4 ;; KPDIS_RUN
    i32.mul
    local.get $rpdis1
    local.get $rdis1
    i32.add
    i32.lt_s
  )

  ;; xdl_cleanup_records for one file's lines [start, end]: dis[i] is 0 when the other file has
  ;; no such line, 2 when it has `limit` or more, else 1; lines with 1, and lines with 2 that
  ;; cleanMultiMatch keeps, go to the search (kept, keptIds; their count is returned), the rest
  ;; are changes whatever the search finds (changed[i + 1] = 1).
  (func $discard (export "discard")
    (param $ids i32) (param $counts i32) (param $start i32) (param $end i32) (param $limit i32) (param $dis i32) (param $kept i32) (param $keptIds i32) (param $changed i32) (result i32)
    (local $i i32) (local $m i32) (local $n i32) (local $d i32)
    local.get $start
    local.set $i
    block
      loop
        local.get $i
        local.get $end
        i32.gt_s
        br_if 1
        local.get $counts
        local.get $ids
        local.get $i
        i32.const 2
        i32.shl
        i32.add
        i32.load
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.set $m
        local.get $dis
        local.get $i
        i32.add
        i32.const 0
        i32.const 2
        i32.const 1
        local.get $m
        local.get $limit
        i32.ge_s
        select
        local.get $m
        i32.eqz
        select
        i32.store8
        local.get $i
        i32.const 1
        i32.add
        local.set $i
        br 0
      end
    end
    local.get $start
    local.set $i
    block
      loop
        local.get $i
        local.get $end
        i32.gt_s
        br_if 1
        local.get $dis
        local.get $i
        i32.add
        i32.load8_u
        local.tee $d
        i32.const 1
        i32.eq
        if
          ;; keepLine: In `discard`: line i goes to the search.
          local.get $kept
          local.get $n
          i32.const 2
          i32.shl
          i32.add
          local.get $i
          i32.store
          local.get $keptIds
          local.get $n
          i32.const 2
          i32.shl
          i32.add
          local.get $ids
          local.get $i
          i32.const 2
          i32.shl
          i32.add
          i32.load
          i32.store
          local.get $n
          i32.const 1
          i32.add
          local.set $n
        else
          local.get $d
          i32.const 2
          i32.eq
          if
            local.get $dis
            local.get $i
            local.get $start
            local.get $end
            call $cleanMultiMatch
            if
              ;; markChanged: In `discard`: line i is a change (`changed` is offset by one).
              local.get $changed
              local.get $i
              i32.add
              i32.const 1
              i32.add
              i32.const 1
              i32.store8
            else
              ;; keepLine: In `discard`: line i goes to the search.
              local.get $kept
              local.get $n
              i32.const 2
              i32.shl
              i32.add
              local.get $i
              i32.store
              local.get $keptIds
              local.get $n
              i32.const 2
              i32.shl
              i32.add
              local.get $ids
              local.get $i
              i32.const 2
              i32.shl
              i32.add
              i32.load
              i32.store
              local.get $n
              i32.const 1
              i32.add
              local.set $n
            end
          else
            ;; markChanged: In `discard`: line i is a change (`changed` is offset by one).
            local.get $changed
            local.get $i
            i32.add
            i32.const 1
            i32.add
            i32.const 1
            i32.store8
          end
        end
        local.get $i
        i32.const 1
        i32.add
        local.set $i
        br 0
      end
    end
    local.get $n
  )

  ;; xdl_build_script: the changes from both files' flags (`changed` offset by one, 0 at both
  ;; ends), four i32 each (i1, i2, chg1, chg2) at `out`; returns how many.
  (func $script (export "script")
    (param $changed1 i32) (param $count1 i32) (param $changed2 i32) (param $count2 i32) (param $out i32) (result i32)
    (local $i1 i32) (local $i2 i32) (local $s1 i32) (local $s2 i32) (local $n i32)
    block
      loop
        local.get $i1
        local.get $count1
        i32.lt_s
        local.get $i2
        local.get $count2
        i32.lt_s
        i32.or
        i32.eqz
        br_if 1
        local.get $changed1
        local.get $i1
        i32.add
        i32.const 1
        i32.add
        i32.load8_u
        local.get $changed2
        local.get $i2
        i32.add
        i32.const 1
        i32.add
        i32.load8_u
        i32.or
        if
          local.get $i1
          local.set $s1
          local.get $i2
          local.set $s2
          ;; skipChanged(changed1, i1): `while (changed[i + 1]) i++`
          block
            loop
              local.get $changed1
              local.get $i1
              i32.add
              i32.const 1
              i32.add
              i32.load8_u
              i32.eqz
              br_if 1
              local.get $i1
              i32.const 1
              i32.add
              local.set $i1
              br 0
            end
          end
          ;; skipChanged(changed2, i2): `while (changed[i + 1]) i++`
          block
            loop
              local.get $changed2
              local.get $i2
              i32.add
              i32.const 1
              i32.add
              i32.load8_u
              i32.eqz
              br_if 1
              local.get $i2
              i32.const 1
              i32.add
              local.set $i2
              br 0
            end
          end
          local.get $out
          local.get $s1
          i32.store
          local.get $out
          i32.const 4
          i32.add
          local.get $s2
          i32.store
          local.get $out
          i32.const 8
          i32.add
          local.get $i1
          local.get $s1
          i32.sub
          i32.store
          local.get $out
          i32.const 12
          i32.add
          local.get $i2
          local.get $s2
          i32.sub
          i32.store
          local.get $out
          i32.const 16
          i32.add
          local.set $out
          local.get $n
          i32.const 1
          i32.add
          local.set $n
        else
          local.get $i1
          i32.const 1
          i32.add
          local.set $i1
          local.get $i2
          i32.const 1
          i32.add
          local.set $i2
        end
        br 0
      end
    end
    local.get $n
  )

  ;; git's get_indent for line `line`: -1 for a blank line, a TAB to the next multiple of 8,
  ;; at most MAX_INDENT.
  (func $indent (export "indent")
    (param $base i32) (param $starts i32) (param $line i32) (result i32)
    (local $p i32) (local $end i32) (local $c i32) (local $n i32)
    local.get $base
    local.get $starts
    local.get $line
    i32.const 2
    i32.shl
    i32.add
    i32.load
    i32.add
    local.set $p
    local.get $base
    local.get $starts
    local.get $line
    i32.const 1
    i32.add
    i32.const 2
    i32.shl
    i32.add
    i32.load
    i32.add
    local.set $end
    block
      loop
        local.get $p
        local.get $end
        i32.ge_u
        br_if 1
        local.get $p
        i32.load8_u
        local.tee $c
        i32.const 32
        i32.eq
        if
          local.get $n
          i32.const 1
          i32.add
          local.set $n
        else
          local.get $c
          i32.const 9
          i32.eq
          if
            local.get $n
            i32.const 8
            local.get $n
            i32.const 7
            i32.and
            i32.sub
            i32.add
            local.set $n
          else
            local.get $c
            i32.const 10
            i32.sub
            i32.const 4
            i32.ge_u
            if
              local.get $n
              return
            end
          end
        end
        local.get $n
        i32.const 200 ;; INDENT.MAX_INDENT
        i32.ge_s
        if
          i32.const 200 ;; INDENT.MAX_INDENT
          return
        end
        local.get $p
        i32.const 1
        i32.add
        local.set $p
        br 0
      end
    end
    i32.const -1
  )

  ;; score_add_split for a split above line `split` of a file (lines at base/starts, `count` of
  ;; them): adds its effective indent and penalty to the two i32 at SCORE_AT.
  (func $scoreSplit (export "scoreSplit")
    (param $base i32) (param $starts i32) (param $count i32) (param $split i32)
    (local $endOfFile i32) (local $indent i32) (local $preBlank i32) (local $preIndent i32) (local $postBlank i32) (local $postIndent i32) (local $penalty i32) (local $i i32) (local $blankAfter i32) (local $totalBlank i32) (local $effective i32)
    local.get $split
    local.get $count
    i32.ge_s
    local.tee $endOfFile
    if
      i32.const -1
      local.set $indent
    else
      local.get $base
      local.get $starts
      local.get $split
      call $indent
      local.set $indent
    end
    i32.const -1
    local.set $preIndent
    local.get $split
    i32.const 1
    i32.sub
    local.set $i
    block
      loop
        local.get $i
        i32.const 0
        i32.lt_s
        br_if 1
        local.get $base
        local.get $starts
        local.get $i
        call $indent
        local.tee $preIndent
        i32.const -1
        i32.ne
        br_if 1
        local.get $preBlank
        i32.const 1
        i32.add
        local.set $preBlank
        local.get $preBlank
        i32.const 20 ;; INDENT.MAX_BLANKS
        i32.eq
        if
          i32.const 0
          local.set $preIndent
          br 2
        end
        local.get $i
        i32.const -1
        i32.add
        local.set $i
        br 0
      end
    end
    i32.const -1
    local.set $postIndent
    local.get $split
    i32.const 1
    i32.add
    local.set $i
    block
      loop
        local.get $i
        local.get $count
        i32.ge_s
        br_if 1
        local.get $base
        local.get $starts
        local.get $i
        call $indent
        local.tee $postIndent
        i32.const -1
        i32.ne
        br_if 1
        local.get $postBlank
        i32.const 1
        i32.add
        local.set $postBlank
        local.get $postBlank
        i32.const 20 ;; INDENT.MAX_BLANKS
        i32.eq
        if
          i32.const 0
          local.set $postIndent
          br 2
        end
        local.get $i
        i32.const 1
        i32.add
        local.set $i
        br 0
      end
    end
    local.get $preIndent
    i32.const -1
    i32.eq
    local.get $preBlank
    i32.eqz
    i32.and
    if
      local.get $penalty
      i32.const 1 ;; INDENT.START_OF_FILE_PENALTY
      i32.add
      local.set $penalty
    end
    local.get $endOfFile
    if
      local.get $penalty
      i32.const 21 ;; INDENT.END_OF_FILE_PENALTY
      i32.add
      local.set $penalty
    end
    local.get $indent
    i32.const -1
    i32.eq
    if
      local.get $postBlank
      i32.const 1
      i32.add
      local.set $blankAfter
    end
    local.get $preBlank
    local.get $blankAfter
    i32.add
    local.set $totalBlank
    local.get $penalty
    i32.const -30 ;; INDENT.TOTAL_BLANK_WEIGHT
    local.get $totalBlank
    i32.mul
    i32.const 6 ;; INDENT.POST_BLANK_WEIGHT
    local.get $blankAfter
    i32.mul
    i32.add
    i32.add
    local.set $penalty
    local.get $indent
    local.get $postIndent
    local.get $indent
    i32.const -1
    i32.ne
    select
    local.set $effective
    i32.const 48 ;; SCORE_AT
    i32.const 48 ;; SCORE_AT
    i32.load
    local.get $effective
    i32.add
    i32.store
    local.get $effective
    i32.const -1
    i32.ne
    local.get $preIndent
    i32.const -1
    i32.ne
    i32.and
    if
      local.get $effective
      local.get $preIndent
      i32.gt_s
      if
        local.get $penalty
        i32.const 10 ;; INDENT.RELATIVE_INDENT_WITH_BLANK_PENALTY
        i32.const -4 ;; INDENT.RELATIVE_INDENT_PENALTY
        local.get $totalBlank
        select
        i32.add
        local.set $penalty
      else
        local.get $effective
        local.get $preIndent
        i32.lt_s
        if
          local.get $postIndent
          i32.const -1
          i32.ne
          local.get $postIndent
          local.get $effective
          i32.gt_s
          i32.and
          if
            local.get $penalty
            i32.const 17 ;; INDENT.RELATIVE_OUTDENT_WITH_BLANK_PENALTY
            i32.const 24 ;; INDENT.RELATIVE_OUTDENT_PENALTY
            local.get $totalBlank
            select
            i32.add
            local.set $penalty
          else
            local.get $penalty
            i32.const 17 ;; INDENT.RELATIVE_DEDENT_WITH_BLANK_PENALTY
            i32.const 23 ;; INDENT.RELATIVE_DEDENT_PENALTY
            local.get $totalBlank
            select
            i32.add
            local.set $penalty
          end
        end
      end
    end
    i32.const 52 ;; SCORE_AT + 4
    i32.const 52 ;; SCORE_AT + 4
    i32.load
    local.get $penalty
    i32.add
    i32.store
  )

  ;; xdl_change_compact with git's indent heuristic for one file (flags in `changed`, numbers in
  ;; `ids`, lines at base/starts), the other file's flags moved along (`ochanged`).
  (func $compact (export "compact")
    (param $changed i32) (param $ids i32) (param $count i32) (param $base i32) (param $starts i32) (param $ochanged i32) (param $ocount i32)
    (local $gs i32) (local $ge i32) (local $os i32) (local $oe i32) (local $ok i32) (local $groupSize i32) (local $earliestEnd i32) (local $endMatchingOther i32) (local $shift i32) (local $bestShift i32) (local $bestIndent i32) (local $bestPenalty i32) (local $score i32) (local $penalty i32) (local $cmp i32)
    ;; skipChanged(changed, ge): `while (changed[i + 1]) i++`
    block
      loop
        local.get $changed
        local.get $ge
        i32.add
        i32.const 1
        i32.add
        i32.load8_u
        i32.eqz
        br_if 1
        local.get $ge
        i32.const 1
        i32.add
        local.set $ge
        br 0
      end
    end
    ;; skipChanged(ochanged, oe): `while (changed[i + 1]) i++`
    block
      loop
        local.get $ochanged
        local.get $oe
        i32.add
        i32.const 1
        i32.add
        i32.load8_u
        i32.eqz
        br_if 1
        local.get $oe
        i32.const 1
        i32.add
        local.set $oe
        br 0
      end
    end
    block
      loop
        local.get $ge
        local.get $gs
        i32.ne
        if
          loop
            local.get $ge
            local.get $gs
            i32.sub
            local.set $groupSize
            i32.const -1
            local.set $endMatchingOther
            block
              loop
                ;; groupSlideUp(group gs..ge): Group.slideUp.
                i32.const 0
                local.set $ok
                local.get $gs
                i32.const 0
                i32.gt_s
                if
                  local.get $ids
                  local.get $gs
                  i32.const 1
                  i32.sub
                  i32.const 2
                  i32.shl
                  i32.add
                  i32.load
                  local.get $ids
                  local.get $ge
                  i32.const 1
                  i32.sub
                  i32.const 2
                  i32.shl
                  i32.add
                  i32.load
                  i32.eq
                  if
                    local.get $gs
                    i32.const -1
                    i32.add
                    local.set $gs
                    ;; setFlag(group gs..ge, …, 1): `changed[line + 1] = flag`
                    local.get $changed
                    local.get $gs
                    i32.add
                    i32.const 1
                    i32.add
                    i32.const 1
                    i32.store8
                    local.get $ge
                    i32.const -1
                    i32.add
                    local.set $ge
                    ;; setFlag(group gs..ge, …, 0): `changed[line + 1] = flag`
                    local.get $changed
                    local.get $ge
                    i32.add
                    i32.const 1
                    i32.add
                    i32.const 0
                    i32.store8
                    ;; backOverChanged(group gs..ge): `while (changed[start]) start--` (the flag of line start - 1).
                    block
                      loop
                        local.get $changed
                        local.get $gs
                        i32.add
                        i32.load8_u
                        i32.eqz
                        br_if 1
                        local.get $gs
                        i32.const -1
                        i32.add
                        local.set $gs
                        br 0
                      end
                    end
                    i32.const 1
                    local.set $ok
                  end
                end
                local.get $ok
                i32.eqz
                br_if 1
                ;; groupPrevious(group os..oe): Group.previous.
                i32.const 0
                local.set $ok
                local.get $os
                i32.eqz
                i32.eqz
                if
                  local.get $os
                  i32.const 1
                  i32.sub
                  local.tee $oe
                  local.set $os
                  ;; backOverChanged(group os..oe): `while (changed[start]) start--` (the flag of line start - 1).
                  block
                    loop
                      local.get $ochanged
                      local.get $os
                      i32.add
                      i32.load8_u
                      i32.eqz
                      br_if 1
                      local.get $os
                      i32.const -1
                      i32.add
                      local.set $os
                      br 0
                    end
                  end
                  i32.const 1
                  local.set $ok
                end
                ;; requireOk: The groups of both files out of step: a bug, never input (line_diff.ts's `broken`).
                local.get $ok
                i32.eqz
                if
                  unreachable
                end
                br 0
              end
            end
            local.get $ge
            local.set $earliestEnd
            ;; noteMatchingOther: `endMatchingOther = g.end` when the other file's group is not empty.
            local.get $oe
            local.get $os
            i32.gt_s
            if
              local.get $ge
              local.set $endMatchingOther
            end
            block
              loop
                ;; groupSlideDown(group gs..ge): Group.slideDown (the group's file's numbers in `ids`).
                i32.const 0
                local.set $ok
                local.get $ge
                local.get $count
                i32.lt_s
                if
                  local.get $ids
                  local.get $gs
                  i32.const 2
                  i32.shl
                  i32.add
                  i32.load
                  local.get $ids
                  local.get $ge
                  i32.const 2
                  i32.shl
                  i32.add
                  i32.load
                  i32.eq
                  if
                    ;; setFlag(group gs..ge, …, 0): `changed[line + 1] = flag`
                    local.get $changed
                    local.get $gs
                    i32.add
                    i32.const 1
                    i32.add
                    i32.const 0
                    i32.store8
                    local.get $gs
                    i32.const 1
                    i32.add
                    local.set $gs
                    ;; setFlag(group gs..ge, …, 1): `changed[line + 1] = flag`
                    local.get $changed
                    local.get $ge
                    i32.add
                    i32.const 1
                    i32.add
                    i32.const 1
                    i32.store8
                    local.get $ge
                    i32.const 1
                    i32.add
                    local.set $ge
                    ;; skipChanged(changed, ge): `while (changed[i + 1]) i++`
                    block
                      loop
                        local.get $changed
                        local.get $ge
                        i32.add
                        i32.const 1
                        i32.add
                        i32.load8_u
                        i32.eqz
                        br_if 1
                        local.get $ge
                        i32.const 1
                        i32.add
                        local.set $ge
                        br 0
                      end
                    end
                    i32.const 1
                    local.set $ok
                  end
                end
                local.get $ok
                i32.eqz
                br_if 1
                ;; groupNext(group os..oe): Group.next: ok = 0 at the last group, else the group moves to the next one.
                i32.const 0
                local.set $ok
                local.get $oe
                local.get $ocount
                i32.ne
                if
                  local.get $oe
                  i32.const 1
                  i32.add
                  local.tee $os
                  local.set $oe
                  ;; skipChanged(ochanged, oe): `while (changed[i + 1]) i++`
                  block
                    loop
                      local.get $ochanged
                      local.get $oe
                      i32.add
                      i32.const 1
                      i32.add
                      i32.load8_u
                      i32.eqz
                      br_if 1
                      local.get $oe
                      i32.const 1
                      i32.add
                      local.set $oe
                      br 0
                    end
                  end
                  i32.const 1
                  local.set $ok
                end
                ;; requireOk: The groups of both files out of step: a bug, never input (line_diff.ts's `broken`).
                local.get $ok
                i32.eqz
                if
                  unreachable
                end
                ;; noteMatchingOther: `endMatchingOther = g.end` when the other file's group is not empty.
                local.get $oe
                local.get $os
                i32.gt_s
                if
                  local.get $ge
                  local.set $endMatchingOther
                end
                br 0
              end
            end
            local.get $groupSize
            local.get $ge
            local.get $gs
            i32.sub
            i32.ne
            br_if 0
          end
          local.get $ge
          local.get $earliestEnd
          i32.ne
          if
            local.get $endMatchingOther
            i32.const -1
            i32.ne
            if
              ;; slideUpWhile(…): `while (<stop is 0>) { slideUp or fail; previous or fail }` with `stop` pushing 1 to stop.
              block
                loop
                  local.get $oe
                  local.get $os
                  i32.ne
                  br_if 1
                  ;; groupSlideUp(group gs..ge): Group.slideUp.
                  i32.const 0
                  local.set $ok
                  local.get $gs
                  i32.const 0
                  i32.gt_s
                  if
                    local.get $ids
                    local.get $gs
                    i32.const 1
                    i32.sub
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    local.get $ids
                    local.get $ge
                    i32.const 1
                    i32.sub
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    i32.eq
                    if
                      local.get $gs
                      i32.const -1
                      i32.add
                      local.set $gs
                      ;; setFlag(group gs..ge, …, 1): `changed[line + 1] = flag`
                      local.get $changed
                      local.get $gs
                      i32.add
                      i32.const 1
                      i32.add
                      i32.const 1
                      i32.store8
                      local.get $ge
                      i32.const -1
                      i32.add
                      local.set $ge
                      ;; setFlag(group gs..ge, …, 0): `changed[line + 1] = flag`
                      local.get $changed
                      local.get $ge
                      i32.add
                      i32.const 1
                      i32.add
                      i32.const 0
                      i32.store8
                      ;; backOverChanged(group gs..ge): `while (changed[start]) start--` (the flag of line start - 1).
                      block
                        loop
                          local.get $changed
                          local.get $gs
                          i32.add
                          i32.load8_u
                          i32.eqz
                          br_if 1
                          local.get $gs
                          i32.const -1
                          i32.add
                          local.set $gs
                          br 0
                        end
                      end
                      i32.const 1
                      local.set $ok
                    end
                  end
                  ;; requireOk: The groups of both files out of step: a bug, never input (line_diff.ts's `broken`).
                  local.get $ok
                  i32.eqz
                  if
                    unreachable
                  end
                  ;; groupPrevious(group os..oe): Group.previous.
                  i32.const 0
                  local.set $ok
                  local.get $os
                  i32.eqz
                  i32.eqz
                  if
                    local.get $os
                    i32.const 1
                    i32.sub
                    local.tee $oe
                    local.set $os
                    ;; backOverChanged(group os..oe): `while (changed[start]) start--` (the flag of line start - 1).
                    block
                      loop
                        local.get $ochanged
                        local.get $os
                        i32.add
                        i32.load8_u
                        i32.eqz
                        br_if 1
                        local.get $os
                        i32.const -1
                        i32.add
                        local.set $os
                        br 0
                      end
                    end
                    i32.const 1
                    local.set $ok
                  end
                  ;; requireOk: The groups of both files out of step: a bug, never input (line_diff.ts's `broken`).
                  local.get $ok
                  i32.eqz
                  if
                    unreachable
                  end
                  br 0
                end
              end
            else
              local.get $earliestEnd
              local.set $shift
              ;; raise(shift, …): `name = max(name, value)` (signed).
              local.get $ge
              local.get $groupSize
              i32.sub
              i32.const 1
              i32.sub
              local.get $shift
              i32.gt_s
              if
                local.get $ge
                local.get $groupSize
                i32.sub
                i32.const 1
                i32.sub
                local.set $shift
              end
              ;; raise(shift, …): `name = max(name, value)` (signed).
              local.get $ge
              i32.const 100 ;; INDENT.INDENT_HEURISTIC_MAX_SLIDING
              i32.sub
              local.get $shift
              i32.gt_s
              if
                local.get $ge
                i32.const 100 ;; INDENT.INDENT_HEURISTIC_MAX_SLIDING
                i32.sub
                local.set $shift
              end
              i32.const -1
              local.set $bestShift
              i32.const 0
              local.set $bestIndent
              i32.const 0
              local.set $bestPenalty
              block
                loop
                  local.get $shift
                  local.get $ge
                  i32.gt_s
                  br_if 1
                  i32.const 48 ;; SCORE_AT
                  i32.const 0
                  i32.store
                  i32.const 52 ;; SCORE_AT + 4
                  i32.const 0
                  i32.store
                  local.get $base
                  local.get $starts
                  local.get $count
                  local.get $shift
                  call $scoreSplit
                  local.get $base
                  local.get $starts
                  local.get $count
                  local.get $shift
                  local.get $groupSize
                  i32.sub
                  call $scoreSplit
                  i32.const 48 ;; SCORE_AT
                  i32.load
                  local.set $score
                  i32.const 52 ;; SCORE_AT + 4
                  i32.load
                  local.set $penalty
                  local.get $score
                  local.get $bestIndent
                  i32.gt_s
                  local.get $score
                  local.get $bestIndent
                  i32.lt_s
                  i32.sub
                  i32.const 60 ;; INDENT.INDENT_WEIGHT
                  i32.mul
                  local.get $penalty
                  local.get $bestPenalty
                  i32.sub
                  i32.add
                  local.set $cmp
                  local.get $bestShift
                  i32.const -1
                  i32.eq
                  local.get $cmp
                  i32.const 0
                  i32.le_s
                  i32.or
                  if
                    local.get $score
                    local.set $bestIndent
                    local.get $penalty
                    local.set $bestPenalty
                    local.get $shift
                    local.set $bestShift
                  end
                  local.get $shift
                  i32.const 1
                  i32.add
                  local.set $shift
                  br 0
                end
              end
              ;; slideUpWhile(…): `while (<stop is 0>) { slideUp or fail; previous or fail }` with `stop` pushing 1 to stop.
              block
                loop
                  local.get $ge
                  local.get $bestShift
                  i32.le_s
                  br_if 1
                  ;; groupSlideUp(group gs..ge): Group.slideUp.
                  i32.const 0
                  local.set $ok
                  local.get $gs
                  i32.const 0
                  i32.gt_s
                  if
                    local.get $ids
                    local.get $gs
                    i32.const 1
                    i32.sub
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    local.get $ids
                    local.get $ge
                    i32.const 1
                    i32.sub
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    i32.eq
                    if
                      local.get $gs
                      i32.const -1
                      i32.add
                      local.set $gs
                      ;; setFlag(group gs..ge, …, 1): `changed[line + 1] = flag`
                      local.get $changed
                      local.get $gs
                      i32.add
                      i32.const 1
                      i32.add
                      i32.const 1
                      i32.store8
                      local.get $ge
                      i32.const -1
                      i32.add
                      local.set $ge
                      ;; setFlag(group gs..ge, …, 0): `changed[line + 1] = flag`
                      local.get $changed
                      local.get $ge
                      i32.add
                      i32.const 1
                      i32.add
                      i32.const 0
                      i32.store8
                      ;; backOverChanged(group gs..ge): `while (changed[start]) start--` (the flag of line start - 1).
                      block
                        loop
                          local.get $changed
                          local.get $gs
                          i32.add
                          i32.load8_u
                          i32.eqz
                          br_if 1
                          local.get $gs
                          i32.const -1
                          i32.add
                          local.set $gs
                          br 0
                        end
                      end
                      i32.const 1
                      local.set $ok
                    end
                  end
                  ;; requireOk: The groups of both files out of step: a bug, never input (line_diff.ts's `broken`).
                  local.get $ok
                  i32.eqz
                  if
                    unreachable
                  end
                  ;; groupPrevious(group os..oe): Group.previous.
                  i32.const 0
                  local.set $ok
                  local.get $os
                  i32.eqz
                  i32.eqz
                  if
                    local.get $os
                    i32.const 1
                    i32.sub
                    local.tee $oe
                    local.set $os
                    ;; backOverChanged(group os..oe): `while (changed[start]) start--` (the flag of line start - 1).
                    block
                      loop
                        local.get $ochanged
                        local.get $os
                        i32.add
                        i32.load8_u
                        i32.eqz
                        br_if 1
                        local.get $os
                        i32.const -1
                        i32.add
                        local.set $os
                        br 0
                      end
                    end
                    i32.const 1
                    local.set $ok
                  end
                  ;; requireOk: The groups of both files out of step: a bug, never input (line_diff.ts's `broken`).
                  local.get $ok
                  i32.eqz
                  if
                    unreachable
                  end
                  br 0
                end
              end
            end
          end
        end
        ;; groupNext(group gs..ge): Group.next: ok = 0 at the last group, else the group moves to the next one.
        i32.const 0
        local.set $ok
        local.get $ge
        local.get $count
        i32.ne
        if
          local.get $ge
          i32.const 1
          i32.add
          local.tee $gs
          local.set $ge
          ;; skipChanged(changed, ge): `while (changed[i + 1]) i++`
          block
            loop
              local.get $changed
              local.get $ge
              i32.add
              i32.const 1
              i32.add
              i32.load8_u
              i32.eqz
              br_if 1
              local.get $ge
              i32.const 1
              i32.add
              local.set $ge
              br 0
            end
          end
          i32.const 1
          local.set $ok
        end
        local.get $ok
        i32.eqz
        br_if 1
        ;; groupNext(group os..oe): Group.next: ok = 0 at the last group, else the group moves to the next one.
        i32.const 0
        local.set $ok
        local.get $oe
        local.get $ocount
        i32.ne
        if
          local.get $oe
          i32.const 1
          i32.add
          local.tee $os
          local.set $oe
          ;; skipChanged(ochanged, oe): `while (changed[i + 1]) i++`
          block
            loop
              local.get $ochanged
              local.get $oe
              i32.add
              i32.const 1
              i32.add
              i32.load8_u
              i32.eqz
              br_if 1
              local.get $oe
              i32.const 1
              i32.add
              local.set $oe
              br 0
            end
          end
          i32.const 1
          local.set $ok
        end
        ;; requireOk: The groups of both files out of step: a bug, never input (line_diff.ts's `broken`).
        local.get $ok
        i32.eqz
        if
          unreachable
        end
        br 0
      end
    end
  )

  ;; xdl_split: the middle of the box (off1, lim1) × (off2, lim2) of kept lines, searched from
  ;; both corners; past xdiff's cost bounds a good snake or the furthest-reaching point stands in
  ;; for the middle. Writes [i1, i2, minLow, minHigh] at `out`.
  (func $split (export "split")
    (param $h1 i32) (param $off1 i32) (param $lim1 i32) (param $h2 i32) (param $off2 i32) (param $lim2 i32) (param $fb i32) (param $bb i32) (param $needMin i32) (param $mxcost i32) (param $out i32)
    (local $dmin i32) (local $dmax i32) (local $fmid i32) (local $bmid i32) (local $odd i32) (local $fmin i32) (local $fmax i32) (local $bmin i32) (local $bmax i32) (local $ec i32) (local $gotSnake i32) (local $d i32) (local $i1 i32) (local $i2 i32) (local $prev1 i32) (local $best i32) (local $dd i32) (local $v i32) (local $k i32) (local $fbest i32) (local $fbest1 i32) (local $bbest i32) (local $bbest1 i32)
    local.get $off1
    local.get $lim2
    i32.sub
    local.set $dmin
    local.get $lim1
    local.get $off2
    i32.sub
    local.set $dmax
    local.get $off1
    local.get $off2
    i32.sub
    local.tee $fmid
    local.tee $fmin
    local.set $fmax
    local.get $lim1
    local.get $lim2
    i32.sub
    local.tee $bmid
    local.tee $bmin
    local.set $bmax
    local.get $fmid
    local.get $bmid
    i32.sub
    i32.const 1
    i32.and
    local.set $odd
    local.get $fb
    local.get $fmid
    i32.const 2
    i32.shl
    i32.add
    local.get $off1
    i32.store
    local.get $bb
    local.get $bmid
    i32.const 2
    i32.shl
    i32.add
    local.get $lim1
    i32.store
    i32.const 1
    local.set $ec
    loop
      i32.const 0
      local.set $gotSnake
      local.get $fmin
      local.get $dmin
      i32.gt_s
      if
        local.get $fmin
        i32.const -1
        i32.add
        local.set $fmin
        local.get $fb
        local.get $fmin
        i32.const 1
        i32.sub
        i32.const 2
        i32.shl
        i32.add
        i32.const -1
        i32.store
      else
        local.get $fmin
        i32.const 1
        i32.add
        local.set $fmin
      end
      local.get $fmax
      local.get $dmax
      i32.lt_s
      if
        local.get $fmax
        i32.const 1
        i32.add
        local.set $fmax
        local.get $fb
        local.get $fmax
        i32.const 1
        i32.add
        i32.const 2
        i32.shl
        i32.add
        i32.const -1
        i32.store
      else
        local.get $fmax
        i32.const -1
        i32.add
        local.set $fmax
      end
      ;; diagonals(fmax, fmin, …): `for (d = max; d >= min; d -= 2) { body }` (body may `br` 2 levels up to leave the loop).
      local.get $fmax
      local.set $d
      block
        loop
          local.get $d
          local.get $fmin
          i32.lt_s
          br_if 1
          local.get $fb
          local.get $d
          i32.const 1
          i32.sub
          i32.const 2
          i32.shl
          i32.add
          i32.load
          local.get $fb
          local.get $d
          i32.const 1
          i32.add
          i32.const 2
          i32.shl
          i32.add
          i32.load
          i32.ge_s
          if
            local.get $fb
            local.get $d
            i32.const 1
            i32.sub
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.const 1
            i32.add
            local.set $i1
          else
            local.get $fb
            local.get $d
            i32.const 1
            i32.add
            i32.const 2
            i32.shl
            i32.add
            i32.load
            local.set $i1
          end
          local.get $i1
          local.set $prev1
          local.get $i1
          local.get $d
          i32.sub
          local.set $i2
          block
            loop
              local.get $i1
              local.get $lim1
              i32.ge_s
              br_if 1
              local.get $i2
              local.get $lim2
              i32.ge_s
              br_if 1
              local.get $h1
              local.get $i1
              i32.const 2
              i32.shl
              i32.add
              i32.load
              local.get $h2
              local.get $i2
              i32.const 2
              i32.shl
              i32.add
              i32.load
              i32.ne
              br_if 1
              local.get $i1
              i32.const 1
              i32.add
              local.set $i1
              local.get $i2
              i32.const 1
              i32.add
              local.set $i2
              br 0
            end
          end
          local.get $i1
          local.get $prev1
          i32.sub
          i32.const 20 ;; SEARCH.XDL_SNAKE_CNT
          i32.gt_s
          if
            i32.const 1
            local.set $gotSnake
          end
          local.get $fb
          local.get $d
          i32.const 2
          i32.shl
          i32.add
          local.get $i1
          i32.store
          local.get $odd
          local.get $bmin
          local.get $d
          i32.le_s
          i32.and
          local.get $d
          local.get $bmax
          i32.le_s
          i32.and
          if
            local.get $bb
            local.get $d
            i32.const 2
            i32.shl
            i32.add
            i32.load
            local.get $i1
            i32.le_s
            if
              ;; splitResult(…, …, 1, 1): split's four results at `out`, then return.
              local.get $out
              local.get $i1
              i32.store
              local.get $out
              i32.const 4
              i32.add
              local.get $i2
              i32.store
              local.get $out
              i32.const 8
              i32.add
              i32.const 1
              i32.store
              local.get $out
              i32.const 12
              i32.add
              i32.const 1
              i32.store
              return
            end
          end
          local.get $d
          i32.const -2
          i32.add
          local.set $d
          br 0
        end
      end
      local.get $bmin
      local.get $dmin
      i32.gt_s
      if
        local.get $bmin
        i32.const -1
        i32.add
        local.set $bmin
        local.get $bb
        local.get $bmin
        i32.const 1
        i32.sub
        i32.const 2
        i32.shl
        i32.add
        i32.const 0x7fffffff ;; SEARCH.XDL_LINE_MAX
        i32.store
      else
        local.get $bmin
        i32.const 1
        i32.add
        local.set $bmin
      end
      local.get $bmax
      local.get $dmax
      i32.lt_s
      if
        local.get $bmax
        i32.const 1
        i32.add
        local.set $bmax
        local.get $bb
        local.get $bmax
        i32.const 1
        i32.add
        i32.const 2
        i32.shl
        i32.add
        i32.const 0x7fffffff ;; SEARCH.XDL_LINE_MAX
        i32.store
      else
        local.get $bmax
        i32.const -1
        i32.add
        local.set $bmax
      end
      ;; diagonals(bmax, bmin, …): `for (d = max; d >= min; d -= 2) { body }` (body may `br` 2 levels up to leave the loop).
      local.get $bmax
      local.set $d
      block
        loop
          local.get $d
          local.get $bmin
          i32.lt_s
          br_if 1
          local.get $bb
          local.get $d
          i32.const 1
          i32.sub
          i32.const 2
          i32.shl
          i32.add
          i32.load
          local.get $bb
          local.get $d
          i32.const 1
          i32.add
          i32.const 2
          i32.shl
          i32.add
          i32.load
          i32.lt_s
          if
            local.get $bb
            local.get $d
            i32.const 1
            i32.sub
            i32.const 2
            i32.shl
            i32.add
            i32.load
            local.set $i1
          else
            local.get $bb
            local.get $d
            i32.const 1
            i32.add
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.const 1
            i32.sub
            local.set $i1
          end
          local.get $i1
          local.set $prev1
          local.get $i1
          local.get $d
          i32.sub
          local.set $i2
          block
            loop
              local.get $i1
              local.get $off1
              i32.le_s
              br_if 1
              local.get $i2
              local.get $off2
              i32.le_s
              br_if 1
              local.get $h1
              local.get $i1
              i32.const 1
              i32.sub
              i32.const 2
              i32.shl
              i32.add
              i32.load
              local.get $h2
              local.get $i2
              i32.const 1
              i32.sub
              i32.const 2
              i32.shl
              i32.add
              i32.load
              i32.ne
              br_if 1
              local.get $i1
              i32.const -1
              i32.add
              local.set $i1
              local.get $i2
              i32.const -1
              i32.add
              local.set $i2
              br 0
            end
          end
          local.get $prev1
          local.get $i1
          i32.sub
          i32.const 20 ;; SEARCH.XDL_SNAKE_CNT
          i32.gt_s
          if
            i32.const 1
            local.set $gotSnake
          end
          local.get $bb
          local.get $d
          i32.const 2
          i32.shl
          i32.add
          local.get $i1
          i32.store
          local.get $odd
          i32.eqz
          local.get $fmin
          local.get $d
          i32.le_s
          i32.and
          local.get $d
          local.get $fmax
          i32.le_s
          i32.and
          if
            local.get $i1
            local.get $fb
            local.get $d
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.le_s
            if
              ;; splitResult(…, …, 1, 1): split's four results at `out`, then return.
              local.get $out
              local.get $i1
              i32.store
              local.get $out
              i32.const 4
              i32.add
              local.get $i2
              i32.store
              local.get $out
              i32.const 8
              i32.add
              i32.const 1
              i32.store
              local.get $out
              i32.const 12
              i32.add
              i32.const 1
              i32.store
              return
            end
          end
          local.get $d
          i32.const -2
          i32.add
          local.set $d
          br 0
        end
      end
      local.get $needMin
      i32.eqz
      if
        local.get $gotSnake
        local.get $ec
        i32.const 256 ;; SEARCH.XDL_HEUR_MIN_COST
        i32.gt_s
        i32.and
        if
          i32.const 0
          local.set $best
          ;; diagonals(fmax, fmin, …): `for (d = max; d >= min; d -= 2) { body }` (body may `br` 2 levels up to leave the loop).
          local.get $fmax
          local.set $d
          block
            loop
              local.get $d
              local.get $fmin
              i32.lt_s
              br_if 1
              ;; distance(fmid): `|d - mid|` into dd.
              local.get $d
              local.get $fmid
              i32.sub
              local.get $fmid
              local.get $d
              i32.sub
              local.get $d
              local.get $fmid
              i32.gt_s
              select
              local.set $dd
              local.get $fb
              local.get $d
              i32.const 2
              i32.shl
              i32.add
              i32.load
              local.tee $i1
              local.get $d
              i32.sub
              local.set $i2
              local.get $i1
              local.get $off1
              i32.sub
              local.get $i2
              local.get $off2
              i32.sub
              i32.add
              local.get $dd
              i32.sub
              local.set $v
              local.get $v
              i32.const 4 ;; SEARCH.XDL_K_HEUR
              local.get $ec
              i32.mul
              i32.gt_s
              local.get $v
              local.get $best
              i32.gt_s
              i32.and
              local.get $off1
              i32.const 20 ;; SEARCH.XDL_SNAKE_CNT
              i32.add
              local.get $i1
              i32.le_s
              i32.and
              local.get $i1
              local.get $lim1
              i32.lt_s
              i32.and
              local.get $off2
              i32.const 20 ;; SEARCH.XDL_SNAKE_CNT
              i32.add
              local.get $i2
              i32.le_s
              i32.and
              local.get $i2
              local.get $lim2
              i32.lt_s
              i32.and
              if
                i32.const 1
                local.set $k
                block
                  loop
                    local.get $h1
                    local.get $i1
                    local.get $k
                    i32.sub
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    local.get $h2
                    local.get $i2
                    local.get $k
                    i32.sub
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    i32.ne
                    br_if 1
                    local.get $k
                    i32.const 20 ;; SEARCH.XDL_SNAKE_CNT
                    i32.eq
                    if
                      local.get $v
                      local.set $best
                      local.get $out
                      local.get $i1
                      i32.store
                      local.get $out
                      i32.const 4
                      i32.add
                      local.get $i2
                      i32.store
                      br 2
                    end
                    local.get $k
                    i32.const 1
                    i32.add
                    local.set $k
                    br 0
                  end
                end
              end
              local.get $d
              i32.const -2
              i32.add
              local.set $d
              br 0
            end
          end
          local.get $best
          i32.const 0
          i32.gt_s
          if
            local.get $out
            i32.const 8
            i32.add
            i32.const 1
            i32.store
            local.get $out
            i32.const 12
            i32.add
            i32.const 0
            i32.store
            return
          end
          ;; diagonals(bmax, bmin, …): `for (d = max; d >= min; d -= 2) { body }` (body may `br` 2 levels up to leave the loop).
          local.get $bmax
          local.set $d
          block
            loop
              local.get $d
              local.get $bmin
              i32.lt_s
              br_if 1
              ;; distance(bmid): `|d - mid|` into dd.
              local.get $d
              local.get $bmid
              i32.sub
              local.get $bmid
              local.get $d
              i32.sub
              local.get $d
              local.get $bmid
              i32.gt_s
              select
              local.set $dd
              local.get $bb
              local.get $d
              i32.const 2
              i32.shl
              i32.add
              i32.load
              local.tee $i1
              local.get $d
              i32.sub
              local.set $i2
              local.get $lim1
              local.get $i1
              i32.sub
              local.get $lim2
              local.get $i2
              i32.sub
              i32.add
              local.get $dd
              i32.sub
              local.set $v
              local.get $v
              i32.const 4 ;; SEARCH.XDL_K_HEUR
              local.get $ec
              i32.mul
              i32.gt_s
              local.get $v
              local.get $best
              i32.gt_s
              i32.and
              local.get $off1
              local.get $i1
              i32.lt_s
              i32.and
              local.get $i1
              local.get $lim1
              i32.const 20 ;; SEARCH.XDL_SNAKE_CNT
              i32.sub
              i32.le_s
              i32.and
              local.get $off2
              local.get $i2
              i32.lt_s
              i32.and
              local.get $i2
              local.get $lim2
              i32.const 20 ;; SEARCH.XDL_SNAKE_CNT
              i32.sub
              i32.le_s
              i32.and
              if
                i32.const 0
                local.set $k
                block
                  loop
                    local.get $h1
                    local.get $i1
                    local.get $k
                    i32.add
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    local.get $h2
                    local.get $i2
                    local.get $k
                    i32.add
                    i32.const 2
                    i32.shl
                    i32.add
                    i32.load
                    i32.ne
                    br_if 1
                    local.get $k
                    i32.const 19 ;; SEARCH.XDL_SNAKE_CNT - 1
                    i32.eq
                    if
                      local.get $v
                      local.set $best
                      local.get $out
                      local.get $i1
                      i32.store
                      local.get $out
                      i32.const 4
                      i32.add
                      local.get $i2
                      i32.store
                      br 2
                    end
                    local.get $k
                    i32.const 1
                    i32.add
                    local.set $k
                    br 0
                  end
                end
              end
              local.get $d
              i32.const -2
              i32.add
              local.set $d
              br 0
            end
          end
          local.get $best
          i32.const 0
          i32.gt_s
          if
            local.get $out
            i32.const 8
            i32.add
            i32.const 0
            i32.store
            local.get $out
            i32.const 12
            i32.add
            i32.const 1
            i32.store
            return
          end
        end
        local.get $ec
        local.get $mxcost
        i32.ge_s
        if
          i32.const -1
          local.set $fbest
          i32.const -1
          local.set $fbest1
          ;; diagonals(fmax, fmin, …): `for (d = max; d >= min; d -= 2) { body }` (body may `br` 2 levels up to leave the loop).
          local.get $fmax
          local.set $d
          block
            loop
              local.get $d
              local.get $fmin
              i32.lt_s
              br_if 1
              local.get $fb
              local.get $d
              i32.const 2
              i32.shl
              i32.add
              i32.load
              local.tee $i1
              local.get $lim1
              local.get $i1
              local.get $lim1
              i32.lt_s
              select
              local.tee $i1
              local.get $d
              i32.sub
              local.set $i2
              local.get $lim2
              local.get $i2
              i32.lt_s
              if
                local.get $lim2
                local.get $d
                i32.add
                local.set $i1
                local.get $lim2
                local.set $i2
              end
              local.get $fbest
              local.get $i1
              local.get $i2
              i32.add
              i32.lt_s
              if
                local.get $i1
                local.get $i2
                i32.add
                local.set $fbest
                local.get $i1
                local.set $fbest1
              end
              local.get $d
              i32.const -2
              i32.add
              local.set $d
              br 0
            end
          end
          i32.const 0x7fffffff ;; SEARCH.XDL_LINE_MAX
          local.set $bbest
          i32.const 0x7fffffff ;; SEARCH.XDL_LINE_MAX
          local.set $bbest1
          ;; diagonals(bmax, bmin, …): `for (d = max; d >= min; d -= 2) { body }` (body may `br` 2 levels up to leave the loop).
          local.get $bmax
          local.set $d
          block
            loop
              local.get $d
              local.get $bmin
              i32.lt_s
              br_if 1
              local.get $bb
              local.get $d
              i32.const 2
              i32.shl
              i32.add
              i32.load
              local.tee $i1
              local.get $off1
              local.get $i1
              local.get $off1
              i32.gt_s
              select
              local.tee $i1
              local.get $d
              i32.sub
              local.set $i2
              local.get $i2
              local.get $off2
              i32.lt_s
              if
                local.get $off2
                local.get $d
                i32.add
                local.set $i1
                local.get $off2
                local.set $i2
              end
              local.get $i1
              local.get $i2
              i32.add
              local.get $bbest
              i32.lt_s
              if
                local.get $i1
                local.get $i2
                i32.add
                local.set $bbest
                local.get $i1
                local.set $bbest1
              end
              local.get $d
              i32.const -2
              i32.add
              local.set $d
              br 0
            end
          end
          local.get $lim1
          local.get $lim2
          i32.add
          local.get $bbest
          i32.sub
          local.get $fbest
          local.get $off1
          local.get $off2
          i32.add
          i32.sub
          i32.lt_s
          if
            ;; splitResult(…, …, 1, 0): split's four results at `out`, then return.
            local.get $out
            local.get $fbest1
            i32.store
            local.get $out
            i32.const 4
            i32.add
            local.get $fbest
            local.get $fbest1
            i32.sub
            i32.store
            local.get $out
            i32.const 8
            i32.add
            i32.const 1
            i32.store
            local.get $out
            i32.const 12
            i32.add
            i32.const 0
            i32.store
            return
          end
          ;; splitResult(…, …, 0, 1): split's four results at `out`, then return.
          local.get $out
          local.get $bbest1
          i32.store
          local.get $out
          i32.const 4
          i32.add
          local.get $bbest
          local.get $bbest1
          i32.sub
          i32.store
          local.get $out
          i32.const 8
          i32.add
          i32.const 0
          i32.store
          local.get $out
          i32.const 12
          i32.add
          i32.const 1
          i32.store
          return
        end
      end
      local.get $ec
      i32.const 1
      i32.add
      local.set $ec
      br 0
    end
  )

  ;; xdl_recs_cmp with an explicit stack (boxes of five i32: off1, lim1, off2, lim2, needMin,
  ;; taken in the recursion's order): marks the changed kept lines (changed[kept[i] + 1] = 1).
  (func $search (export "search")
    (param $h1 i32) (param $n1 i32) (param $h2 i32) (param $n2 i32) (param $kept1 i32) (param $kept2 i32) (param $changed1 i32) (param $changed2 i32) (param $fb i32) (param $bb i32) (param $mxcost i32) (param $stack i32) (param $out i32)
    (local $sp i32) (local $off1 i32) (local $lim1 i32) (local $off2 i32) (local $lim2 i32) (local $min i32)
    local.get $stack
    local.set $sp
    ;; pushBox(…): Stores the five i32 of a box on the search stack at `sp` and moves `sp` past them.
    local.get $sp
    i32.const 0
    i32.add
    i32.const 0
    i32.store
    local.get $sp
    i32.const 4
    i32.add
    local.get $n1
    i32.store
    local.get $sp
    i32.const 8
    i32.add
    i32.const 0
    i32.store
    local.get $sp
    i32.const 12
    i32.add
    local.get $n2
    i32.store
    local.get $sp
    i32.const 16
    i32.add
    i32.const 0
    i32.store
    local.get $sp
    i32.const 20
    i32.add
    local.set $sp
    block
      loop
        local.get $sp
        local.get $stack
        i32.eq
        br_if 1
        local.get $sp
        i32.const -20
        i32.add
        local.set $sp
        local.get $sp
        i32.const 0
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.set $off1
        local.get $sp
        i32.const 1
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.set $lim1
        local.get $sp
        i32.const 2
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.set $off2
        local.get $sp
        i32.const 3
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.set $lim2
        local.get $sp
        i32.const 4
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.set $min
        block
          loop
            local.get $off1
            local.get $lim1
            i32.lt_s
            local.get $off2
            local.get $lim2
            i32.lt_s
            i32.and
            i32.eqz
            br_if 1
            local.get $h1
            local.get $off1
            i32.const 2
            i32.shl
            i32.add
            i32.load
            local.get $h2
            local.get $off2
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.ne
            br_if 1
            local.get $off1
            i32.const 1
            i32.add
            local.set $off1
            local.get $off2
            i32.const 1
            i32.add
            local.set $off2
            br 0
          end
        end
        block
          loop
            local.get $off1
            local.get $lim1
            i32.lt_s
            local.get $off2
            local.get $lim2
            i32.lt_s
            i32.and
            i32.eqz
            br_if 1
            local.get $h1
            local.get $lim1
            i32.const 1
            i32.sub
            i32.const 2
            i32.shl
            i32.add
            i32.load
            local.get $h2
            local.get $lim2
            i32.const 1
            i32.sub
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.ne
            br_if 1
            local.get $lim1
            i32.const -1
            i32.add
            local.set $lim1
            local.get $lim2
            i32.const -1
            i32.add
            local.set $lim2
            br 0
          end
        end
        local.get $off1
        local.get $lim1
        i32.eq
        if
          ;; markKept(kept2, changed2, off2, lim2): `for (; from < to; from++) changed[kept[from] + 1] = 1` (a run of kept lines only one file has).
          block
            loop
              local.get $off2
              local.get $lim2
              i32.ge_s
              br_if 1
              local.get $changed2
              local.get $kept2
              local.get $off2
              i32.const 2
              i32.shl
              i32.add
              i32.load
              i32.add
              i32.const 1
              i32.add
              i32.const 1
              i32.store8
              local.get $off2
              i32.const 1
              i32.add
              local.set $off2
              br 0
            end
          end
        else
          local.get $off2
          local.get $lim2
          i32.eq
          if
            ;; markKept(kept1, changed1, off1, lim1): `for (; from < to; from++) changed[kept[from] + 1] = 1` (a run of kept lines only one file has).
            block
              loop
                local.get $off1
                local.get $lim1
                i32.ge_s
                br_if 1
                local.get $changed1
                local.get $kept1
                local.get $off1
                i32.const 2
                i32.shl
                i32.add
                i32.load
                i32.add
                i32.const 1
                i32.add
                i32.const 1
                i32.store8
                local.get $off1
                i32.const 1
                i32.add
                local.set $off1
                br 0
              end
            end
          else
            local.get $h1
            local.get $off1
            local.get $lim1
            local.get $h2
            local.get $off2
            local.get $lim2
            local.get $fb
            local.get $bb
            local.get $min
            local.get $mxcost
            local.get $out
            call $split
            ;; pushBox(…): Stores the five i32 of a box on the search stack at `sp` and moves `sp` past them.
            local.get $sp
            i32.const 0
            i32.add
            local.get $out
            i32.const 0
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.store
            local.get $sp
            i32.const 4
            i32.add
            local.get $lim1
            i32.store
            local.get $sp
            i32.const 8
            i32.add
            local.get $out
            i32.const 1
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.store
            local.get $sp
            i32.const 12
            i32.add
            local.get $lim2
            i32.store
            local.get $sp
            i32.const 16
            i32.add
            local.get $out
            i32.const 3
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.store
            local.get $sp
            i32.const 20
            i32.add
            local.set $sp
            ;; pushBox(…): Stores the five i32 of a box on the search stack at `sp` and moves `sp` past them.
            local.get $sp
            i32.const 0
            i32.add
            local.get $off1
            i32.store
            local.get $sp
            i32.const 4
            i32.add
            local.get $out
            i32.const 0
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.store
            local.get $sp
            i32.const 8
            i32.add
            local.get $off2
            i32.store
            local.get $sp
            i32.const 12
            i32.add
            local.get $out
            i32.const 1
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.store
            local.get $sp
            i32.const 16
            i32.add
            local.get $out
            i32.const 2
            i32.const 2
            i32.shl
            i32.add
            i32.load
            i32.store
            local.get $sp
            i32.const 20
            i32.add
            local.set $sp
          end
        end
        br 0
      end
    end
  )
)
