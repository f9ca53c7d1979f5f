#!/usr/bin/env bash
# Tuning sweep of the sorting networks on the device (run through the `run` tool, from the repo
# root): builds network.cu (sm_90) once per candidate of $CONFIGS ("name|nvcc flags|environment"
# lines, the flags e.g. -DSWEEP_NET=p.threads=512;p.oe_col_bits=4: tuning_network_sweep.cuh
# overrides of policy_network.cuh; the environment optional: e.g. GPUSORT_OVERLAP_LAUNCHES=0), times
# each with the sort bench's `networks` table (benches/sort/networks.rs; GPUSORT_KERNELS_DIR loads
# the candidate; the image carries its own tuning, so no Rust rebuild), and optionally the committed
# image through an older bench binary ($B/bench-sort_base). Then the network tests and
# compute-sanitizer on $CHECK (a name, or auto: the candidate with the least sum of time / issue
# target over 1M, 16M and 64M, both networks). $B holds the gpu_network test executable
# (cargo test --release --test gpu_network --no-run) and bench-sort (cargo bench --bench sort --no-run).
# Besides the text table ($OUT/sweep.txt), $OUT/sweep.jsonl: one JSON row per candidate, size and
# network (`config` the candidate).
#   B=bundle-net SIZES=1048576,16777216 BIG_NAMES="base c3" CHECK=auto EXTRA_SIZES=1000000 benches/net/sweep.sh
set -uo pipefail
OUT="${OUT:-/tmp/net-out}"; mkdir -p "$OUT"
B="${B:-bundle-net}"; export GPUSORT_REQUIRE_GPU=1
# What bench-sort runs: the networks table alone.
export GPUSORT_BENCH_HOST=only GPUSORT_BENCH_TABLES=networks
SIZES="${SIZES:-1048576,16777216,67108864}"
CONFIGS="${CONFIGS:-benches/net/configs.txt}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
while IFS='|' read -r name flags _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  mkdir -p /tmp/k_$name
  nvcc -O3 -std=c++17 -lineinfo -arch=sm_90 -Xptxas=-warn-spills -DGPUSORT_TUNING_SWEEP $flags -Ikernels-cuda/cuda --fatbin \
    -o /tmp/k_$name/network.fatbin kernels-cuda/cuda/network.cu > /tmp/build_$name.log 2>&1 &
done < "$CONFIGS"
wait
for f in /tmp/build_*.log; do [[ -s $f ]] && { echo "== $f"; cat "$f"; }; done > "$OUT/builds.log"
grep -h "spill" "$OUT/builds.log" | sort | uniq -c | head -5
timing() {  # name, then the environment to run with
  local name=$1; shift
  rm -f /tmp/rows_$name.jsonl
  env "$@" GPUSORT_NET_SIZES=$SIZES GPUSORT_BENCH_JSON=/tmp/rows_$name.jsonl timeout 150 "$B/bench-sort${SUFFIX:-}" \
    2>&1 | grep -E "^\| [0-9]|panicked|rror" | sed "s/^/$name /" | tee -a "$OUT/sweep.txt"
  grep '"group":"networks"' /tmp/rows_$name.jsonl 2>/dev/null | sed "s/^{/{\"config\":\"$name\",/" >> "$OUT/sweep.jsonl"
}
if [[ -n "${CHECK:-}" && "${CHECK_FIRST:-0}" == 1 ]]; then
  GPUSORT_KERNELS_DIR=/tmp/k_$CHECK timeout 240 "$B/gpu_network" --test-threads=2 > "$OUT/tests.log" 2>&1
  echo "tests $CHECK rc=$? $(grep -E '^test result' "$OUT/tests.log")" | tee -a "$OUT/summary.txt"
fi
[[ -x "$B/bench-sort_base" ]] && SUFFIX=_base timing committed
while IFS='|' read -r name flags envs; do
  [[ -z "$name" || "$name" == \#* || ! -f /tmp/k_$name/network.fatbin ]] && continue
  # shellcheck disable=SC2086 # envs: space-separated assignments
  timing "$name" GPUSORT_KERNELS_DIR=/tmp/k_$name $envs
done < "$CONFIGS"
# BIG_NAMES: the candidates also timed at BIG_SIZES (large sizes cost seconds of CPU validation each).
if [[ -n "${BIG_NAMES:-}" ]]; then
  SIZES=${BIG_SIZES:-67108864}
  for name in $BIG_NAMES; do
    if [[ $name == committed ]]; then SUFFIX=_base timing committed; else timing "$name" GPUSORT_KERNELS_DIR=/tmp/k_$name; fi
  done
fi
if [[ -n "${PROFILE:-}" ]] && command -v ncu > /dev/null; then
  # Per-kernel device time of one sort (the fifth), PROFILE="name network launches n; ...".
  IFS=';' read -ra profiles <<< "$PROFILE"
  for p in "${profiles[@]}"; do
    read -r pname pnet plaunch pn <<< "$p"
    GPUSORT_KERNELS_DIR=/tmp/k_$pname GPUSORT_NET_SIZES=$pn timeout 120 ncu --clock-control none \
      --kernel-name regex:net_$pnet --launch-skip $((4 * plaunch)) --launch-count $plaunch \
      --metrics gpu__time_duration.sum "$B/bench-sort" > "$OUT/ncu_${pname}_$pnet.txt" 2>&1
    awk -v tag="ncu $pname $pn" '/^  net_/ {k=$1} /gpu__time_duration.sum/ {printf "%s %-28s %s %s\n", tag, k, $(NF-1), $NF}' \
      "$OUT/ncu_${pname}_$pnet.txt" | tee -a "$OUT/ncu.txt"
  done
fi
if [[ "${CHECK:-}" == auto ]]; then
  # The candidate timed at every size with the least sum of time / issue target (both networks).
  CHECK=$(awk -F'|' '$1 !~ /^committed/ {
      name=$1; gsub(/ /, "", name); n=$2+0; alg=$3; gsub(/ /, "", alg); ms=$4+0
      tgt = (alg == "Bitonic") ? (n <= 1048576 ? 0.14 : n <= 16777216 ? 3.2 : 15) : (n <= 1048576 ? 0.26 : n <= 16777216 ? 5.5 : 25)
      score[name] += ms / tgt; cnt[name]++ }
    END { best=""; for (k in score) if (cnt[k] == 6 && (best == "" || score[k] < score[best])) best=k; print best }' "$OUT/sweep.txt")
  echo "winner $CHECK" | tee -a "$OUT/summary.txt"
  [[ -n "${EXTRA_SIZES:-}" ]] && SIZES=$EXTRA_SIZES timing "$CHECK" GPUSORT_KERNELS_DIR=/tmp/k_$CHECK
fi
if [[ -n "${CHECK:-}" ]]; then
  export GPUSORT_KERNELS_DIR=/tmp/k_$CHECK
  if [[ "${CHECK_FIRST:-0}" != 1 ]]; then
    timeout 240 "$B/gpu_network" --test-threads=2 > "$OUT/tests.log" 2>&1
    echo "tests $CHECK rc=$? $(grep -E '^test result' "$OUT/tests.log")" | tee -a "$OUT/summary.txt"
  fi
  [[ -x "$B/lib" ]] && { "$B/lib" network > "$OUT/lib.log" 2>&1; echo "lib network rc=$?" | tee -a "$OUT/summary.txt"; }
  [[ "${SANITIZE:-1}" == 1 ]] && for tool in memcheck racecheck; do
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$B/gpu_network" sanitizer_sizes --ignored \
      --test-threads=1 > "$OUT/san_$tool.log" 2>&1
    echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.log")" | tee -a "$OUT/summary.txt"
  done
fi
echo "==== median ms (name | n | network | ms)"; cat "$OUT/sweep.txt"; cat "$OUT/summary.txt" 2>/dev/null
