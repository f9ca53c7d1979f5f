#!/usr/bin/env bash
# gpusort.dask on the GPU machine (Python 3.12 with numpy, pandas, pyarrow, torch, cupy; no dask,
# no network), in two steps:
#
#   benches/python/dask_gpu.sh bundle DIR        here (network): the wheels of dask[dataframe,
#                                              distributed] for CPython 3.12 manylinux x86_64 into
#                                              DIR, without numpy, pandas and pyarrow (the machine
#                                              has them) and their own dependencies.
#   benches/python/dask_gpu.sh run WHEELS DIR [OUT]
#                                              there: gpusort's wheel (and pytest) from WHEELS
#                                              (ci/python.sh wheel WHEELS) and the wheels of DIR
#                                              into a directory on PYTHONPATH; then the dask tests
#                                              with the GPU required (python/tests/test_dask.py)
#                                              and benches/python/dask_bench.py; logs and JSON in OUT
#                                              (default $OUT, else DIR).
#
# run takes DASK_BENCH_ROWS (default 1e9), DASK_BENCH_WORKERS (16), DASK_BENCH_ARGS (more
# arguments for dask_bench.py), DASK_BENCH_TIMEOUT (seconds, default 420), GPUSORT_DASK_TESTS=0
# (no tests) and GPUSORT_DASK_BENCH=0 (no benchmark).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export PIP_DISABLE_PIP_VERSION_CHECK=1

# dask[dataframe,distributed] and their dependencies but numpy, pandas, pyarrow (and pandas'
# python-dateutil, pytz, tzdata, six), pinned as pip resolves them for CPython 3.11 and 3.12
# (importlib_metadata: < 3.12 only).
DASK_WHEELS=(
    dask==2026.8.0 distributed==2026.8.0
    click==8.5.1 cloudpickle==3.1.3 fsspec==2026.9.0 jinja2==3.1.6 locket==1.0.0 markupsafe==3.0.4
    msgpack==1.2.4 packaging==26.3 partd==1.4.2 psutil==7.2.2 pyyaml==6.0.4 sortedcontainers==2.4.0
    tblib==3.2.2 toolz==1.2.0 tornado==6.6.1 zict==3.0.0
)

bundle() {
    local dir="${1:?usage: benches/python/dask_gpu.sh bundle DIR}"
    mkdir -p "$dir"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
        --dest "$dir" "${DASK_WHEELS[@]}"
    ls -l "$dir"
    du -sh "$dir"
}

run() {
    local wheels="${1:?usage: benches/python/dask_gpu.sh run WHEELS DIR [OUT]}"
    local dir="${2:?usage: benches/python/dask_gpu.sh run WHEELS DIR [OUT]}"
    local out="${3:-${OUT:-$dir}}"
    local site
    site="$(mktemp -d)/site"
    mkdir -p "$out"
    {
        echo "== $(python3 --version); $(nproc) cores; $(nvidia-smi -L 2>/dev/null | head -4 | tr '\n' ' ')"
        python3 -c 'import numpy, pandas, pyarrow; print("numpy", numpy.__version__, "pandas", pandas.__version__, "pyarrow", pyarrow.__version__)'
        python3 -c 'import pytest' 2>/dev/null ||
            python3 -m pip install -q --no-index --target "$site" --find-links "$wheels" pytest
        # --upgrade: replace what pytest brought along (packaging) rather than warn about it.
        python3 -m pip install -q --upgrade --no-index --no-deps --target "$site" "$wheels"/gpusort-*.whl "$dir"/*.whl
        export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
        python3 -c 'import dask, distributed, dask.dataframe, gpusort; print("dask", dask.__version__, "gpusort", gpusort.__version__, gpusort.default_sorter().describe())'
    } 2>&1 | tee "$out/dask-setup.log"
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    local rc=0 bench_rc=0
    if [[ "${GPUSORT_DASK_TESTS:-1}" == 1 ]]; then
        echo "== pytest python/tests/test_dask.py, the GPU required"
        GPUSORT_REQUIRE_GPU=1 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_dask.py \
            >"$out/dask-pytest.log" 2>&1 || rc=$?
        grep -v "^INFO\|^WARNING\|^\s*$" "$out/dask-pytest.log" | tail -15
    fi
    if [[ "${GPUSORT_DASK_BENCH:-1}" == 1 ]]; then
        echo "== benches/python/dask_bench.py --rows ${DASK_BENCH_ROWS:-1e9} --workers ${DASK_BENCH_WORKERS:-16}"
        # shellcheck disable=SC2086
        timeout "${DASK_BENCH_TIMEOUT:-420}" python3 benches/python/dask_bench.py --rows "${DASK_BENCH_ROWS:-1e9}" \
            --workers "${DASK_BENCH_WORKERS:-16}" --out "$out/dask-bench.json" ${DASK_BENCH_ARGS:-} \
            >"$out/dask-bench.md" 2>"$out/dask-bench.log" || bench_rc=$?
        grep "^#" "$out/dask-bench.log" || true
        cat "$out/dask-bench.md"
        [[ "$bench_rc" == 0 ]] || { echo "dask_bench.py: exit $bench_rc (124: DASK_BENCH_TIMEOUT)"; tail -20 "$out/dask-bench.log"; }
    fi
    [[ "$rc" == 0 ]] && return "$bench_rc"
    return "$rc"
}

case "${1:-}" in
    bundle) bundle "${2:-}" ;;
    run) run "${2:-}" "${3:-}" "${4:-}" ;;
    *) echo "usage: benches/python/dask_gpu.sh bundle DIR | run WHEELS DIR [OUT]" >&2; exit 2 ;;
esac
