#!/usr/bin/env bash
# The benchmark report, in one command.
#
#   ci/report.sh         on a machine with a CUDA GPU and cargo: benches every GPU sort (device-
#                        resident and host to host, six input patterns; the host tables against
#                        the PCIe floor and out of core), CUB (built with nvcc, if present) and
#                        torch.sort (if importable) on the same inputs, and writes docs/BENCHMARKS.md,
#                        docs/bench.svg and docs/bench-headline.md
#   ci/report.sh --cpu   on any machine: gpusort's CPU backend against std, rayon, voracious and
#                        rdst; writes docs/BENCHMARKS-cpu.md
#
# About 6 minutes on an H200 with 16 cores (GPU; the host tables about one), 5-10 minutes on 2
# cores (--cpu). Environment, all optional:
#   GPUSORT_REPORT_OUT    where the report files go (default: the repository root)
#   GPUSORT_REPORT_FLAT=1 write the report, bench.svg and bench-headline.md into the output directory itself, not into its docs/
#   GPUSORT_REPORT_LOGS   raw measurements (raw.jsonl) and the log (report.log); default target/report
#   GPUSORT_REPORT_TORCH=0  skip the torch column
#   GPUSORT_REPORT_BENCH_TIMEOUT  seconds the gpusort benches may run; the report shows what they
#                         measured by then (default: no limit; ci/gpu.sh report sets 460)
#   GPUSORT_BENCH_BIN     a prebuilt `benches/sort/` executable, so no cargo is needed
#                         (ci/gpu.sh report uses the bundle's)
#   GPUSORT_COMMIT        what to print as the gpusort version (default: git rev-parse HEAD)
#   GPUSORT_BENCH_FAST    1 (default here): short criterion warm-up and measurement
#   size lists (comma-separated, empty for none), as benches/sort/ reads them:
#   GPUSORT_BENCH_SIZES, GPUSORT_BENCH_PATTERN_SIZES, GPUSORT_BENCH_RADIX_EXTRA, GPUSORT_BENCH_SHAPE_SIZES,
#   GPUSORT_BENCH_CPU_SIZES, GPUSORT_BENCH_CPU_PATTERN_SIZES; GPUSORT_BENCH_CPU_SORTS (the GPU
#   report runs only the fastest CPU sorts, for its GPU-vs-CPU column)
#   GPUSORT_BENCH_HOST=only  the host tables alone (no criterion groups, CUB or torch: a minute);
#                         =0 leaves them out; their sizes and budgets: GPUSORT_BENCH_HOST_* and
#                         GPUSORT_BENCH_OOC_*, listed at the top of benches/sort/main.rs
set -uo pipefail
cd "$(dirname "$0")/.."
mode=gpu
case "${1:-}" in
  --cpu) mode=cpu ;;
  "") ;;
  *) echo "usage: ci/report.sh [--cpu]" >&2; exit 2 ;;
esac
out="${GPUSORT_REPORT_OUT:-.}"
logs="${GPUSORT_REPORT_LOGS:-target/report}"
mkdir -p "$out" "$logs"
data="$logs/raw.jsonl"; : > "$data"
log="$logs/report.log"; : > "$log"
t0=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
fact() { python3 -c 'import json,sys; print(json.dumps({"src": "machine", "key": sys.argv[1], "text": sys.argv[2]}))' "$1" "$2" >> "$data"; }

# The sizes, decided here so the bench, CUB and torch all get the same lists.
seed_sizes=$(python3 -c 'print(",".join(str(1 << b) for b in range(14, 27)))')
export GPUSORT_BENCH_SIZES="${GPUSORT_BENCH_SIZES-$seed_sizes}"
export GPUSORT_BENCH_PATTERN_SIZES="${GPUSORT_BENCH_PATTERN_SIZES-1048576,16777216,67108864}"
export GPUSORT_BENCH_RADIX_EXTRA="${GPUSORT_BENCH_RADIX_EXTRA-268435456}"
export GPUSORT_BENCH_SHAPE_SIZES="${GPUSORT_BENCH_SHAPE_SIZES-16384,1048576,16777216,67108864,268435456}"
if [[ $mode == gpu ]]; then
  # A few CPU rows for the host-to-host table's "GPU vs CPU backend" column; --cpu does the rest.
  export GPUSORT_BENCH_CPU_SIZES="${GPUSORT_BENCH_CPU_SIZES-1048576,16777216}"
  export GPUSORT_BENCH_CPU_PATTERN_SIZES="${GPUSORT_BENCH_CPU_PATTERN_SIZES-}"
  export GPUSORT_BENCH_CPU_SORTS="${GPUSORT_BENCH_CPU_SORTS-gpusort,rayon-unstable,rdst}"
  filter=""
else
  export GPUSORT_BENCH_CPU_SIZES="${GPUSORT_BENCH_CPU_SIZES-16384,1048576,16777216}"
  export GPUSORT_BENCH_CPU_PATTERN_SIZES="${GPUSORT_BENCH_CPU_PATTERN_SIZES-1048576}"
  filter="cpu/"
fi
export GPUSORT_BENCH_FAST="${GPUSORT_BENCH_FAST:-1}"
export GPUSORT_BENCH_JSON="$PWD/$data"
[[ "$data" == /* ]] && export GPUSORT_BENCH_JSON="$data"

fact date "$(date -u '+%Y-%m-%d %H:%M UTC')"
fact cpu "$( (lscpu 2>/dev/null | sed -n 's/^Model name: *//p'; grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //') | head -1)"
fact cores "$(nproc)"
fact os "$(uname -sr)"
fact commit "${GPUSORT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
# A host-only run measures no device-resident sort: nothing for CUB or torch to stand beside.
host_only=0; [[ $mode == gpu && "${GPUSORT_BENCH_HOST:-}" == only ]] && host_only=1
fact command "$([[ $host_only == 1 ]] && echo 'GPUSORT_BENCH_HOST=only ')ci/report.sh${1:+ $1}"

cub_pid=""
if [[ $mode == gpu ]]; then
  if command -v nvidia-smi > /dev/null; then
    fact gpu "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1)"
    fact driver "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  fi
  # CUB builds (a minute of nvcc) on the CPU while the GPU benches run; it is timed after them.
  if [[ $host_only == 1 ]]; then
    echo '{"src": "cub", "kind": "absent", "text": "a host-only run (GPUSORT_BENCH_HOST=only)"}' >> "$data"
  elif command -v nvcc > /dev/null; then
    fact nvcc "$(nvcc --version | tail -1)"
    nvcc -O3 -std=c++17 -arch=native -o "$logs/cub_bench" ci/cub/cub_bench.cu > "$logs/cub-build.log" 2>&1 &
    cub_pid=$!
  else
    echo '{"src": "cub", "kind": "absent", "text": "no nvcc on this machine"}' >> "$data"
  fi
fi

step "gpusort benches${filter:+ ($filter)}"
# A time limit (seconds) still leaves time to write a report of what was measured.
limit=(); [[ "${GPUSORT_REPORT_BENCH_TIMEOUT:-0}" != 0 ]] && limit=(timeout "$GPUSORT_REPORT_BENCH_TIMEOUT")
if [[ -n "${GPUSORT_BENCH_BIN:-}" ]]; then
  "${limit[@]}" "$GPUSORT_BENCH_BIN" --bench $filter >> "$log" 2>&1
else
  cargo bench --bench sort --no-run >> "$log" 2>&1 && "${limit[@]}" cargo bench --bench sort -- $filter >> "$log" 2>&1
fi
rc=$?
[[ $rc == 124 ]] && echo '{"src": "bench", "kind": "absent", "text": "the benches hit GPUSORT_REPORT_BENCH_TIMEOUT: later rows are missing"}' >> "$data"
[[ $rc != 0 ]] && step "bench exited with $rc (see $log)"
grep -E '^skipped' "$log" | sort -u

if [[ $mode == gpu ]]; then
  if [[ -n "$cub_pid" ]]; then
    step "CUB"
    if wait "$cub_pid"; then
      all_random="$GPUSORT_BENCH_SIZES${GPUSORT_BENCH_RADIX_EXTRA:+,$GPUSORT_BENCH_RADIX_EXTRA}"
      "$logs/cub_bench" --json --pattern random ${all_random//,/ } >> "$data" 2>> "$log" ||
        echo '{"src": "cub", "kind": "absent", "text": "the CUB harness failed, see report.log"}' >> "$data"
      if [[ -n "$GPUSORT_BENCH_PATTERN_SIZES" ]]; then
        "$logs/cub_bench" --json --pattern sorted,reverse,distinct16,equal,zipf ${GPUSORT_BENCH_PATTERN_SIZES//,/ } \
          >> "$data" 2>> "$log" || echo "CUB harness failed on the patterns" >> "$log"
      fi
      if [[ -n "$GPUSORT_BENCH_SHAPE_SIZES" ]]; then
        "$logs/cub_bench" --json --shapes ${GPUSORT_BENCH_SHAPE_SIZES//,/ } \
          >> "$data" 2>> "$log" || echo "CUB harness failed on the shapes" >> "$log"
      fi
    else
      echo '{"src": "cub", "kind": "absent", "text": "the CUB harness did not build, see report.log"}' >> "$data"
    fi
    cat "$logs/cub-build.log" >> "$log"; rm -f "$logs/cub-build.log" "$logs/cub_bench"
  fi
  if [[ $host_only == 1 ]]; then
    echo '{"src": "torch", "kind": "absent", "text": "a host-only run (GPUSORT_BENCH_HOST=only)"}' >> "$data"
  elif [[ "${GPUSORT_REPORT_TORCH:-1}" != 0 ]]; then
    step "torch"
    python3 ci/report.py torch --random "$GPUSORT_BENCH_SIZES${GPUSORT_BENCH_RADIX_EXTRA:+,$GPUSORT_BENCH_RADIX_EXTRA}" \
      --patterns "$GPUSORT_BENCH_PATTERN_SIZES" >> "$data" 2>> "$log"
  else
    echo '{"src": "torch", "kind": "absent", "text": "skipped (GPUSORT_REPORT_TORCH=0)"}' >> "$data"
  fi
fi

step "report"
flags=(); [[ $mode == cpu ]] && flags+=(--cpu); [[ "${GPUSORT_REPORT_FLAT:-0}" == 1 ]] && flags+=(--flat)
python3 ci/report.py render "$data" --out "$out" "${flags[@]}" 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
step "done"
if [[ $mode == gpu && $status == 0 ]]; then
  head="$out/docs/bench-headline.md"; [[ "${GPUSORT_REPORT_FLAT:-0}" == 1 ]] && head="$out/bench-headline.md"
  [[ -f "$head" ]] && cat "$head"  # a host-only run writes no headline
fi
grep -E '"error": ?"' "$data" | head -5
exit $(( status != 0 || rc != 0 ))
