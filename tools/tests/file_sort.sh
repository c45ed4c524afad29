#!/usr/bin/env bash
# End-to-end tests of `radix sort`, `radix gen` and `radix check` (ctest
# cli.file.*): every kind of file, in memory and in runs + merge, and every
# error case, checking that the input is untouched and no output or
# temporary file is left behind.
#
#   file_sort.sh RADIX_BINARY SECTION WORKDIR
# SECTION: keys | records | values | external | errors | signals | commit | outputs | segments | gpus
# (gpus: --gpus 2 through radix::nccl; exits 77, skipped, without two GPUs or NCCL)
set -u -o pipefail
R=$1
SECTION=$2
W=$3
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 2
fails=0
say() { printf '%s\n' "$*"; }
bad() { say "FAIL: $*"; fails=$((fails + 1)); }

# run EXPECTED_STATUS cmd...: runs radix, checks the exit status, keeps stderr in last.err
run() {
  local want=$1
  shift
  "$R" "$@" >last.out 2>last.err
  local got=$?
  if [ "$got" != "$want" ]; then
    bad "radix $* -> exit $got, expected $want; stderr: $(cat last.err)"
    return 1
  fi
  return 0
}
# One line of stderr that names the problem.
one_line() {
  local lines
  lines=$(grep -c . last.err)
  [ "$lines" = 1 ] || bad "expected one line on stderr, got $lines: $(cat last.err)"
  grep -q -- "$1" last.err || bad "stderr does not mention '$1': $(cat last.err)"
}
# No file other than the listed ones in the work folder (temporaries included).
only_files() {
  local want got
  want=$(printf '%s\n' "$@" last.out last.err | sort -u | tr '\n' ' ')
  got=$(ls -A | sort -u | tr '\n' ' ')
  [ "$got" = "$want" ] || bad "files left: [$got], expected [$want]"
}
# sort + check + compare with the in-memory result: LAYOUT... given as arguments
sort_both_ways() {  # name, layout/order arguments...
  local name=$1
  shift
  run 0 sort "$name" -o "$name.mem" "$@" || return
  run 0 check "$name.mem" --same-as "$name" "$@" || return
  grep -q "sorted, checksum" last.out || bad "check output: $(cat last.out)"
  # 16 KiB of memory forces many runs and a merge.
  run 0 sort "$name" -o "$name.ext" --memory 16K --tmpdir . "$@" || return
  cmp -s "$name.mem" "$name.ext" || bad "in-memory and merged sorts of $name differ ($*)"
  # The merge cut into parts that threads merge side by side (cuts between equal keys must not happen).
  RADIX_CLI_MERGE_PARTS=7 run 0 sort "$name" -o "$name.ext" --memory 16K --tmpdir . "$@" || return
  cmp -s "$name.mem" "$name.ext" || bad "in-memory and 7-part merged sorts of $name differ ($*)"
  rm -f "$name.mem" "$name.ext"
}

case "$SECTION" in
keys)
  for t in u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64 u128 i128; do
    run 0 gen "k.$t" -n 20000 -t "$t" --seed 7 || continue
    sort_both_ways "k.$t" -t "$t"
    sort_both_ways "k.$t" -t "$t" --descending
  done
  run 0 gen k.f32 -n 30001 -t f32 -d bits:32 --seed 3 # NaNs, -0.0 and infinities among them
  sort_both_ways k.f32 -t f32
  sort_both_ways k.f32 -t f32 --float-order total --descending
  run 0 gen k.u64 -n 30000 -t u64 -d few-unique:7
  sort_both_ways k.u64 -t u64 --bits 3:40
  # 128-bit keys: ranges across the chunk boundary at bit 64 and over the sign bit.
  run 0 gen k.i128 -n 30000 -t i128 -d few-unique:9 --seed 4
  sort_both_ways k.i128 -t i128 --bits 60:128
  sort_both_ways k.i128 -t i128 --bits 127:128 --descending
  run 0 gen k.u128 -n 30000 -t u128 -d bits:70
  sort_both_ways k.u128 -t u128 --bits 8:72
  run 0 gen k.i32 -n 30000 -t i32 -d sorted
  sort_both_ways k.i32 -t i32
  # Sizes 0 and 1.
  : >empty.u32
  run 0 sort empty.u32 -o empty.out -t u32 && [ ! -s empty.out ] || bad "empty input"
  run 0 gen one.u16 -n 1 -t u16 && run 0 sort one.u16 -o one.out -t u16 && cmp -s one.u16 one.out || bad "one key"
  # -o naming the input: sorted in place.
  run 0 gen inplace.u32 -n 50000 -t u32 --seed 9
  cp inplace.u32 inplace.orig
  run 0 sort inplace.u32 -o inplace.u32 -t u32 --memory 64K
  run 0 check inplace.u32 -t u32 --same-as inplace.orig
  # check catches an unsorted file and a changed one.
  run 1 check inplace.orig -t u32
  grep -q "NOT SORTED" last.out || bad "check did not report the unsorted file: $(cat last.out)"
  run 0 gen other.u32 -n 50000 -t u32 --seed 10
  run 0 sort other.u32 -o other.u32 -t u32
  run 1 check other.u32 -t u32 --same-as inplace.orig
  grep -q "DIFFERENT" last.out || bad "check did not report different elements: $(cat last.out)"
  ;;
records)
  run 0 gen r100 -n 20000 --record-size 100 --key-type bytes:10 --seed 5
  sort_both_ways r100 --record-size 100 --key-type bytes:10
  sort_both_ways r100 --record-size 100 --key-type bytes:10 --descending
  run 0 gen r100f -n 20000 --record-size 100 --key-type bytes:10 -d few-unique:4
  sort_both_ways r100f --record-size 100 --key-type bytes:10 --bits 40:80
  run 0 gen r17 -n 20000 --record-size 17 --key-offset 3 --key-type u32:be -d zipf
  sort_both_ways r17 --record-size 17 --key-offset 3 --key-type u32:be
  run 0 gen r24 -n 20000 --record-size 24 --key-offset 8 --key-type f64 -d bits:64
  sort_both_ways r24 --record-size 24 --key-offset 8 --key-type f64 --descending
  run 0 gen r3 -n 20000 --record-size 3 --key-offset 1 --key-type i16:be
  sort_both_ways r3 --record-size 3 --key-offset 1 --key-type i16:be
  run 0 gen r29 -n 20000 --record-size 29 --key-offset 5 --key-type i128:be -d zipf
  sort_both_ways r29 --record-size 29 --key-offset 5 --key-type i128:be
  sort_both_ways r29 --record-size 29 --key-offset 5 --key-type i128:be --descending --bits 0:100
  run 0 gen r32 -n 20000 --record-size 32 --key-offset 8 --key-type u128 -d few-unique:50
  sort_both_ways r32 --record-size 32 --key-offset 8 --key-type u128
  run 0 gen b32 -n 20000 --key-type bytes:32 -d few-unique:100
  sort_both_ways b32 --key-type bytes:32
  # Stability: records with equal keys keep their order (payload = record number).
  run 0 gen eq -n 5000 --record-size 12 --key-offset 0 --key-type u32 -d all-equal
  run 0 sort eq -o eq.out --record-size 12 --key-type u32 --memory 8K --tmpdir .
  cmp -s eq eq.out || bad "records with equal keys changed order"
  RADIX_CLI_MERGE_PARTS=5 run 0 sort eq -o eq.out --record-size 12 --key-type u32 --memory 8K --tmpdir .
  cmp -s eq eq.out || bad "records with equal keys changed order (5-part merge)"
  ;;
values)
  run 0 gen kv.u32 -n 40000 -t u32 -d few-unique:50 --values kv.val --value-size 8
  run 0 sort kv.u32 -o kv.mem -t u32 --values kv.val --values-out kv.val.mem
  run 0 sort kv.u32 -o kv.ext -t u32 --values kv.val --values-out kv.val.ext --memory 32K
  cmp -s kv.mem kv.ext && cmp -s kv.val.mem kv.val.ext || bad "pairs: in-memory and merged sorts differ"
  RADIX_CLI_MERGE_PARTS=4 run 0 sort kv.u32 -o kv.ext -t u32 --values kv.val --values-out kv.val.ext --memory 32K
  cmp -s kv.mem kv.ext && cmp -s kv.val.mem kv.val.ext || bad "pairs: in-memory and 4-part merged sorts differ"
  run 0 check kv.mem -t u32 --values kv.val.mem
  run 0 check kv.u32 -t u32 --values kv.val --no-order
  sum_in=$(awk '{print $NF}' last.out)
  run 0 check kv.mem -t u32 --values kv.val.mem
  sum_out=$(awk '{print $NF}' last.out)
  [ "$sum_in" = "$sum_out" ] || bad "pairs checksum changed: $sum_in -> $sum_out"
  # 128-bit keys with values (the library's wide-key pairs path), descending.
  run 0 gen kv.i128 -n 30000 -t i128 -d few-unique:40 --values kv128.val
  run 0 sort kv.i128 -o kv128.mem -t i128 --values kv128.val --values-out kv128.val.mem --descending
  run 0 sort kv.i128 -o kv128.ext -t i128 --values kv128.val --values-out kv128.val.ext --descending --memory 32K
  cmp -s kv128.mem kv128.ext && cmp -s kv128.val.mem kv128.val.ext || bad "i128 pairs: in-memory and merged sorts differ"
  run 0 check kv128.mem -t i128 --descending --values kv128.val.mem
  # Values are the element numbers: with few unique keys, stability means the
  # values of equal keys increase. Checked by sorting (key, value) records.
  run 0 gen rv -n 30000 --record-size 20 --key-offset 4 --key-type i32:be -d few-unique:9 --values rv.val --value-size 3
  run 0 sort rv -o rv.mem --record-size 20 --key-offset 4 --key-type i32:be --values rv.val --values-out rv.val.mem --descending
  run 0 sort rv -o rv.ext --record-size 20 --key-offset 4 --key-type i32:be --values rv.val --values-out rv.val.ext --descending --memory 20K
  cmp -s rv.mem rv.ext && cmp -s rv.val.mem rv.val.ext || bad "records + values: in-memory and merged sorts differ"
  # The values moved with their records: record i's payload starts with i, value i is i.
  if command -v python3 >/dev/null; then
  python3 - rv.mem rv.val.mem <<'EOF' || bad "values did not move with their records"
import sys
r = open(sys.argv[1], 'rb').read(); v = open(sys.argv[2], 'rb').read()
n = len(r) // 20
for i in range(n):
    rec_no = int.from_bytes(r[i*20:i*20+3], 'little')  # payload bytes 0..3 hold the record number
    assert rec_no == int.from_bytes(v[i*3:i*3+3], 'little'), i
EOF
  else say "python3 missing: the values-moved-with-records check is skipped"; fi
  ;;
external)
  # A file 40x the memory budget: runs + merge, temporaries gone afterwards.
  run 0 gen big -n 200000 --record-size 100 --key-type bytes:10
  run 0 sort big -o big.out --record-size 100 --key-type bytes:10 --memory 512K --tmpdir . --stats
  grep -q "runs of up to" last.err || bad "expected a run + merge sort: $(cat last.err)"
  run 0 check big.out --same-as big --record-size 100 --key-type bytes:10
  only_files big big.out
  run 0 gen big.f64 -n 300000 -t f64 -d zipf
  run 0 sort big.f64 -o big.f64 -t f64 --memory 100K --descending --tmpdir .
  run 0 check big.f64 -t f64 --descending
  ;;
errors)
  run 0 gen in.u32 -n 1000 -t u32
  cp in.u32 in.orig
  head -c 1001 /dev/urandom >odd
  run 3 sort odd -o out -t u32 && one_line "not a whole number"
  run 2 sort in.u32 -o out --record-size 8 --key-offset 6 --key-type u32 && one_line "does not fit"
  run 3 sort missing -o out -t u32 && one_line "missing"
  run 2 sort in.u32 -t u32 && one_line "no output"
  run 2 sort in.u32 -o out && one_line "say what the file holds"
  run 2 sort in.u32 -o out -t u33 && one_line "u33"
  run 3 sort . -o out -t u32 && one_line "folder"
  run 3 sort in.u32 -o nodir/out -t u32 && one_line "nodir"
  run 3 sort in.u32 -o out -t u32 --values odd --values-out out.v && one_line "values"
  if [ "$(id -u)" != 0 ]; then
    cp in.u32 unreadable && chmod 000 unreadable
    run 3 sort unreadable -o out -t u32 && one_line "Permission denied"
    rm -f unreadable
  fi
  # Option values: the error names the option and the real reason.
  run 2 sort in.u32 -o out -t bytes:0 && one_line "for --type: the length L of bytes:L"
  run 2 sort in.u32 -o out --record-size -8 --key-type u32 && one_line "for --record-size: must not be negative"
  run 2 sort in.u32 -o out -t u32 --memory 1X && one_line "unknown unit 'X'"
  run 2 sort in.u32 -o out -t u32 --memory 0.1K && one_line "not a whole number"
  run 2 sort in.u32 -o out -t u32 --memory 0 && one_line "--memory"
  run 2 sort in.u32 -o out -t u32 --memory 1 && one_line "--memory 1 B is too small"
  run 0 sort in.u32 -o out -t u32 --memory 1.5G
  run 0 sort in.u32 -o out -t u32 --memory 1P
  run 0 sort in.u32 -o out -t u32 --memory 64KiB
  rm -f out
  cmp -s in.u32 in.orig || bad "the input changed"
  only_files in.u32 in.orig odd
  # Disk full (a file-size limit makes writes fail the same way): in memory and in runs.
  run 0 gen big.u64 -n 100000 -t u64
  cp big.u64 big.orig
  (ulimit -f 200 && "$R" sort big.u64 -o out -t u64 >last.out 2>last.err)
  st=$?
  [ "$st" = 3 ] || bad "disk full (in memory): exit $st; $(cat last.err)"
  one_line "file too large"
  (ulimit -f 200 && "$R" sort big.u64 -o big.u64 -t u64 --memory 64K --tmpdir . >last.out 2>last.err)
  st=$?
  [ "$st" = 3 ] || bad "disk full (runs): exit $st; $(cat last.err)"
  cmp -s big.u64 big.orig || bad "the input changed after a failed sort in place"
  only_files in.u32 in.orig odd big.u64 big.orig
  ;;
signals)
  # Killed mid-sort (TERM, INT, KILL): input intact, no output, no temporaries.
  run 0 gen sig.u64 -n 4M -t u64
  cp sig.u64 sig.orig
  for s in TERM INT KILL; do
    "$R" sort sig.u64 -o out -t u64 --memory 1M --tmpdir . >last.out 2>last.err &
    pid=$!
    sleep 0.1
    kill -s $s $pid 2>/dev/null || say "note: the sort finished before SIG$s (machine too fast for this test)"
    wait $pid
    st=$?
    msg=$(cat last.err)
    if [ -e out ]; then
      # A signal during the commit waits for it: then the output is whole and the message says so.
      if [ "$st" = 0 ] || [[ "$msg" == *"after the output was complete"* ]]; then
        run 0 check out -t u64 --same-as sig.orig
        rm -f out
      else
        bad "SIG$s: an output file was left (exit $st): $(cat last.err)"
      fi
    fi
    case $s in
    TERM) [ "$st" = 143 ] || [ "$st" = 0 ] || bad "SIGTERM: exit $st" ;;
    INT) [ "$st" = 130 ] || [ "$st" = 0 ] || bad "SIGINT: exit $st" ;;
    KILL) [ "$st" = 137 ] || [ "$st" = 0 ] || bad "SIGKILL: exit $st" ;;
    esac
    [ "$s" = KILL ] || [ "$st" = 0 ] || [[ "$msg" == *interrupted* ]] || bad "SIG$s: no message: $msg"
    cmp -s sig.u64 sig.orig || bad "SIG$s: the input changed"
    only_files sig.u64 sig.orig
  done
  # The same with -o naming the input.
  "$R" sort sig.u64 -o sig.u64 -t u64 --memory 1M --tmpdir . >last.out 2>last.err &
  pid=$!
  sleep 0.1
  kill -TERM $pid 2>/dev/null
  wait $pid
  st=$?
  if [ "$st" != 0 ]; then cmp -s sig.u64 sig.orig || bad "SIGTERM on a sort in place: the input changed"; fi
  only_files sig.u64 sig.orig
  ;;
commit)
  # Kill -9 at every step of a commit (RADIX_CLI_KILL_AT_STEP=K), for a single
  # output and for keys + values pairs: in place, into existing files, with the
  # values in another folder, and from `radix gen`. After each kill: the pair
  # is both old or both new, or a commit record says which way it goes; after
  # the next run (or `radix recover`): both old or both new and nothing left.
  mkdir -p other
  run 0 gen k0 -n 30000 -t u32 -d few-unique:300 --values v0 --value-size 8 --seed 11
  run 0 sort k0 -o k.new -t u32 --values v0 --values-out v.new
  # state KEYS VALUES: "old", "new" or "mixed" (against k0/v0 and k.new/v.new)
  state() {
    if cmp -s "$1" k0 && cmp -s "$2" v0; then echo old
    elif cmp -s "$1" k.new && cmp -s "$2" v.new; then echo new
    else echo mixed; fi
  }
  records() { ls -A "$@" 2>/dev/null | grep -c '^\.radix-commit-'; }
  # one_case NAME KEYS VALUES RECOVER_DIRS... -- SORT_ARGS...
  one_case() {
    local name=$1 kf=$2 vf=$3 dirs=() k st before after
    shift 3
    while [ "$1" != -- ]; do dirs+=("$1"); shift; done
    shift
    for k in $(seq 1 12); do
      cp k0 "$kf"; cp v0 "$vf"; chmod 640 "$kf"
      { RADIX_CLI_KILL_AT_STEP=$k "$R" "$@" >last.out 2>last.err; } 2>/dev/null  # (no "Killed" from bash)
      st=$?
      before=$(state "$kf" "$vf")
      if [ "$st" = 0 ]; then
        [ "$before" = new ] || bad "$name: finished (k=$k) but the pair is $before"
        break
      fi
      [ "$st" = 137 ] || { bad "$name k=$k: exit $st: $(cat last.err)"; break; }
      if [ "$before" = mixed ] && [ "$(records "${dirs[@]}")" = 0 ]; then
        bad "$name k=$k: keys and values do not match and no commit record says how to finish"
      fi
      # Recover through one folder only at first (the record may have a copy in each).
      if [ $((k % 2)) = 0 ]; then "$R" recover "${dirs[@]}" >last.out 2>last.err || bad "$name k=$k: recover failed"
      else "$R" recover "${dirs[-1]}" >last.out 2>last.err && "$R" recover "${dirs[@]}" >>last.out 2>&1 || bad "$name k=$k: recover failed"; fi
      after=$(state "$kf" "$vf")
      [ "$after" != mixed ] || bad "$name k=$k: after recovery the pair is mixed ($(cat last.out))"
      [ "$before" = mixed ] && [ "$after" != new ] && bad "$name k=$k: a started commit was rolled back"
      [ "$(stat -c %a "$kf")" = 640 ] || bad "$name k=$k: the keys file's mode is $(stat -c %a "$kf"), not 640"
      local left
      left=$(ls -A "${dirs[@]}" | grep -E '^\.(radix|.*\.radix-)' | tr '\n' ' ')
      [ -z "$left" ] || bad "$name k=$k: left behind: $left"
    done
    [ "$k" -gt 3 ] || bad "$name: only $k commit steps were tried"
    say "$name: killed at each of $((k - 1)) commit steps, the pair was never mixed after recovery"
  }
  one_case in-place k v . -- sort k -o k -t u32 --values v --values-out v
  cp k0 src.k && cp v0 src.v
  one_case existing out.k out.v . -- sort src.k -o out.k -t u32 --values src.v --values-out out.v
  one_case two-folders out.k other/out.v . other -- sort src.k -o out.k -t u32 --values src.v --values-out other/out.v
  one_case runs-and-merge out.k out.v . -- sort src.k -o out.k -t u32 --values src.v --values-out out.v --memory 64K --tmpdir .
  # File systems without O_TMPFILE: the temporaries have hidden names from the start.
  RADIX_CLI_NO_TMPFILE=1 one_case no-tmpfile out.k other/out.v . other -- sort src.k -o out.k -t u32 --values src.v --values-out other/out.v
  # The next sort (not only `radix recover`) completes an interrupted commit.
  cp k0 k && cp v0 v
  { RADIX_CLI_KILL_AT_STEP=5 "$R" sort k -o k -t u32 --values v --values-out v >/dev/null 2>&1; } 2>/dev/null
  [ "$(state k v)" = mixed ] || bad "kill at step 5 was expected between the two renames: $(state k v)"
  run 0 sort k0 -o unrelated -t u32
  grep -q "completed the interrupted commit" last.err || bad "the next sort did not say it completed the commit: $(cat last.err)"
  [ "$(state k v)" = new ] || bad "the next sort did not complete the interrupted commit"
  # A folder moved between the crash and the recovery: the record follows it.
  mkdir -p before && cp k0 before/k && cp v0 before/v
  { RADIX_CLI_KILL_AT_STEP=5 "$R" sort before/k -o before/k -t u32 --values before/v --values-out before/v >/dev/null 2>&1; } 2>/dev/null
  mv before after
  run 0 recover after
  [ "$(state after/k after/v)" = new ] || bad "moved folder: the pair is $(state after/k after/v) after recovery: $(cat last.out)"
  [ -z "$(ls -A after | grep radix-)" ] || bad "moved folder: left behind: $(ls -A after | grep radix-)"
  rm -rf after
  # `radix gen` commits keys and values as a pair too.
  run 0 gen g.new -n 5000 -t u64 --values gv.new --seed 3
  for k in 1 2 3 4 5 6 7; do
    run 0 gen g -n 4000 -t u32 --values gv --seed 4
    { RADIX_CLI_KILL_AT_STEP=$k "$R" gen g -n 5000 -t u64 --values gv --seed 3 >/dev/null 2>&1; } 2>/dev/null
    "$R" recover . >/dev/null
    if cmp -s g g.new; then cmp -s gv gv.new || bad "gen k=$k: new keys with old values"
    else cmp -s gv gv.new && bad "gen k=$k: old keys with new values"; fi
  done
  # A single output: old or new at every step, never a temporary left after the next run.
  run 0 sort k0 -o s.new -t u32
  for k in 1 2 3 4; do
    cp k0 s
    { RADIX_CLI_KILL_AT_STEP=$k "$R" sort s -o s -t u32 >/dev/null 2>&1; } 2>/dev/null
    cmp -s s k0 || cmp -s s s.new || bad "single output k=$k: neither old nor new"
    run 0 sort k0 -o unrelated -t u32
    [ -z "$(ls -A | grep radix-)" ] || bad "single output k=$k: temporaries left: $(ls -A | grep radix-)"
  done
  # A signal during the commit waits for it, and the message says the output is complete.
  for k in 1 2 3 4 5 6; do
    cp k0 k && cp v0 v
    RADIX_CLI_KILL_AT_STEP=$k:15 "$R" sort k -o k -t u32 --values v --values-out v >last.out 2>last.err
    st=$?
    [ "$st" = 143 ] || bad "SIGTERM at commit step $k: exit $st"
    [ "$(state k v)" = new ] || bad "SIGTERM at commit step $k: the pair is $(state k v)"
    one_line "after the output was complete"
  done
  ;;
outputs)
  run 0 gen in.u32 -n 20000 -t u32 --seed 21
  run 0 sort in.u32 -o want -t u32
  # A symbolic link: its target is replaced, the link stays a link.
  printf 'old' >target
  ln -s target link
  run 0 sort in.u32 -o link -t u32
  [ -L link ] || bad "the symbolic link was replaced by a file"
  cmp -s target want || bad "the link's target was not sorted into"
  ln -s sub/new dangling && mkdir sub
  run 0 sort in.u32 -o dangling -t u32
  [ -L dangling ] && cmp -s sub/new want || bad "a dangling link's target was not created"
  ln -s loop1 loop2 && ln -s loop2 loop1
  run 3 sort in.u32 -o loop1 -t u32 && one_line "symbolic links"
  # A FIFO with a reader: written straight into, stays a FIFO.
  mkfifo fifo
  cat fifo >from-fifo &
  reader=$!
  run 0 sort in.u32 -o fifo -t u32
  wait $reader
  [ -p fifo ] || bad "the FIFO was replaced"
  cmp -s from-fifo want || bad "the FIFO's reader did not get the sorted output"
  cat fifo >from-fifo &
  reader=$!
  run 0 gen fifo -n 1000 -t u16
  wait $reader
  [ "$(stat -c %s from-fifo)" = 2000 ] || bad "gen into a FIFO: $(stat -c %s from-fifo) bytes"
  # A reader that goes away: an error naming the output, exit 3.
  (exec 3<fifo; head -c 10 <&3 >/dev/null) &
  run 3 sort in.u32 -o fifo -t u32 && one_line "fifo"
  wait
  # A character device (made here, so only as root).
  if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null; then
    run 0 sort in.u32 -o null -t u32
    [ -c null ] || bad "the character device was replaced by a file"
    run 0 gen null -n 100 -t u32
    [ -c null ] || bad "gen replaced the character device"
    rm -f null
  else
    say "skipped: the character-device output test needs root and mknod (uid $(id -u))"
  fi
  # Modes: an in-place sort of a 0600 file keeps 0600; a replaced 0640 file keeps
  # 0640; a new file gets 0666 & ~umask.
  cp in.u32 private && chmod 600 private
  run 0 sort private -o private -t u32
  [ "$(stat -c %a private)" = 600 ] || bad "in place: 0600 became $(stat -c %a private)"
  printf 'x' >shared && chmod 640 shared
  run 0 sort in.u32 -o shared -t u32
  [ "$(stat -c %a shared)" = 640 ] || bad "replaced: 0640 became $(stat -c %a shared)"
  (umask 027 && "$R" sort in.u32 -o fresh -t u32) || bad "sort into a new file failed"
  [ "$(stat -c %a fresh)" = 640 ] || bad "new file with umask 027: mode $(stat -c %a fresh), expected 640"
  cp in.u32 tv && chmod 604 tv
  run 0 gen tv -n 100 -t u8
  [ "$(stat -c %a tv)" = 604 ] || bad "gen over a 0604 file: mode $(stat -c %a tv)"
  if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then
    cp in.u32 owned && chown nobody:"$(id -gn nobody)" owned && chmod 660 owned
    run 0 sort owned -o owned -t u32
    [ "$(stat -c %U:%a owned)" = "nobody:660" ] || bad "owner or mode not kept: $(stat -c %U:%G:%a owned)"
  else
    say "skipped: keeping another user's ownership needs root and a user 'nobody'"
  fi
  # Temporaries of processes that are gone are removed by the next run; those
  # of a live process are not.
  sleep 0 & dead=$!
  wait $dead
  sleep 30 & live=$!
  printf 'x' >".out.radix-tmp-$dead" && printf 'x' >".out.radix-tmp-$dead-abc123" && printf 'x' >".radix-run-$dead-xyz"
  printf 'x' >".out.radix-tmp-$live"
  run 0 sort in.u32 -o out -t u32
  [ ! -e ".out.radix-tmp-$dead" ] && [ ! -e ".out.radix-tmp-$dead-abc123" ] && [ ! -e ".radix-run-$dead-xyz" ] ||
    bad "temporaries of a dead process were left: $(ls -A | grep radix-)"
  grep -q "removed .*radix-tmp-$dead" last.err || bad "the removal was not reported: $(cat last.err)"
  [ -e ".out.radix-tmp-$live" ] || bad "a live process's temporary was removed"
  kill $live 2>/dev/null
  wait $live 2>/dev/null
  rm -f ".out.radix-tmp-$live"
  # The memory budget follows ulimit -v: a sort that does not fit sorts in runs.
  # The limits leave 200 MB beyond what an idle radix maps (measured on one
  # that waits to open a FIFO): too little to sort this 128 MiB file in
  # memory, enough for its threads and a budget that sorts it in runs.
  run 0 gen big.u64 -n 16M -t u64
  "$R" gen fifo -n 1 -t u8 &
  idle=$!
  sleep 0.5
  vm=$(awk '/^VmSize:/ {print $2}' /proc/$idle/status)
  data=$(awk '/^VmData:/ {print $2}' /proc/$idle/status)
  cat fifo >/dev/null
  wait $idle
  (ulimit -v $((vm + 200000)) && "$R" sort big.u64 -o big.out -t u64 --stats >last.out 2>last.err)
  st=$?
  [ "$st" = 0 ] || bad "under ulimit -v $((vm + 200000)): exit $st: $(cat last.err)"
  grep -q "runs of up to" last.err || bad "under ulimit -v: expected runs and a merge: $(cat last.err)"
  (ulimit -v $((vm + 200000)) && "$R" sort big.u64 -o big.out -t u64 --memory 1G -q >last.out 2>last.err)
  grep -q "warning: --memory 1.0 GiB is more than" last.err || bad "no warning for --memory above the limit: $(cat last.err)"
  if command -v prlimit >/dev/null; then
    prlimit --data=$(((data + 200000) * 1024)) "$R" sort big.u64 -o big.out -t u64 --stats >last.out 2>last.err ||
      bad "under RLIMIT_DATA: $(cat last.err)"
    grep -q "runs of up to" last.err || bad "under RLIMIT_DATA: expected runs and a merge: $(cat last.err)"
  else
    say "skipped: prlimit is not installed (util-linux)"
  fi
  run 0 check big.out -t u64 --same-as big.u64
  rm -f big.u64 big.out
  ;;
segments)
  # --segment-length L: each row of L elements sorted on its own, checked
  # element by element against Python's stable sort of each row (independent
  # of the library), in memory, in blocks of whole rows under a tiny
  # --memory, and with rows larger than the budget (runs + merge per row).
  # Errors: nothing written, nothing left behind, the input untouched.
  run 0 gen k.u32 -n 20000 -t u32 -d few-unique:40 --seed 3
  run 0 gen r17 -n 20000 --record-size 17 --key-offset 3 --key-type u32:be -d few-unique:60 --values r17.val --value-size 4
  cp k.u32 k.orig
  run 3 sort k.u32 -o bad.out -t u32 --segment-length 300 &&
    one_line "20000 keys are not a whole number of rows of --segment-length 300 (66 rows and 200 left over)"
  run 3 sort r17 -o bad.out --record-size 17 --key-type u32 --segment-length 7 && one_line "20000 records are not a whole number of rows"
  run 3 sort k.u32 -o bad.out -t u32 --segment-length 300 --memory 16K && one_line "not a whole number of rows"
  run 2 sort k.u32 -o bad.out -t u32 --segment-length 0 && one_line "for --segment-length: must be more than 0"
  run 2 sort k.u32 -o bad.out -t u32 --segment-length 10000 --memory 20 && one_line "--memory 20 B is too small to sort a row of 10000"
  cmp -s k.u32 k.orig || bad "the input changed"
  only_files k.u32 k.orig r17 r17.val

  # Kill -9 at every step of the commit of rows sorted in blocks, keys and
  # values into existing files of mode 640: after each kill and `radix
  # recover`, both old or both new, the mode kept, nothing left behind.
  run 0 gen sv0 -n 20000 -t u32 --seed 5
  run 0 sort k.u32 -o seg.new -t u32 --values sv0 --values-out segv.new --segment-length 100 --memory 16K
  printf 'old keys' > seg.old && printf 'old values' > segv.old
  for k in $(seq 1 12); do
    cp seg.old seg.out && cp segv.old segv.out && chmod 640 seg.out segv.out
    { RADIX_CLI_KILL_AT_STEP=$k "$R" sort k.u32 -o seg.out -t u32 --values sv0 --values-out segv.out \
        --segment-length 100 --memory 16K >last.out 2>last.err; } 2>/dev/null
    st=$?
    [ "$st" = 0 ] || [ "$st" = 137 ] || { bad "rows k=$k: exit $st: $(cat last.err)"; break; }
    "$R" recover . >last.out 2>last.err || bad "rows k=$k: recover failed"
    if cmp -s seg.out seg.old && cmp -s segv.out segv.old; then :
    elif cmp -s seg.out seg.new && cmp -s segv.out segv.new; then :
    else bad "rows k=$k: keys and values are neither both old nor both new"; fi
    [ "$(stat -c %a seg.out)" = 640 ] && [ "$(stat -c %a segv.out)" = 640 ] || bad "rows k=$k: a file's mode changed"
    left=$(ls -A | grep -E '^\.(radix|.*\.radix-)' | tr '\n' ' ')
    [ -z "$left" ] || bad "rows k=$k: left behind: $left"
    [ "$st" = 0 ] && break
  done
  cmp -s seg.out seg.new || bad "rows: the last run did not finish the sort"
  rm -f sv0 seg.new segv.new seg.old segv.old seg.out segv.out

  if ! command -v python3 >/dev/null; then
    say "skipped: the sorts of rows need python3 for their reference"
    exit 0
  fi
  # row_reference IN L ELEM_BYTES KEY_OFFSET KEY ORDER [VALUES VALUE_BYTES]:
  # writes IN.ref (and VALUES.ref). KEY is a struct format ('<I', '>h',
  # '<f', ...) or bytes:N; ORDER is asc or desc; floats in numeric order
  # (-0.0 == +0.0, NaNs last; first when descending: the reverse, stably).
  row_reference() {
    python3 - "$@" <<'EOF2'
import math, struct, sys
inp, L, eb, off, key, order = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
vals, vb = (sys.argv[7], int(sys.argv[8])) if len(sys.argv) > 7 else (None, 0)
data = open(inp, 'rb').read()
n = len(data) // eb
vdata = open(vals, 'rb').read() if vals else b''
def sort_key(i):
    if key.startswith('bytes:'):
        return data[i * eb + off:i * eb + off + int(key[6:])]
    k = struct.unpack_from(key, data, i * eb + off)[0]
    if isinstance(k, float):
        return (1, 0.0) if math.isnan(k) else (0, k)
    return k
out, vout = bytearray(), bytearray()
for r in range(0, n, L):
    for i in sorted(range(r, r + L), key=sort_key, reverse=order == 'desc'):  # stable both ways
        out += data[i * eb:(i + 1) * eb]
        vout += vdata[i * vb:(i + 1) * vb]
open(inp + '.ref', 'wb').write(out)
if vals:
    open(vals + '.ref', 'wb').write(vout)
EOF2
  }
  # rows_match NAME OUT [VALUES_OUT VALUES]: OUT equals NAME.ref (and VALUES_OUT VALUES.ref).
  rows_match() {
    cmp -s "$2" "$1.ref" || bad "$2: the rows differ from the reference ($1.ref)"
    [ $# -lt 4 ] || cmp -s "$3" "$4.ref" || bad "$3: the values differ from the reference ($4.ref)"
  }
  # plan WORDS: --stats of the last sort names that plan.
  plan() { grep -q -- "$1" last.err || bad "expected '$1' in --stats: $(cat last.err)"; }

  # u32 keys: 200 rows of 100, ascending and descending; 16K makes 16 blocks.
  for order in asc desc; do
    o=(); [ $order = desc ] && o=(--descending)
    row_reference k.u32 100 4 0 '<I' $order
    run 0 sort k.u32 -o k.mem -t u32 --segment-length 100 "${o[@]}" --stats && plan "100-element rows sorted in memory"
    rows_match k.u32 k.mem
    run 0 sort k.u32 -o k.blk -t u32 --segment-length 100 "${o[@]}" --memory 16K --stats && plan "blocks of up to"
    rows_match k.u32 k.blk
  done
  cmp -s k.u32 k.orig || bad "the input changed"
  # A bit range: only bits [4, 12) order the keys; ties keep their order.
  run 0 sort k.u32 -o k.mem -t u32 --segment-length 100 --bits 4:12
  run 0 sort k.u32 -o k.blk -t u32 --segment-length 100 --bits 4:12 --memory 16K
  cmp -s k.mem k.blk || bad "bit range: in-memory and block sorts differ"
  python3 - k.u32 k.mem <<'EOF2' || bad "bit range: a row is not the stable sort by bits 4..12"
import struct, sys
a = struct.unpack('<20000I', open(sys.argv[1], 'rb').read()); b = struct.unpack('<20000I', open(sys.argv[2], 'rb').read())
for r in range(0, 20000, 100):
    assert list(b[r:r + 100]) == sorted(a[r:r + 100], key=lambda k: (k >> 4) & 0xFF), r
EOF2

  # f32 with NaNs (both signs), infinities, -0.0 and +0.0 in every row: 40 rows of 50.
  run 0 gen f.raw -n 2000 -t f32 --seed 5
  specials='\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\xc0\x7f\x00\x00\xc0\xff\x00\x00\x80\x7f\x00\x00\x80\xff\x00\x00\x00\x80\x00\x00\x00\x00'
  for r in $(seq 0 39); do
    dd if=f.raw bs=4 skip=$((r * 21)) count=21 2>/dev/null
    printf "$specials"
    dd if=f.raw bs=4 skip=$((1000 + r * 21)) count=21 2>/dev/null
  done >f.f32
  for order in asc desc; do
    o=(); [ $order = desc ] && o=(--descending)
    row_reference f.f32 50 4 0 '<f' $order
    run 0 sort f.f32 -o f.mem -t f32 --segment-length 50 "${o[@]}"
    rows_match f.f32 f.mem
    run 0 sort f.f32 -o f.blk -t f32 --segment-length 50 "${o[@]}" --memory 2K --stats && plan "blocks of up to"
    rows_match f.f32 f.blk
  done
  # Total order on the same rows: every path agrees.
  run 0 sort f.f32 -o f.mem -t f32 --segment-length 50 --float-order total
  run 0 sort f.f32 -o f.blk -t f32 --segment-length 50 --float-order total --memory 2K
  cmp -s f.mem f.blk || bad "f32 total order: in-memory and block sorts differ"

  # Pairs: u32 keys with 8-byte values (value i = i), 100 rows of 400; and
  # i64 keys with 3-byte values, descending.
  run 0 gen kv.u32 -n 40000 -t u32 -d few-unique:50 --values kv.val --value-size 8
  row_reference kv.u32 400 4 0 '<I' asc kv.val 8
  run 0 sort kv.u32 -o kv.mem -t u32 --values kv.val --values-out kv.val.mem --segment-length 400
  rows_match kv.u32 kv.mem kv.val.mem kv.val
  run 0 sort kv.u32 -o kv.blk -t u32 --values kv.val --values-out kv.val.blk --segment-length 400 --memory 32K --stats &&
    plan "blocks of up to"
  rows_match kv.u32 kv.blk kv.val.blk kv.val
  run 0 gen kv.i64 -n 12000 -t i64 -d few-unique:30 --values kv3.val --value-size 3
  row_reference kv.i64 300 8 0 '<q' desc kv3.val 3
  run 0 sort kv.i64 -o kv3.mem -t i64 --values kv3.val --values-out kv3.val.mem --segment-length 300 --descending
  rows_match kv.i64 kv3.mem kv3.val.mem kv3.val
  run 0 sort kv.i64 -o kv3.blk -t i64 --values kv3.val --values-out kv3.val.blk --segment-length 300 --descending --memory 24K
  rows_match kv.i64 kv3.blk kv3.val.blk kv3.val

  # Records: big-endian keys inside 17-byte records, alone and with values;
  # the sort benchmarks' 100-byte records with 10-byte keys.
  row_reference r17 250 17 3 '>I' desc
  run 0 sort r17 -o r17.mem --record-size 17 --key-offset 3 --key-type u32:be --segment-length 250 --descending
  rows_match r17 r17.mem
  run 0 sort r17 -o r17.blk --record-size 17 --key-offset 3 --key-type u32:be --segment-length 250 --descending --memory 64K \
    --stats && plan "blocks of up to"
  rows_match r17 r17.blk
  row_reference r17 250 17 3 '>I' asc r17.val 4
  run 0 sort r17 -o r17.mem --record-size 17 --key-offset 3 --key-type u32:be --segment-length 250 --values r17.val \
    --values-out r17.val.mem
  rows_match r17 r17.mem r17.val.mem r17.val
  run 0 sort r17 -o r17.blk --record-size 17 --key-offset 3 --key-type u32:be --segment-length 250 --values r17.val \
    --values-out r17.val.blk --memory 64K
  rows_match r17 r17.blk r17.val.blk r17.val
  run 0 gen r100 -n 6000 --record-size 100 --key-type bytes:10 -d few-unique:500
  row_reference r100 200 100 0 bytes:10 asc
  run 0 sort r100 -o r100.mem --record-size 100 --key-type bytes:10 --segment-length 200
  rows_match r100 r100.mem
  run 0 sort r100 -o r100.blk --record-size 100 --key-type bytes:10 --segment-length 200 --memory 200K --stats &&
    plan "blocks of up to"
  rows_match r100 r100.blk

  # One row (the whole file), in memory and larger than the budget (runs +
  # merge of that row, cut into parts); L = 1 leaves the file as it is.
  row_reference k.u32 20000 4 0 '<I' asc
  run 0 sort k.u32 -o one.mem -t u32 --segment-length 20000
  rows_match k.u32 one.mem
  RADIX_CLI_MERGE_PARTS=3 run 0 sort k.u32 -o one.ext -t u32 --segment-length 20000 --memory 16K --tmpdir . --stats &&
    plan "1 row of 20000 elements, larger than the budget"
  rows_match k.u32 one.ext
  run 0 sort k.u32 -o l1 -t u32 --segment-length 1 --memory 16K
  cmp -s k.u32 l1 || bad "--segment-length 1 changed the file"
  # Several rows larger than the budget, each merged into its own place; with values.
  row_reference kv.u32 10000 4 0 '<I' asc kv.val 8
  RADIX_CLI_MERGE_PARTS=2 run 0 sort kv.u32 -o kv.ext -t u32 --values kv.val --values-out kv.val.ext --segment-length 10000 \
    --memory 32K --tmpdir . --stats && plan "4 rows of 10000 elements, larger than the budget"
  rows_match kv.u32 kv.ext kv.val.ext kv.val
  # In place (-o naming the input), in blocks.
  row_reference k.orig 100 4 0 '<I' asc
  cp k.orig inplace
  run 0 sort inplace -o inplace -t u32 --segment-length 100 --memory 16K
  rows_match k.orig inplace
  [ -z "$(ls -A | grep radix-)" ] || bad "temporaries left: $(ls -A | grep radix-)"
  ;;
gpus)
  # The same files sorted over two GPUs (--gpus 2) must equal the one-GPU / CPU result.
  run 0 gen g.u32 -n 3000001 -t u32 --seed 21 || exit 2
  "$R" sort g.u32 -o g.probe -t u32 --gpus 2 >last.out 2>last.err
  got=$?
  if [ "$got" = 3 ] && grep -q -e "visible" -e "does not have" last.err; then
    say "SKIPPED: $(cat last.err)"
    exit 77
  fi
  [ "$got" = 0 ] || bad "radix sort --gpus 2 -> exit $got: $(cat last.err)"
  rm -f g.probe
  run 0 gen g.f32 -n 1000003 -t f32 -d bits:32 --seed 22 # NaNs, -0.0 and infinities among them
  run 0 gen g.u64 -n 1000003 -t u64 -d zipf --seed 25
  run 0 gen g.i16 -n 1000003 -t i16 --seed 26
  for t in u32 u64 f32 i16; do
    run 0 sort "g.$t" -o "g.$t.one" -t "$t" --engine cpu
    run 0 sort "g.$t" -o "g.$t.two" -t "$t" --gpus 2 --stats
    cmp -s "g.$t.one" "g.$t.two" || bad "--gpus 2 and the CPU engine differ on $t"
    run 0 sort "g.$t" -o "g.$t.two" -t "$t" --gpus 2 --descending
    run 0 check "g.$t.two" -t "$t" --descending --same-as "g.$t"
  done
  # Pairs (stability shows in the values), and blocks: runs + merge under a small budget.
  run 0 gen p.u32 -n 2000000 -t u32 -d few-unique:50 --seed 23
  run 0 gen p.val -n 2000000 -t u64 --seed 24
  run 0 sort p.u32 -o p.one -t u32 --values p.val --values-out p.val.one --engine cpu
  run 0 sort p.u32 -o p.two -t u32 --values p.val --values-out p.val.two --gpus 2 --memory 4M --tmpdir .
  cmp -s p.one p.two && cmp -s p.val.one p.val.two || bad "--gpus 2 pairs in runs differ from the CPU engine's"
  [ -z "$(ls -A | grep radix-)" ] || bad "temporaries left: $(ls -A | grep radix-)"
  ;;
*)
  say "unknown section $SECTION"
  exit 2
  ;;
esac

if [ "$fails" != 0 ]; then
  say "$fails failure(s) in section $SECTION"
  exit 1
fi
say "section $SECTION: all good"
