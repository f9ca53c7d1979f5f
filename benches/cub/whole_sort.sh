#!/usr/bin/env bash
# Where a whole radix sort's time goes, at the clocks the card runs at: the timed median (CUDA
# events, as the benchmark) with the memory pool keeping its memory and without
# (GPUSORT_POOL_KEEP_BYTES=0), against the device time of every kernel of one sort (ncu,
# --clock-control none --cache-control none). The difference is launch gaps, memsets and mapping.
# Environment: SIZES (default 16M,64M), TYPES (kvp,keys,pairs), KERNELS (GPUSORT_KERNELS_DIR).
set -uo pipefail
OUT="${OUT:-/tmp/whole-out}"; mkdir -p "$OUT"
B=bundle-radix; export GPUSORT_REQUIRE_GPU=1
SIZES="${SIZES:-16777216,67108864}"; TYPES="${TYPES:-kvp,keys,pairs}"
bench() { GPUSORT_BENCH_SIZES=$1 GPUSORT_BENCH_TYPES=$2 GPUSORT_BENCH_PATTERNS=random timeout 300 "$B/gpu_radix" \
  bench_device_radix --ignored --nocapture --test-threads=1 2>&1 | grep -E "^ +[0-9]+ +(kvp|keys|pairs)|panicked"; }
bench 16777216 kvp > /dev/null  # clocks up, modules loaded
for keep in 0 default; do
  if [[ $keep == 0 ]]; then export GPUSORT_POOL_KEEP_BYTES=0; else unset GPUSORT_POOL_KEEP_BYTES; fi
  bench "$SIZES" "$TYPES" | sed "s/^/timed keep=$keep /" | tee -a "$OUT/timed.txt"
done
# ncu: one sort per size and type, the sixth of the bench's sorts (the first three are warm-up).
for n in ${SIZES//,/ }; do for ty in ${TYPES//,/ }; do
  per=7; [[ $ty == pairs ]] && per=8
  GPUSORT_BENCH_SIZES=$n GPUSORT_BENCH_TYPES=$ty GPUSORT_BENCH_PATTERNS=random timeout 200 ncu --clock-control none \
    --cache-control none --kernel-name regex:radix --launch-skip $((5 * per)) --launch-count $per \
    --metrics gpu__time_duration.sum "$B/gpu_radix" bench_device_radix --ignored --nocapture --test-threads=1 \
    > "$OUT/ncu_${ty}_$n.txt" 2>&1
  awk -v tag="kernels $ty $n" '/^  radix_/ {k=$1} /gpu__time_duration.sum/ {u=$(NF-1); v=$NF;
    if (u ~ /^ms/) v *= 1000; else if (u ~ /^ns/) v /= 1000; printf "%s %-26s %8.1f us\n", tag, k, v; s += v}
    END {printf "%s %-26s %8.1f us\n", tag, "sum", s}' \
    "$OUT/ncu_${ty}_$n.txt"
done; done | tee "$OUT/kernels.txt"
