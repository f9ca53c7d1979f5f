#!/usr/bin/env bash
# What a GPU runner executes.
#
#   ci/gpu.sh            on a GPU machine with cargo: build and run everything with
#                        GPUSORT_REQUIRE_GPU=1 (tests, demo, benches)
#   ci/gpu.sh bundle     on a machine with cargo (no GPU needed): build release test, bench and
#                        demo binaries into bundle/ for a GPU machine without a Rust toolchain
#   ci/gpu.sh run        on that GPU machine, from the repo root with bundle/ beside it: run the
#                        bundle (tests, demo, optional sanitizer and bench passes)
#   ci/gpu.sh compare    on that GPU machine: the bundle's bench binary against a reference build's
#                        (bundle-before/bench-sort.xz, built from an earlier commit), rounds
#                        alternating between the two, the radix shapes (device-resident) and the
#                        host tables at fewer sizes; $OUT/compare.md has both side by side.
#                        GPUSORT_COMPARE_ROUNDS (default 2), GPUSORT_COMPARE_PARTS (shapes,host)
#   ci/gpu.sh report     on that GPU machine: the benchmark report (ci/report.sh) with the bundle's
#                        bench binary; BENCHMARKS.md, bench.svg, bench-headline.md, raw.jsonl and
#                        report.log land in $OUT (copy the first three into docs/).
#                        GPUSORT_BENCH_HOST=only: the host tables alone, with CUB's segmented
#                        sorts and torch.topk beside them (two to three minutes)
#
# Environment for `run`: OUT (logs folder, default ./gpu-logs), GPUSORT_SANITIZE=1 (add
# compute-sanitizer memcheck + racecheck passes over the GPU test binaries), GPUSORT_BENCH=<filter>
# (run the criterion bench with that filter; empty skips it), GPUSORT_DEMO_N (demo length),
# GPUSORT_TIMINGS=1 (the bench's tuning tables, CUB, and the torch round trip; GPUSORT_TIMINGS_ONLY=<tables>
# narrows the tables and skips CUB, GPUSORT_TORCH_HOST=0 skips torch), GPUSORT_SKIP_TESTS=1 (timings only).
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
export GPUSORT_REQUIRE_GPU=1

# Sets $bin to the bundle's binaries, unpacking bundle/bin.tar.xz (only member $1 when given).
unpack_bundle() {
  if [[ -f bundle/bin.tar.xz ]]; then
    rm -rf /tmp/gpusort-bundle && mkdir -p /tmp/gpusort-bundle
    python3 -c 'import sys, tarfile
t = tarfile.open("bundle/bin.tar.xz")
t.extract(sys.argv[1], "/tmp/gpusort-bundle") if len(sys.argv) > 1 else t.extractall("/tmp/gpusort-bundle")' "$@"
    bin=/tmp/gpusort-bundle/bin
  else
    bin=bundle/bin
  fi
}

case "$mode" in
all)
  set -e
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  cargo test --workspace --release
  cargo run --release
  cargo bench --bench sort -- "${GPUSORT_BENCH:-cuda}"
  ;;

bundle)
  set -e
  rm -rf bundle && mkdir -p bundle/bin
  # The test harness of each target prints its executable; keep them with their target names.
  cargo test --workspace --release --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys, shutil
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        t = m["target"]
        if t["name"] in ("header", "images_fresh"):
            continue  # source checks: they read the checkout, and CI runs them
        name = (t["name"] + "-" + t["kind"][0]).replace("_", "-")
        shutil.copy(m["executable"], "bundle/bin/test-" + name); print("bundle/bin/test-" + name)
'
  cargo bench --bench sort --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys, shutil
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "sort":
        shutil.copy(m["executable"], "bundle/bin/bench-sort"); print("bundle/bin/bench-sort")
'
  cargo build --release --bin gpusort-demo
  cp "${CARGO_TARGET_DIR:-target}/release/gpusort-demo" bundle/bin/
  strip bundle/bin/*
  # The commit the binaries were built from: the report names it (the checkout there may differ).
  git rev-parse --short HEAD > bundle/commit
  # The binaries share most of their bytes (std, gpusort, the kernel images): one xz stream with
  # a large window stores those once, which keeps the bundle under a device call's size limit.
  tar -C bundle -cf - bin | xz -T0 -9e --lzma2=dict=192MiB > bundle/bin.tar.xz
  rm -rf bundle/bin
  ls -la bundle
  ;;

run)
  out="${OUT:-gpu-logs}"; mkdir -p "$out"
  unpack_bundle
  # Binaries rebuilt after the bundle (carried in bundle-extra/) replace the bundle's own.
  if [[ -d bundle-extra ]]; then cp bundle-extra/* "$bin"/ 2>/dev/null; chmod +x "$bin"/*; fi
  summary="$out/summary.txt"; : > "$summary"
  export GPUSORT_DEMO_BIN="$bin/gpusort-demo"  # for tests/demo.rs, built where the demo lay elsewhere
  note() { echo "$*" | tee -a "$summary"; }
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
  fails=0
  tests=("$bin"/test-*); [[ "${GPUSORT_SKIP_TESTS:-0}" == 1 ]] && tests=()
  for t in "${tests[@]}"; do
    name="$(basename "$t")"
    start=$(date +%s.%N)
    if timeout "${GPUSORT_TEST_TIMEOUT:-300}" "$t" --test-threads=4 > "$out/$name.log" 2>&1; then status=ok; else status=FAIL; fails=$((fails+1)); fi
    secs=$(python3 -c "import time;print(f'{time.time()-$start:.1f}')")
    res="$(grep -E '^test result' "$out/$name.log" | tail -1)"
    note "$(printf '%-34s %-4s %6ss  %s' "$name" "$status" "$secs" "$res")"
    [[ $status == FAIL ]] && grep -E 'panicked|FAILED|failed' "$out/$name.log" | head -5 | tee -a "$summary"
  done
  if [[ "${GPUSORT_SANITIZE:-0}" == 1 ]]; then
    for t in "$bin"/test-*; do
      "$t" --list 2>/dev/null | grep -q '^sanitizer_' || continue
      for tool in memcheck racecheck; do
        name="$(basename "$t")-$tool"
        timeout "${GPUSORT_SANITIZE_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
          "$t" --test-threads=1 --include-ignored sanitizer_ > "$out/$name.log" 2>&1
        rc=$?; [[ $rc == 0 ]] && s=clean || { s="FAIL(rc=$rc)"; fails=$((fails+1)); }
        note "$(printf '%-34s %s  %s' "$name" "$s" "$(grep -E 'ERROR SUMMARY|test result' "$out/$name.log" | tr '\n' ' ')")"
      done
    done
  fi
  if [[ "${GPUSORT_TIMINGS:-0}" == 1 ]]; then
    # The bench's tuning tables (benches/sort/host_calls.rs, radix_device.rs, networks.rs: first
    # call, crossover, pool, device-resident radix and networks), JSON rows in timings.jsonl, and
    # CUB on the same inputs, built here with the machine's nvcc, in the same run.
    # GPUSORT_TIMINGS_ONLY narrows the tables (names, space separated).
    only="${GPUSORT_TIMINGS_ONLY:-first-call crossover pool-kept radix-device networks}"
    GPUSORT_BENCH_HOST=only GPUSORT_BENCH_TABLES="${only// /,}" GPUSORT_BENCH_JSON="$out/timings.jsonl" \
      "$bin"/bench-sort > "$out/timings.log" 2>&1 || note "timings: FAIL"
    grep -vE '^(host tables: |$)' "$out/timings.log" | tee -a "$summary"
    # The PyTorch user's host round trip, in the same run as the host timings above.
    if [[ "${GPUSORT_TORCH_HOST:-1}" == 1 ]]; then
      python3 ci/report/report.py torch-host > "$out/torch-host.log" 2>&1; tee -a "$summary" < "$out/torch-host.log"
    fi
    if [[ -n "${GPUSORT_TIMINGS_ONLY:-}" ]]; then
      :  # a narrowed timing run leaves CUB out
    elif command -v nvcc >/dev/null && [[ -f benches/cub/cub_bench.cu ]]; then
      if nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/cub_bench benches/cub/cub_bench.cu > "$out/cub-build.log" 2>&1; then
        /tmp/cub_bench ${GPUSORT_BENCH_SIZES//,/ } > "$out/cub.log" 2>&1; note "CUB, same machine, same run:"; tee -a "$summary" < "$out/cub.log"
      else note "CUB harness: build failed (see cub-build.log)"; fi
    else
      note "CUB columns not measured: no nvcc on this machine"
    fi
  fi
  if "$bin"/gpusort-demo ${GPUSORT_DEMO_N:-} > "$out/demo.log" 2>&1; then note "demo: ok"; else note "demo: FAIL"; fails=$((fails+1)); fi
  sed 's/^/  /' "$out/demo.log" | tee -a "$summary"
  if [[ -n "${GPUSORT_BENCH:-}" ]]; then
    "$bin"/bench-sort --bench "$GPUSORT_BENCH" > "$out/bench.log" 2>&1 || note "bench: FAIL"
    grep -E '^(cpu|cuda)|time:|thrpt:' "$out/bench.log" | paste - - - 2>/dev/null | awk '{print "  " $0}' | tee -a "$summary" >/dev/null
  fi
  echo; echo "==== summary ($(date -u +%FT%TZ)) ===="; cat "$summary"
  echo "failures: $fails"
  exit $((fails > 0))
  ;;

report)
  out="${OUT:-gpu-logs}"; mkdir -p "$out"
  unpack_bundle bin/bench-sort  # the bench binary alone: the tests and the demo are not needed here
  # A bench binary rebuilt after the bundle (carried in bundle-extra/) replaces the bundle's own.
  if [[ -x bundle-extra/bench-sort ]]; then bin="$PWD/bundle-extra"; fi
  # The time limit keeps the whole call (benches, CUB, torch, report) under 10 minutes: the host
  # tables run first (about 100 s; they print how long they took), the criterion groups get the
  # rest of 400 s; after them CUB and torch.sort (about two minutes) and CUB's segmented sorts and
  # torch.topk (under one) fit in the three minutes left.
  [[ -f bundle/commit ]] && export GPUSORT_COMMIT="${GPUSORT_COMMIT:-$(cat bundle/commit)}"
  GPUSORT_BENCH_BIN="$bin/bench-sort" GPUSORT_REPORT_OUT="$out" GPUSORT_REPORT_LOGS="$out" GPUSORT_REPORT_FLAT=1 \
    GPUSORT_REPORT_BENCH_TIMEOUT="${GPUSORT_REPORT_BENCH_TIMEOUT:-400}" ci/report.sh
  ;;

compare)
  out="${OUT:-gpu-logs}"; mkdir -p "$out"
  unpack_bundle bin/bench-sort
  after="$bin/bench-sort"
  mkdir -p /tmp/gpusort-before && xz -dc bundle-before/bench-sort.xz > /tmp/gpusort-before/bench-sort
  chmod +x /tmp/gpusort-before/bench-sort
  before=/tmp/gpusort-before/bench-sort
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
  echo "before: $(cat bundle-before/commit 2>/dev/null)  after: $(cat bundle/commit 2>/dev/null)" | tee "$out/builds.txt"
  export GPUSORT_BENCH_FAST=1
  shapes="radix,radix-pairs,radix-keys,radix-keys-i32,radix-keys-f32,radix-keys-u64,radix-keys-f64,radix-pairs-u64,radix-desc,radix-keys-desc"
  parts="${GPUSORT_COMPARE_PARTS:-shapes,host}"
  for round in $(seq "${GPUSORT_COMPARE_ROUNDS:-2}"); do
    for build in before after; do
      b="$before"; [[ $build == after ]] && b="$after"
      data="$out/$build-$round.jsonl"
      if [[ $parts == *shapes* ]]; then
        GPUSORT_BENCH_JSON="$data" GPUSORT_BENCH_HOST=0 GPUSORT_BENCH_SHAPES="$shapes" \
          GPUSORT_BENCH_SHAPE_SIZES="${GPUSORT_COMPARE_SHAPE_SIZES:-16777216,67108864,268435456}" \
          timeout 300 "$b" --bench shapes >> "$out/compare.log" 2>&1 || echo "$build round $round shapes: rc $?"
      fi
      if [[ $parts == *host* ]]; then
        GPUSORT_BENCH_JSON="$data" GPUSORT_BENCH_HOST=only GPUSORT_BENCH_HOST_SIZES=16777216,67108864,268435456 \
          GPUSORT_BENCH_HOST_SPLIT_SIZES=67108864 GPUSORT_BENCH_HOST_LOCKED_SIZES=67108864 GPUSORT_BENCH_HOST_CPU_MAX=0 \
          GPUSORT_BENCH_OOC_N=268435456 GPUSORT_BENCH_OOC_BUDGETS=512,none \
          timeout 300 "$b" --bench >> "$out/compare.log" 2>&1 || echo "$build round $round host: rc $?"
      fi
      echo "$build round $round done at $(date -u +%T)"
    done
    # After every round, so that a run stopped by its time limit still leaves a table.
    python3 ci/report/report.py compare --before "$out"/before-*.jsonl --after "$out"/after-*.jsonl > "$out/compare.md"
  done
  cat "$out/compare.md"
  ;;

*)
  echo "usage: ci/gpu.sh [all|bundle|run|compare|report]" >&2; exit 2
  ;;
esac
