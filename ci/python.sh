#!/usr/bin/env bash
# The Python package, in three modes:
#
#   ci/python.sh                    CI: a venv with maturin, numpy, pytest, dask, pandas,
#                                   pyarrow and ml_dtypes from PyPI; the package built the way
#                                   users build it (pip install ./python, dev profile here) and
#                                   the pytest suite run against it.
#   ci/python.sh wheel DIR          the release wheel (abi3, manylinux) into DIR, with the pytest
#                                   wheels the GPU machine (no network) needs beside it.
#   ci/python.sh gpu-test DIR [OUT] on the GPU machine (Python 3.12 with torch, cupy, numpy; no
#                                   Rust, no network): installs the wheel from DIR into a directory
#                                   on PYTHONPATH beside the machine's packages, runs every test with the GPU
#                                   required, then benches/python/bench.py (table on stdout, JSON
#                                   and logs in OUT, default $OUT or DIR). GPUSORT_PY_TESTS=0 or
#                                   GPUSORT_PY_BENCH=0 skips the tests or the benchmark.
#
# CARGO_TARGET_DIR is honoured (default: the workspace's target/); the CI venv lives under it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
step() { printf '\n== %s\n' "$*"; }

# A venv at $1 with maturin, numpy and pytest (kept between runs; pip only checks them then).
venv_with_tools() {
    [[ -x "$1/bin/python" ]] || python3 -m venv "$1"
    "$1/bin/python" -m pip install -q "maturin>=1.7,<2" numpy pytest
}

ci() {
    local venv="$CARGO_TARGET_DIR/python-ci/venv"
    step "venv ($venv): $(python3 --version), maturin, numpy, pytest; dask, pandas, pyarrow for gpusort.dask, .pandas, .arrow; ml_dtypes"
    venv_with_tools "$venv"
    # The package's `dask`, `pandas` and `arrow` extras (python/pyproject.toml), installed beside
    # it: the install below takes no dependencies. Their tests skip where a library is missing.
    # ml_dtypes gives NumPy its bfloat16 dtype, which the bfloat16 tests of NumPy arrays need.
    "$venv/bin/python" -m pip install -q "dask[dataframe,distributed]>=2025.1" "pandas>=2.0" "pyarrow>=14" "ml_dtypes>=0.4"
    step "pip install ./python (dev profile: the CPU sorts are tested, not timed)"
    # No build isolation: maturin is in the venv already (the backend runs it from PATH), and the
    # build reuses target/. Unoptimised: at opt-level 1 the build took 5.3 minutes against 1.8
    # (2 cores), more than pytest's whole run; the `gpusort` crate that ci/ffi.sh builds cannot be
    # reused, as the two builds resolve the proc macros' `syn` with different features.
    PATH="$venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" "$venv/bin/python" -m pip install -q \
        --no-build-isolation --force-reinstall --no-deps ./python
    step "pytest python/tests"
    # The slowest cases are listed: where the next minute of a CI run would come from.
    "$venv/bin/python" -m pytest -q --durations=12 python/tests
}

wheel() {
    local out="${1:?usage: ci/python.sh wheel DIR}"
    local venv="$CARGO_TARGET_DIR/python-ci/venv"
    mkdir -p "$out"
    venv_with_tools "$venv"
    step "maturin build --release (abi3: one wheel for CPython >= 3.9)"
    rm -f "$out"/gpusort-*.whl
    "$venv/bin/maturin" build --release --manifest-path python/Cargo.toml --out "$out"
    step "pytest and its dependencies as wheels, for a machine without network"
    "$venv/bin/python" -m pip download -q --only-binary=:all: --dest "$out" pytest
    ls -l "$out"
}

gpu_test() {
    local dir="${1:?usage: ci/python.sh gpu-test DIR [OUT]}"
    local out="${2:-${OUT:-$dir}}"
    # No venv: the machine's numpy, torch and cupy may live in the user's site-packages, which a
    # venv does not see. The wheel (and pytest when missing) go into a directory of their own.
    local site
    site="$(mktemp -d)/site"
    mkdir -p "$out"
    step "the wheel into $site: $(python3 --version)"
    python3 -c 'import numpy; print("numpy", numpy.__version__)'
    python3 -m pip install -q --no-index --no-deps --target "$site" "$dir"/gpusort-*.whl
    python3 -c 'import pytest' 2>/dev/null ||
        python3 -m pip install -q --no-index --target "$site" --find-links "$dir" pytest
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    python3 -c 'import gpusort; print(gpusort.__version__, gpusort.default_sorter().describe())'
    if [[ "${GPUSORT_PY_TESTS:-1}" == 1 ]]; then
        step "pytest python/tests, the GPU required"
        GPUSORT_REQUIRE_GPU=1 python3 -m pytest -q -rs -p no:cacheprovider python/tests 2>&1 | tee "$out/python-pytest.log"
    fi
    if [[ "${GPUSORT_PY_BENCH:-1}" == 1 ]]; then
        step "benches/python/bench.py"
        python3 benches/python/bench.py --out "$out/python-bench.json" | tee "$out/python-bench.md"
    fi
}

case "${1:-ci}" in
    ci) ci ;;
    wheel) wheel "${2:-}" ;;
    gpu-test) gpu_test "${2:-}" "${3:-}" ;;
    *) echo "usage: ci/python.sh [ci | wheel DIR | gpu-test DIR [OUT]]" >&2; exit 2 ;;
esac
