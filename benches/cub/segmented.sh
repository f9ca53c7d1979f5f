#!/usr/bin/env bash
# CUB's segmented sorts (DeviceSegmentedSort, DeviceSegmentedRadixSort) on the inputs of
# benches/sort/segments.rs, device-resident: builds benches/cub/cub_segmented.cu with the machine's nvcc
# and runs it once, the table into $OUT/cub_segmented.txt (and the terminal), one JSON line per
# timing into $OUT/cub_segmented.jsonl (src "cub", group "segments": lines ci/report.py reads).
#   bash benches/cub/segmented.sh [n]        (n: default GPUSORT_BENCH_SEGMENTS_N, else 67108864)
# Environment: OUT (default /tmp/cubseg-out), LENGTHS (default 64,1024,262144), ARCH (default sm_90).
# Exit status 1 when the build fails or a CUB result fails its host check (that row is left out).
set -uo pipefail
OUT="${OUT:-/tmp/cubseg-out}"; mkdir -p "$OUT"
n="${1:-${GPUSORT_BENCH_SEGMENTS_N:-67108864}}"
lengths="${LENGTHS:-64,1024,262144}"
bin=/tmp/cub_segmented
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/gpu.txt"
nvcc --version | tail -1 | tee "$OUT/nvcc.txt"
if ! nvcc -O3 -std=c++17 -arch="${ARCH:-sm_90}" -o "$bin" benches/cub/cub_segmented.cu > "$OUT/build.log" 2>&1; then
  echo "cub_segmented build failed"; tail -20 "$OUT/build.log"; exit 1
fi
if [[ -s "$OUT/build.log" ]]; then echo "build output:"; cat "$OUT/build.log"; fi
"$bin" --json-file "$OUT/cub_segmented.jsonl" --lengths "$lengths" "$n" 2>&1 | tee "$OUT/cub_segmented.txt"
rc=${PIPESTATUS[0]}
echo "cub_segmented rc=$rc, $(grep -c '"group":"segments"' "$OUT/cub_segmented.jsonl" 2>/dev/null || echo 0) JSON rows" |
  tee "$OUT/summary.txt"
exit "$rc"
