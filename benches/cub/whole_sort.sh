#!/usr/bin/env bash
# Where a whole radix sort's time goes, at the clocks the card runs at: the timed median (CUDA
# events, as the benchmark) with the memory pool keeping its memory and without
# (GPUSORT_POOL_KEEP_BYTES=0), against the device time of every kernel of one sort (ncu,
# --clock-control none --cache-control none). The difference is launch gaps, memsets and mapping.
# Environment: SIZES (default 16M,64M), TYPES (kvp,keys,pairs), KERNELS (GPUSORT_KERNELS_DIR).
# JSON rows besides the text: $OUT/timed.jsonl (the bench's radix-device records, `keep` the pool
# setting) and $OUT/kernels.jsonl (one per size and type: `kernels_us`, the sum of its kernels).
set -uo pipefail
OUT="${OUT:-/tmp/whole-out}"; mkdir -p "$OUT"
# $B holds bench-sort: the bundle's (ci/gpu.sh bundle) or `cargo bench --bench sort --no-run`'s.
B=bundle-radix; export GPUSORT_REQUIRE_GPU=1
# What bench-sort runs: the radix-device table alone (benches/sort/radix_device.rs).
export GPUSORT_BENCH_HOST=only GPUSORT_BENCH_TABLES=radix-device
SIZES="${SIZES:-16777216,67108864}"; TYPES="${TYPES:-kvp,keys,pairs}"
bench() { GPUSORT_BENCH_SIZES=$1 GPUSORT_BENCH_TYPES=$2 GPUSORT_BENCH_PATTERNS=random GPUSORT_BENCH_JSON=${3:-/dev/null} \
  timeout 300 "$B/bench-sort" 2>&1 | grep -E "^ +[0-9]+ +(kvp|keys|pairs)|panicked"; }
bench 16777216 kvp > /dev/null  # clocks up, modules loaded
for keep in 0 default; do
  if [[ $keep == 0 ]]; then export GPUSORT_POOL_KEEP_BYTES=0; else unset GPUSORT_POOL_KEEP_BYTES; fi
  rm -f /tmp/whole_rows.jsonl
  bench "$SIZES" "$TYPES" /tmp/whole_rows.jsonl | sed "s/^/timed keep=$keep /" | tee -a "$OUT/timed.txt"
  grep '"group":"radix-device"' /tmp/whole_rows.jsonl | sed "s/^{/{\"keep\":\"$keep\",/" >> "$OUT/timed.jsonl"
done
# ncu: one sort per size and type, the sixth of the bench's sorts (the first three are warm-up).
for n in ${SIZES//,/ }; do for ty in ${TYPES//,/ }; do
  per=7; [[ $ty == pairs ]] && per=8
  GPUSORT_BENCH_SIZES=$n GPUSORT_BENCH_TYPES=$ty GPUSORT_BENCH_PATTERNS=random timeout 200 ncu --clock-control none \
    --cache-control none --kernel-name regex:radix --launch-skip $((5 * per)) --launch-count $per \
    --metrics gpu__time_duration.sum "$B/bench-sort" > "$OUT/ncu_${ty}_$n.txt" 2>&1
  awk -v tag="kernels $ty $n" -v ty="$ty" -v n="$n" -v json="$OUT/kernels.jsonl" '/^  radix_/ {k=$1} /gpu__time_duration.sum/ {u=$(NF-1); v=$NF;
    if (u ~ /^ms/) v *= 1000; else if (u ~ /^ns/) v /= 1000; printf "%s %-26s %8.1f us\n", tag, k, v; s += v}
    END {printf "%s %-26s %8.1f us\n", tag, "sum", s;
      printf "{\"src\":\"ncu\",\"group\":\"radix-kernels\",\"sort\":\"%s\",\"n\":%s,\"kernels_us\":%.1f}\n", ty, n, s >> json}' \
    "$OUT/ncu_${ty}_$n.txt"
done; done | tee "$OUT/kernels.txt"
