#!/usr/bin/env bash
# One device call: GPU tests of the radix sort, sanitizers on small/medium sizes, then our timings
# and CUB's on the same inputs. Expects the test executables and the bench in bundle-radix/ (built
# on the development machine: cargo test --release --no-run --test gpu_radix --lib, and
# cargo bench --bench sort --no-run, copied as gpu_radix, lib and bench-sort).
#   bash benches/cub/run_device.sh [tests] [sanitize] [bench] [floor]   (default: the first three)
# bench: the sort bench's radix-device table; $OUT/ours.jsonl has its JSON rows, $OUT/cub.jsonl CUB's.
# floor: benches/probe/radix_floor.cu, a pass's memory traffic without the ranking (docs/tuning.md).
set -uo pipefail
OUT="${OUT:-/tmp/radix-out}"; mkdir -p "$OUT"
steps="${*:-tests sanitize bench}"
steps=" $steps "
B=bundle-radix
export GPUSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/gpu.txt"
if [[ -n "${RADIX_KERNELS_NVCC:-}" ]]; then
  # Kernel iteration without a Rust rebuild: compile radix.cu here and load it instead.
  mkdir -p /tmp/k && nvcc -O3 -std=c++17 -arch=sm_90 -DGPUSORT_TUNING_SWEEP $RADIX_KERNELS_NVCC -Ikernels-cuda/cuda --fatbin \
    -o /tmp/k/radix.fatbin kernels-cuda/cuda/radix.cu && export GPUSORT_KERNELS_DIR=/tmp/k
fi
if [[ "$steps" == *" tests "* ]]; then
  (time "$B/gpu_radix" --test-threads=1) > "$OUT/tests.log" 2>&1; echo "gpu_radix rc=$?" | tee -a "$OUT/summary.txt"
  (time "$B/lib" radix --test-threads=1) > "$OUT/lib.log" 2>&1; echo "lib radix rc=$?" | tee -a "$OUT/summary.txt"
  grep -E "test result|panicked|FAILED" "$OUT/tests.log" "$OUT/lib.log" | head -20
fi
if [[ "$steps" == *" sanitize "* ]]; then
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 "$B/gpu_radix" sanitizer_sizes --test-threads=1 \
      > "$OUT/san_$tool.log" 2>&1; echo "sanitizer $tool rc=$?" | tee -a "$OUT/summary.txt"
    tail -3 "$OUT/san_$tool.log"
  done
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu_radix" sanitizer_large_sets \
    --test-threads=1 > "$OUT/san_memcheck_large.log" 2>&1; echo "sanitizer memcheck large sets rc=$?" | tee -a "$OUT/summary.txt"
  tail -3 "$OUT/san_memcheck_large.log"
fi
if [[ "$steps" == *" bench "* ]]; then
  nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/cub_bench benches/cub/cub_bench.cu 2> "$OUT/cub_build.log" ||
    { echo "cub build failed"; tail "$OUT/cub_build.log"; }
  GPUSORT_BENCH_HOST=only GPUSORT_BENCH_TABLES=radix-device GPUSORT_BENCH_JSON="$OUT/ours.jsonl" "$B/bench-sort" \
    > "$OUT/ours.txt" 2>&1
  sizes="${GPUSORT_BENCH_SIZES:-16384,1048576,16777216,67108864,268435456}"; /tmp/cub_bench ${sizes//,/ } > "$OUT/cub.txt" 2>&1
  /tmp/cub_bench --json ${sizes//,/ } > "$OUT/cub.jsonl" 2>&1
  grep -vE "^(host tables|$)" "$OUT/ours.txt"; cat "$OUT/cub.txt"
fi
if [[ "$steps" == *" floor "* ]]; then
  nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/radix_floor benches/probe/radix_floor.cu 2> "$OUT/floor_build.log" ||
    { echo "floor build failed"; tail "$OUT/floor_build.log"; }
  /tmp/radix_floor ${FLOOR_SIZES:-67108864 268435456} | tee "$OUT/floor.txt"
fi
cat "$OUT/summary.txt"
