#!/usr/bin/env bash
# The external-sort benchmark: a file of records larger than the memory budget, sorted by
# `gpusort sort` inside a memory cgroup of the budget plus 1 GiB (so neither the process nor its
# page cache holds the file), against the disk floor (two reads and two writes at the sequential
# rates `fio --direct=1` measures here, now) and GNU sort in the same cgroup.
#
#   ci/file_bench.sh BIN DIR [SIZE_GB] [BUDGET] [SHAPE]
#
# BIN: a release `gpusort` binary; DIR: a folder on the disk to measure (it needs about twice
# SIZE_GB free); SHAPE: `ascii` (100-byte lines, 10-byte keys, GNU sort beside it) or `u64`
# (16-byte records: a little-endian u64 key and a u64 payload). Prints a table; writes
# DIR/file_bench.jsonl. Needs root (cgroups), fio, and numpy in $PYTHON (default python3).
set -euo pipefail
BIN=$(realpath "$1"); DIR=$2; SIZE_GB=${3:-20}; BUDGET=${4:-3G}; SHAPE=${5:-ascii}
HERE=$(dirname "$(realpath "$0")")
mkdir -p "$DIR"; DIR=$(realpath "$DIR"); OUTJ=$DIR/file_bench.jsonl; : > "$OUTJ"
case $SHAPE in
  ascii) RECORD=100; KEY=(--key 0:10); GEN=(--ascii) ;;
  u64) RECORD=16; KEY=(--key 0:8 --key-type u64); GEN=() ;;
  *) echo "unknown shape $SHAPE" >&2; exit 2 ;;
esac
bytes() { python3 -c "import sys; s=sys.argv[1].upper(); m={'K':10,'M':20,'G':30,'T':40}; print(int(s[:-1])<<m[s[-1]] if s[-1] in m else int(s))" "$1"; }
BUDGET_B=$(bytes "$BUDGET"); LIMIT_B=$((BUDGET_B + (1 << 30)))
COUNT=$(( SIZE_GB * 1000000000 / RECORD ))

# The cgroup (v2 if mounted so, else v1's memory controller).
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
  CG=/sys/fs/cgroup/gpusort-bench; mkdir -p "$CG"; echo "$LIMIT_B" > "$CG/memory.max"; echo 0 > "$CG/memory.swap.max" 2>/dev/null || true
else
  CG=/sys/fs/cgroup/memory/gpusort-bench; mkdir -p "$CG"; echo "$LIMIT_B" > "$CG/memory.limit_in_bytes"
fi
in_cgroup() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" "$@"; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
now() { date +%s.%N; }
log() { echo "$1" >> "$OUTJ"; echo "$1" >&2; }

# The disk's sequential rates, direct I/O, 1 MiB blocks: fio, or dd where fio is not installed.
fio_rate() {
  fio --name=floor --filename="$DIR/fio.tmp" --size=4G --bs=1M --direct=1 --ioengine=libaio --iodepth=8 \
      --rw="$1" --runtime=20 --time_based --output-format=json 2>/dev/null |
    python3 -c "import json,sys; j=json.load(sys.stdin)['jobs'][0]; print(j['$1']['bw_bytes'])"
}
dd_rate() {
  local t0 t1; t0=$(now)
  if [ "$1" = write ]; then dd if=/dev/zero of="$DIR/fio.tmp" bs=1M count=4096 oflag=direct status=none
  else dd if="$DIR/fio.tmp" of=/dev/null bs=1M iflag=direct status=none; fi
  t1=$(now); python3 -c "print(int(4096 * 2**20 / ($t1 - $t0)))"
}
if command -v fio >/dev/null; then
  RATE_TOOL=fio
  fio --name=prep --filename="$DIR/fio.tmp" --size=4G --bs=1M --rw=write --direct=1 >/dev/null 2>&1
  READ_BPS=$(fio_rate read); WRITE_BPS=$(fio_rate write)
else
  RATE_TOOL=dd
  WRITE_BPS=$(dd_rate write); READ_BPS=$(dd_rate read)
fi
rm -f "$DIR/fio.tmp"
SIZE_B=$((COUNT * RECORD))
FLOOR=$(python3 -c "print(2*$SIZE_B/$READ_BPS + 2*$SIZE_B/$WRITE_BPS)")
log "{\"what\":\"setup\",\"host\":\"$(hostname)\",\"cores\":$(nproc),\"ram_bytes\":$(awk '/MemTotal/ {print $2 * 1024}' /proc/meminfo),\"shape\":\"$SHAPE\",\"record\":$RECORD,\"budget\":$BUDGET_B,\"cgroup_limit\":$LIMIT_B,\"gpu\":\"$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)\"}"
log "{\"what\":\"disk\",\"tool\":\"$RATE_TOOL\",\"read_bps\":$READ_BPS,\"write_bps\":$WRITE_BPS,\"bytes\":$SIZE_B,\"floor_s\":$FLOOR}"

"$BIN" generate --record "$RECORD" "${GEN[@]}" "$COUNT" "$DIR/input"
SUM_IN=$("${PYTHON:-python3}" "$HERE/file_checksum.py" "$DIR/input" "$RECORD")

drop_caches
T0=$(now)
REPORT=$(in_cgroup "$BIN" sort --record "$RECORD" "${KEY[@]}" --memory-limit "$BUDGET" --quiet --report "$DIR/input" "$DIR/output")
T1=$(now)
GPUSORT_S=$(python3 -c "print($T1 - $T0)")
"$BIN" check --record "$RECORD" "${KEY[@]}" "$DIR/output" > "$DIR/check.txt"
SUM_OUT=$("${PYTHON:-python3}" "$HERE/file_checksum.py" "$DIR/output" "$RECORD")
[ "$SUM_IN" = "$SUM_OUT" ] || { echo "checksums differ: $SUM_IN $SUM_OUT" >&2; exit 1; }
rm -f "$DIR/output"
FIELDS=$(echo "$REPORT" | python3 -c "import json,sys; print(','.join('\"%s\":%s' % (k, v if v[0].isdigit() else json.dumps(v)) for k, v in (kv.split('=') for kv in sys.stdin.read().split())))")
log "{\"what\":\"gpusort\",\"wall_s\":$GPUSORT_S,\"checked\":\"$(cat "$DIR/check.txt")\",$FIELDS}"

GNU_S=null
if [ "$SHAPE" = ascii ]; then
  # GNU sort writes to /dev/null: the disk holds its temporary files beside the input, not a
  # third copy; it is spared its final write.
  drop_caches
  T0=$(now)
  in_cgroup env LC_ALL=C sort -k1.1,1.10 -S "$BUDGET" --parallel="$(nproc)" -T "$DIR" -o /dev/null "$DIR/input"
  T1=$(now)
  GNU_S=$(python3 -c "print($T1 - $T0)")
  log "{\"what\":\"gnu_sort\",\"wall_s\":$GNU_S,\"output\":\"/dev/null\"}"
fi
rm -f "$DIR/input"

python3 "$HERE/report/report_file.py" "$OUTJ"
