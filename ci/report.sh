#!/usr/bin/env bash
# The benchmark report, in one command.
#
#   ci/report.sh         on a machine with a CUDA GPU and cargo: benches every GPU sort (device-
#                        resident and host to host, six input patterns; the host tables against
#                        the PCIe floor, segmented sorts, top-k and out of core), CUB (built with
#                        nvcc, if present; its segmented sorts too) and torch.sort and torch.topk
#                        (if importable) on the same inputs, and writes docs/BENCHMARKS.md,
#                        docs/bench.svg and docs/bench-headline.md
#   ci/report.sh --cpu   on any machine: gpusort's CPU backend against std, rayon, voracious and
#                        rdst; writes docs/BENCHMARKS-cpu.md
#   ci/report.sh pages [--check] [--python-bench PY.json]  on any machine, in a second: every
#                        docs/BENCHMARKS*.md and docs/bench-headline.md rendered from its data,
#                        docs/data/PAGE.json (a page a run writes gets its data rewritten with it);
#                        the marked tables of figures in the hand-written pages (docs/tuning.md, ...)
#                        from docs/data/tables/PAGE.json (`ci/report/report.py transcribe --tables PAGE.md`
#                        moves a page's tables there); --check only fails on a page that differs from
#                        its data; --python-bench
#                        takes benches/python/bench.py's JSON as the table of BENCHMARKS-python.md
#
# About 7 minutes on an H200 with 16 cores (GPU; the host tables about two, CUB's segmented sorts
# and torch.topk under one after them), 5-10 minutes on 2 cores (--cpu). Environment, all optional:
#   GPUSORT_REPORT_OUT    where the report files go (default: the repository root)
#   GPUSORT_REPORT_FLAT=1 write the report, bench.svg and bench-headline.md into the output directory itself, not into its docs/
#   GPUSORT_REPORT_LOGS   raw measurements (raw.jsonl) and the log (report.log); default target/report
#   GPUSORT_REPORT_TORCH=0  skip the torch columns (torch.sort, torch.topk, torch and cupy argsort)
#   GPUSORT_REPORT_BENCH_TIMEOUT  seconds the gpusort benches may run; the report shows what they
#                         measured by then (default: no limit; ci/gpu.sh report sets 400)
#   GPUSORT_BENCH_BIN     a prebuilt `benches/sort/` executable, so no cargo is needed
#                         (ci/gpu.sh report uses the bundle's)
#   GPUSORT_COMMIT        what to print as the gpusort version (default: git rev-parse HEAD)
#   GPUSORT_BENCH_FAST    1 (default here): short criterion warm-up and measurement
#   size lists (comma-separated, empty for none), as benches/sort/ reads them:
#   GPUSORT_BENCH_SIZES, GPUSORT_BENCH_PATTERN_SIZES, GPUSORT_BENCH_RADIX_EXTRA, GPUSORT_BENCH_SHAPE_SIZES,
#   GPUSORT_BENCH_CPU_SIZES, GPUSORT_BENCH_CPU_PATTERN_SIZES; GPUSORT_BENCH_CPU_SORTS (the GPU
#   report runs only the fastest CPU sorts, for its GPU-vs-CPU column)
#   GPUSORT_REPORT_SHAPES_ONLY=1  only the radix shapes beside CUB's (all ten, ascending `Kvp` and u32
#                         keys included) at GPUSORT_BENCH_SHAPE_SIZES (say 1073741824: about 330 s
#                         on an H200); writes raw.jsonl and prints the table, no report
#   GPUSORT_REPORT_SHAPES_EXTRA  a shapes-only run's raw.jsonl: its other sizes join this report's
#                         table of radix shapes against CUB, marked as a second run
#   GPUSORT_REPORT_PYTHON_BENCH  benches/python/bench.py's JSON (ci/python.sh gpu-test's
#                         python-bench.json): its lexsort, pandas, torch and CuPy rows join the
#                         lexsort section (`ci/report/report.py lexsort` renders that section alone)
#   GPUSORT_BENCH_HOST=only  the host tables alone (no criterion groups; of CUB and torch only the
#                         segmented sorts and torch.topk, beside the host tables' segments and top-k
#                         rows: two to three minutes); =0 leaves them out; their sizes and budgets:
#                         GPUSORT_BENCH_HOST_*, GPUSORT_BENCH_OOC_*, GPUSORT_BENCH_SEGMENTS_N and
#                         GPUSORT_BENCH_TOPK_N, listed at the top of benches/sort/main.rs
set -uo pipefail
cd "$(dirname "$0")/.."
mode=gpu
case "${1:-}" in
  --cpu) mode=cpu ;;
  pages) shift; exec python3 ci/report/report.py pages "$@" ;;
  "") ;;
  *) echo "usage: ci/report.sh [--cpu | pages [--check] [--python-bench PY.json]]" >&2; exit 2 ;;
esac
out="${GPUSORT_REPORT_OUT:-.}"
logs="${GPUSORT_REPORT_LOGS:-target/report}"
mkdir -p "$out" "$logs"
data="$logs/raw.jsonl"; : > "$data"
log="$logs/report.log"; : > "$log"
t0=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
fact() { python3 -c 'import json,sys; print(json.dumps({"src": "machine", "key": sys.argv[1], "text": sys.argv[2]}))' "$1" "$2" >> "$data"; }
# Why an anchor is missing (src cub, cub-segments, torch or torch-topk): the report says so.
absent() { python3 -c 'import json,sys; print(json.dumps({"src": sys.argv[1], "kind": "absent", "text": sys.argv[2]}))' "$1" "$2" >> "$data"; }

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
# A host-only run measures no whole-input device-resident sort for CUB's and torch's sorts to stand
# beside; its segments and top-k rows still get CUB's segmented sorts and torch.topk.
host_only=0; [[ $mode == gpu && "${GPUSORT_BENCH_HOST:-}" == only ]] && host_only=1
shapes_only=0; [[ $mode == gpu && "${GPUSORT_REPORT_SHAPES_ONLY:-0}" == 1 ]] && shapes_only=1
fact command "$([[ $host_only == 1 ]] && echo 'GPUSORT_BENCH_HOST=only ')$([[ $shapes_only == 1 ]] && echo 'GPUSORT_REPORT_SHAPES_ONLY=1 ')ci/report.sh${1:+ $1}"

cub_pid=""; seg_pid=""
if [[ $mode == gpu ]]; then
  if command -v nvidia-smi > /dev/null; then
    fact gpu "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1)"
    fact driver "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  fi
  if command -v nvcc > /dev/null; then
    fact nvcc "$(nvcc --version | tail -1)"
  else
    absent cub "no nvcc on this machine"
    absent cub-segments "no nvcc on this machine"
  fi
fi

# A time limit (seconds) still leaves time to write a report of what was measured.
limit_s="${GPUSORT_REPORT_BENCH_TIMEOUT:-0}"
bench() {  # bench ENV=VALUE... : the gpusort benches with that environment, inside what is left of the limit
  local left=()
  if [[ "$limit_s" != 0 ]]; then
    local rest=$(( limit_s - ($(date +%s) - bench_t0) ))
    (( rest > 0 )) || return 124
    left=(timeout "$rest")
  fi
  if [[ -n "${GPUSORT_BENCH_BIN:-}" ]]; then
    env "$@" "${left[@]}" "$GPUSORT_BENCH_BIN" --bench $filter >> "$log" 2>&1
  else
    env "$@" "${left[@]}" cargo bench --bench sort -- $filter >> "$log" 2>&1
  fi
}
[[ -z "${GPUSORT_BENCH_BIN:-}" ]] && cargo bench --bench sort --no-run >> "$log" 2>&1
# The CUB harness: built on the CPU while the GPU benches run (sets cub_pid), its shapes timed
# after them, and the binary and its build log put away at the end.
start_cub_build() {
  nvcc -O3 -std=c++17 -arch=native -o "$logs/cub_bench" benches/cub/cub_bench.cu > "$logs/cub-build.log" 2>&1 &
  cub_pid=$!
}
cub_shapes() { "$logs/cub_bench" --json --shapes ${GPUSORT_BENCH_SHAPE_SIZES//,/ } >> "$data" 2>> "$log"; }
finish_cub() { cat "$logs/cub-build.log" >> "$log"; rm -f "$logs/cub-build.log" "$logs/cub_bench"; }
bench_t0=$(date +%s)
rc=0
if [[ $shapes_only == 1 ]]; then
  # Sizes the full report has no room for, gpusort and CUB both in this run (report_shapes.py).
  all_shapes="radix,radix-pairs,radix-keys,radix-keys-i32,radix-keys-f32,radix-keys-u64,radix-keys-f64,radix-pairs-u64,radix-desc,radix-keys-desc"
  export GPUSORT_BENCH_SHAPES="${GPUSORT_BENCH_SHAPES:-$all_shapes}"
  cub_ok=0
  command -v nvcc > /dev/null && start_cub_build
  step "gpusort shapes ($GPUSORT_BENCH_SHAPE_SIZES)"
  filter=shapes; bench GPUSORT_BENCH_HOST=0 || rc=$?
  [[ $rc != 0 ]] && step "bench exited with $rc (see $log)"
  if [[ -n "$cub_pid" ]] && wait "$cub_pid"; then
    step "CUB shapes"
    cub_shapes && cub_ok=1
  fi
  [[ -n "$cub_pid" ]] && finish_cub
  [[ $cub_ok == 1 ]] || absent cub "the CUB harness did not build or failed, see report.log"
  python3 ci/report/report.py shapes "$data"
  step "done ($data)"
  exit $(( rc != 0 || cub_ok != 1 ))
fi
# The host tables run first and alone: their wall times share the host's cores and memory with
# anything else running, and an nvcc build of the CUB harnesses beside them took 64M pairs host to
# host from 31 to 38 ms (H200 machine, 2026-11-27, same call). So the harnesses build after them.
host_plan="${GPUSORT_BENCH_HOST:-1}"
if [[ $mode == gpu && "$host_plan" != 0 ]]; then
  step "gpusort host tables"
  bench GPUSORT_BENCH_HOST=only || rc=$?
fi
if [[ $mode == gpu ]] && command -v nvcc > /dev/null; then
  # The CUB harnesses build (a minute or two of nvcc each) on the CPU while the device-resident
  # benches run (the GPU's timings do not wait on the host); they are timed after them.
  if [[ $host_only == 1 ]]; then
    absent cub "a host-only run (GPUSORT_BENCH_HOST=only)"
  else
    start_cub_build
  fi
  nvcc -O3 -std=c++17 -arch=native -o "$logs/cub_segmented" benches/cub/cub_segmented.cu \
    > "$logs/cub-segmented-build.log" 2>&1 &
  seg_pid=$!
fi
if [[ $host_only == 0 && $rc != 124 ]]; then
  step "gpusort benches${filter:+ ($filter)}"
  if [[ $mode == gpu ]]; then bench GPUSORT_BENCH_HOST=0 || rc=$?; else bench || rc=$?; fi
fi
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
        cub_shapes || echo "CUB harness failed on the shapes" >> "$log"
      fi
    else
      echo '{"src": "cub", "kind": "absent", "text": "the CUB harness did not build, see report.log"}' >> "$data"
    fi
    finish_cub
  fi
  if [[ -n "$seg_pid" ]]; then
    # CUB's segmented sorts on the n and segment lengths of the bench's device-resident segment
    # rows (20-40 s at 64M).
    read -r seg_n seg_lengths < <(python3 ci/report/report.py plan "$data" segments 2>> "$log")
    if ! wait "$seg_pid"; then
      absent cub-segments "the CUB segmented-sort harness did not build, see report.log"
    elif [[ -z "${seg_n:-}" ]]; then
      absent cub-segments "the bench measured no device-resident segmented sorts"
    else
      step "CUB segmented sorts ($seg_n keys, segments of $seg_lengths)"
      timeout 120 "$logs/cub_segmented" --json --lengths "$seg_lengths" "$seg_n" >> "$data" 2>> "$log"
      case $? in
        0) ;;
        # 1 also when a CUDA call failed (harness.cuh's CK): report.log tells which.
        1) absent cub-segments "a row failed its host check (left out) or a CUDA call failed, see report.log" ;;
        124) absent cub-segments "the harness ran out of its 120 s; later rows are missing" ;;
        *) absent cub-segments "the harness failed, see report.log" ;;
      esac
    fi
    cat "$logs/cub-segmented-build.log" >> "$log"; rm -f "$logs/cub-segmented-build.log" "$logs/cub_segmented"
  fi
  if [[ $host_only == 1 ]]; then
    absent torch "a host-only run (GPUSORT_BENCH_HOST=only)"
  elif [[ "${GPUSORT_REPORT_TORCH:-1}" != 0 ]]; then
    step "torch"
    python3 ci/report/report.py torch --random "$GPUSORT_BENCH_SIZES${GPUSORT_BENCH_RADIX_EXTRA:+,$GPUSORT_BENCH_RADIX_EXTRA}" \
      --patterns "$GPUSORT_BENCH_PATTERN_SIZES" >> "$data" 2>> "$log"
  else
    absent torch "skipped (GPUSORT_REPORT_TORCH=0)"
  fi
  # torch.topk on the keys of the bench's top-k rows, on the GPU and host to host (about 20 s at
  # 64M); the CPU-tensor rows of ci/topk_torch.py take 0.7-2.5 s a call, so they are left out.
  read -r topk_n topk_ks < <(python3 ci/report/report.py plan "$data" topk 2>> "$log")
  if [[ -z "${topk_n:-}" ]]; then
    :  # no top-k rows: nothing for torch.topk to stand beside
  elif [[ "${GPUSORT_REPORT_TORCH:-1}" == 0 ]]; then
    absent torch-topk "skipped (GPUSORT_REPORT_TORCH=0)"
  else
    step "torch.topk ($topk_n keys, k = $topk_ks)"
    timeout 90 python3 ci/topk_torch.py --json --where device,host --k "$topk_ks" "$topk_n" >> "$data" 2>> "$log"
    case $? in
      0) ;;
      124) absent torch-topk "ci/topk_torch.py ran out of its 90 s; later rows are missing" ;;
      *) absent torch-topk "ci/topk_torch.py failed, see report.log" ;;
    esac
  fi
  # torch.argsort and cupy.argsort on the keys of the bench's device argsort rows (about 30 s).
  read -r argsort_sizes < <(python3 ci/report/report.py plan "$data" argsort 2>> "$log")
  if [[ -z "${argsort_sizes:-}" ]]; then
    :  # no device argsort rows: nothing for the libraries to stand beside
  elif [[ "${GPUSORT_REPORT_TORCH:-1}" == 0 ]]; then
    absent argsort-torch "skipped (GPUSORT_REPORT_TORCH=0)"; absent argsort-cupy "skipped (GPUSORT_REPORT_TORCH=0)"
  else
    step "torch.argsort and cupy.argsort ($argsort_sizes keys)"
    timeout 120 python3 ci/argsort_libs.py --json --sizes "$argsort_sizes" >> "$data" 2>> "$log" ||
      absent argsort-torch "ci/argsort_libs.py failed or ran out of its 120 s, see report.log"
  fi
  # torch.sort / torch.argsort (and CuPy's) on float16 and bfloat16 beside the small-keys rows.
  if ! grep -q '"small-keys-device"' "$data"; then
    :  # no device rows of small keys: nothing for the libraries to stand beside
  elif [[ "${GPUSORT_REPORT_TORCH:-1}" == 0 ]]; then
    absent half-libs "skipped (GPUSORT_REPORT_TORCH=0)"
  else
    step "torch and CuPy on float16 / bfloat16"
    timeout 120 python3 ci/half_libs.py --json --sizes "${GPUSORT_BENCH_SMALL_DEVICE_SIZES:-67108864}" >> "$data" 2>> "$log" ||
      absent half-libs "ci/half_libs.py failed or ran out of its 120 s, see report.log"
  fi
fi

step "report"
flags=(); [[ $mode == cpu ]] && flags+=(--cpu); [[ "${GPUSORT_REPORT_FLAT:-0}" == 1 ]] && flags+=(--flat)
[[ -n "${GPUSORT_REPORT_SHAPES_EXTRA:-}" ]] && flags+=(--shapes-extra "$GPUSORT_REPORT_SHAPES_EXTRA")
[[ $mode == gpu && -n "${GPUSORT_REPORT_PYTHON_BENCH:-}" ]] && flags+=(--python-bench "$GPUSORT_REPORT_PYTHON_BENCH")
python3 ci/report/report.py render "$data" --out "$out" "${flags[@]}" 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
step "done"
if [[ $mode == gpu && $status == 0 ]]; then
  head="$out/docs/bench-headline.md"; [[ "${GPUSORT_REPORT_FLAT:-0}" == 1 ]] && head="$out/bench-headline.md"
  [[ -f "$head" ]] && cat "$head"  # a host-only run writes no headline
fi
grep -E '"error": ?"' "$data" | head -5
exit $(( status != 0 || rc != 0 ))
