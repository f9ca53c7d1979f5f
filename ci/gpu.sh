#!/usr/bin/env bash
# What a GPU runner executes.
#
#   ci/gpu.sh            on a GPU machine with cargo: build and run everything with
#                        GPUSORT_REQUIRE_GPU=1 (tests, demo, benches)
#   ci/gpu.sh bundle     on a machine with cargo (no GPU needed): build release test, bench and
#                        demo binaries into bundle/ for a GPU machine without a Rust toolchain
#   ci/gpu.sh run        on that GPU machine, from the repo root with bundle/ beside it: run the
#                        bundle (tests, demo, optional sanitizer and bench passes)
#
# Environment for `run`: OUT (logs folder, default ./gpu-logs), GPUSORT_SANITIZE=1 (add
# compute-sanitizer memcheck + racecheck passes over the GPU test binaries), GPUSORT_BENCH=<filter>
# (run the criterion bench with that filter; empty skips it), GPUSORT_DEMO_N (demo length).
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
export GPUSORT_REQUIRE_GPU=1

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
  rm -rf bundle && mkdir -p bundle
  # The test harness of each target prints its executable; keep them with their target names.
  cargo test --workspace --release --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys, shutil
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        t = m["target"]; name = (t["name"] + "-" + t["kind"][0]).replace("_", "-")
        shutil.copy(m["executable"], "bundle/test-" + name); print("bundle/test-" + name)
'
  cargo bench --bench sort --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys, shutil
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "sort":
        shutil.copy(m["executable"], "bundle/bench-sort"); print("bundle/bench-sort")
'
  cargo build --release --bin gpusort-demo
  cp target/release/gpusort-demo bundle/
  ls -la bundle
  ;;

run)
  out="${OUT:-gpu-logs}"; mkdir -p "$out"
  summary="$out/summary.txt"; : > "$summary"
  note() { echo "$*" | tee -a "$summary"; }
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
  fails=0
  for t in bundle/test-*; do
    name="$(basename "$t")"
    start=$(date +%s.%N)
    if "$t" --test-threads=4 > "$out/$name.log" 2>&1; then status=ok; else status=FAIL; fails=$((fails+1)); fi
    secs=$(python3 -c "import time;print(f'{time.time()-$start:.1f}')")
    res="$(grep -E '^test result' "$out/$name.log" | tail -1)"
    note "$(printf '%-34s %-4s %6ss  %s' "$name" "$status" "$secs" "$res")"
    [[ $status == FAIL ]] && grep -E 'panicked|FAILED|failed' "$out/$name.log" | head -5 | tee -a "$summary"
  done
  if [[ "${GPUSORT_SANITIZE:-0}" == 1 ]]; then
    for t in bundle/test-gpu-*; do
      [[ -e "$t" ]] || continue
      for tool in memcheck racecheck; do
        name="$(basename "$t")-$tool"
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$t" --test-threads=1 sanitizer_ > "$out/$name.log" 2>&1
        rc=$?; [[ $rc == 0 ]] && s=clean || { s="FAIL(rc=$rc)"; fails=$((fails+1)); }
        note "$(printf '%-34s %s  %s' "$name" "$s" "$(grep -E 'ERROR SUMMARY|test result' "$out/$name.log" | tr '\n' ' ')")"
      done
    done
  fi
  if bundle/gpusort-demo ${GPUSORT_DEMO_N:-} > "$out/demo.log" 2>&1; then note "demo: ok"; else note "demo: FAIL"; fails=$((fails+1)); fi
  sed 's/^/  /' "$out/demo.log" | tee -a "$summary"
  if [[ -n "${GPUSORT_BENCH:-}" ]]; then
    bundle/bench-sort --bench "$GPUSORT_BENCH" > "$out/bench.log" 2>&1 || note "bench: FAIL"
    grep -E '^(cpu|cuda)|time:|thrpt:' "$out/bench.log" | paste - - - 2>/dev/null | awk '{print "  " $0}' | tee -a "$summary" >/dev/null
  fi
  echo; echo "==== summary ($(date -u +%FT%TZ)) ===="; cat "$summary"
  echo "failures: $fails"
  exit $((fails > 0))
  ;;

*)
  echo "usage: ci/gpu.sh [all|bundle|run]" >&2; exit 2
  ;;
esac
