#!/usr/bin/env bash
# Tuning sweep on the device: builds radix.cu (sm_90) once per candidate in $CONFIGS, times each
# with the sort bench's radix-device table (GPUSORT_KERNELS_DIR loads the candidate, not the embedded image),
# picks the fastest at 64M (pairs + keys), runs the GPU tests and sanitizers on it, then CUB.
# Environment: CONFIGS (name|nvcc flags per line: -DSWEEP_<SET>='p.field=value;...' overrides of
# kernels-cuda/cuda/policy_radix.cuh, see tuning_sweep.cuh), SIZES, GPUSORT_BENCH_PATTERNS / _TYPES (what the
# bench times), SWEEP_SANITIZE=0, PROFILE=1 (ncu sections; PROFILE=source adds SASS-level stall
# samples) with PROFILE_NAMES, DURATIONS=1 (ncu time of every kernel of one Kvp sort per pattern)
# with DURATION_NAMES and DURATION_N, CUB_PATTERNS (none skips CUB), CUB_SIZES, BENCH_TIMEOUT.
# ncu runs with --clock-control none: the card's clocks stay as they are (with them locked to
# base clocks, kernel times read about 25% longer than at run time).
# Besides the text tables, JSON rows: $OUT/sweep.jsonl (one per candidate, size, type and pattern,
# `config` the candidate) and $OUT/cub.jsonl (CUB's).
# benches/cub/whole_sort.sh compares a whole sort's timed median with the sum of its kernels.
set -uo pipefail
OUT="${OUT:-/tmp/radix-out}"; mkdir -p "$OUT"
B=bundle-radix; export GPUSORT_REQUIRE_GPU=1
# What bench-sort runs: the radix-device table alone (benches/sort/radix_device.rs).
export GPUSORT_BENCH_HOST=only GPUSORT_BENCH_TABLES=radix-device
if [[ ! -d $B && -f bundle/bin.tar.xz ]]; then
  # From the full bundle (ci/gpu.sh bundle): the bench, the radix test binary and the library's unit tests.
  python3 -c 'import tarfile; tarfile.open("bundle/bin.tar.xz").extractall("/tmp/sweep-bundle")'
  mkdir -p $B && cp /tmp/sweep-bundle/bin/test-gpu-radix-test $B/gpu_radix && cp /tmp/sweep-bundle/bin/test-gpusort-lib $B/lib
  cp /tmp/sweep-bundle/bin/bench-sort $B/bench-sort
fi
SIZES="${SIZES:-16384,1048576,16777216,67108864}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/cub_bench benches/cub/cub_bench.cu 2> "$OUT/cub_build.log" &
best=""; best_t=1e9
# Compile every candidate at once (16 cores), then time them one after another.
while IFS='|' read -r name flags; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  mkdir -p /tmp/k_$name
  nvcc -O3 -std=c++17 -arch=sm_90 -DGPUSORT_TUNING_SWEEP $flags -Ikernels-cuda/cuda --fatbin -o /tmp/k_$name/radix.fatbin \
    kernels-cuda/cuda/radix.cu > /tmp/build_$name.log 2>&1 &
done < "${CONFIGS:-benches/cub/sweep_configs.txt}"
wait
# The first timed sort of a process runs slow (clocks ramping up): warm up once, untimed.
first=$(awk -F'|' 'NF && $1 != "" && $1 !~ /^#/ {print $1; exit}' "${CONFIGS:-benches/cub/sweep_configs.txt}")
GPUSORT_KERNELS_DIR=/tmp/k_$first GPUSORT_BENCH_SIZES=16777216 GPUSORT_BENCH_PATTERNS=random GPUSORT_BENCH_TYPES=kvp \
  timeout 60 "$B/bench-sort" > /dev/null 2>&1
while IFS='|' read -r name flags; do
  [[ -z "$name" || "$name" == \#* || ! -f /tmp/k_$name/radix.fatbin ]] && continue
  d=/tmp/k_$name
  rm -f /tmp/rows_$name.jsonl
  GPUSORT_KERNELS_DIR=$d GPUSORT_BENCH_SIZES=$SIZES GPUSORT_BENCH_JSON=/tmp/rows_$name.jsonl timeout ${BENCH_TIMEOUT:-300} \
    "$B/bench-sort" 2>&1 | grep -E "^ +[0-9]+ +(kvp|keys|pairs)|panicked" | sed "s/^/$name /" | tee -a "$OUT/sweep.txt"
  grep '"group":"radix-device"' /tmp/rows_$name.jsonl 2>/dev/null | sed "s/^{/{\"config\":\"$name\",/" >> "$OUT/sweep.jsonl"
  t=$(awk -v n=$name '$1==n && $2==67108864 {s+=$4} END {print s+0}' "$OUT/sweep.txt")
  if [[ "$t" != 0 ]] && awk -v a=$t -v b=$best_t 'BEGIN{exit !(a<b)}'; then best=$name; best_t=$t; fi
done < "${CONFIGS:-benches/cub/sweep_configs.txt}"
echo "best=$best ($best_t ms kvp+keys at 64M)" | tee -a "$OUT/summary.txt"
export GPUSORT_KERNELS_DIR=/tmp/k_$best
"$B/gpu_radix" --test-threads=1 > "$OUT/tests.log" 2>&1; echo "gpu_radix rc=$?" | tee -a "$OUT/summary.txt"
"$B/lib" radix --test-threads=1 > "$OUT/lib.log" 2>&1; echo "lib radix rc=$?" | tee -a "$OUT/summary.txt"
# SWEEP_SANITIZE=0 leaves the sanitizers to a later full run (ci/gpu.sh run with GPUSORT_SANITIZE=1).
[[ "${SWEEP_SANITIZE:-1}" == 1 ]] && for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$B/gpu_radix" sanitizer_sizes --test-threads=1 \
    > "$OUT/san_$tool.log" 2>&1; echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.log")" | tee -a "$OUT/summary.txt"
done
if [[ -n "${PROFILE:-}" ]] && command -v ncu >/dev/null; then
  # One onesweep launch of a 16M Kvp sort, for the baseline and the best candidate.
  for name in ${PROFILE_NAMES:-R0 $best}; do
    GPUSORT_KERNELS_DIR=/tmp/k_$name GPUSORT_BENCH_SIZES=16777216 timeout 150 ncu --clock-control none --kernel-name regex:onesweep_kvp \
      --launch-skip 8 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section Occupancy \
      --section LaunchStats --section MemoryWorkloadAnalysis "$B/bench-sort" > "$OUT/ncu_$name.txt" 2>&1
    grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles|Block Limit|Shared Memory Configuration|L1/TEX Hit|L2 Hit" "$OUT/ncu_$name.txt" | sed "s/^/ncu $name /" | head -40
    # Stall samples per SASS instruction (PROFILE=source): where the warps wait.
    [[ "$PROFILE" == source ]] && GPUSORT_KERNELS_DIR=/tmp/k_$name GPUSORT_BENCH_SIZES=16777216 GPUSORT_BENCH_PATTERNS=random \
      GPUSORT_BENCH_TYPES=kvp timeout 200 ncu --clock-control none --kernel-name regex:onesweep_kvp --launch-skip 8 --launch-count 1 \
      --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
      "$B/bench-sort" > "$OUT/sass_$name.csv" 2>&1
  done
fi
if [[ -n "${DURATIONS:-}" ]] && command -v ncu >/dev/null; then
  # Time of every kernel of one sort (the third of the bench's timed sorts) per key pattern, Kvp
  # at DURATION_N: which kernel a pattern slows down. ncu serializes launches; compare rows, not sums.
  for name in ${DURATION_NAMES:-R0}; do for pat in ${GPUSORT_BENCH_PATTERNS//,/ }; do
    GPUSORT_KERNELS_DIR=/tmp/k_$name GPUSORT_BENCH_SIZES=${DURATION_N:-16777216} GPUSORT_BENCH_PATTERNS=$pat \
      GPUSORT_BENCH_TYPES=kvp timeout 150 ncu --clock-control none --cache-control none --kernel-name regex:radix --launch-skip 30 --launch-count 12 \
      --metrics gpu__time_duration.sum "$B/bench-sort" > "$OUT/dur_${name}_$pat.txt" 2>&1
    awk -v tag="dur $name $pat" '/^  radix_/ {k=$1} /gpu__time_duration.sum/ {printf "%s %-28s %s %s\n", tag, k, $(NF-1), $NF}' \
      "$OUT/dur_${name}_$pat.txt" | head -12
  done; done
fi
wait
[[ "${CUB_PATTERNS:-random}" != none ]] && for pat in ${CUB_PATTERNS:-random}; do
  echo "# pattern $pat"; /tmp/cub_bench --pattern $pat ${CUB_SIZES:-16384 1048576 16777216 67108864 268435456}
  /tmp/cub_bench --json --pattern $pat ${CUB_SIZES:-16384 1048576 16777216 67108864 268435456} >> "$OUT/cub.jsonl"
done > "$OUT/cub.txt" 2>&1
cat /tmp/build_*.log > "$OUT/builds.log"
echo "==== sweep (median ms, min ms)"; cat "$OUT/sweep.txt"; cat "$OUT/cub.txt"; cat "$OUT/summary.txt"
