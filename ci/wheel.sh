#!/usr/bin/env bash
# The Python package's portable release wheel: one abi3 wheel (CPython 3.9 and newer) tagged
# manylinux_2_28. zig links the extension against glibc 2.28's symbols, so the wheel loads on glibc
# 2.28 and newer (RHEL 8, Debian 10, Ubuntu 20.04 and later), whatever glibc the build machine has.
# The release job of .github/workflows/ci.yml runs both modes; they run the same way locally.
#
#   ci/wheel.sh build DIR   maturin build --release --zig --compatibility manylinux_2_28 into DIR
#                           (maturin checks the extension's symbols against the policy itself)
#   ci/wheel.sh check DIR   the wheel in DIR: prints its tags, fails unless they include
#                           manylinux_2_28 and the newest glibc symbol version the extension needs
#                           is at most 2.28, then runs pytest python/tests against the wheel
#                           installed with its test extras into a fresh venv
#
# maturin and zig (PyPI's ziglang) are pinned and installed into a venv under CARGO_TARGET_DIR
# (default: the workspace's target/), kept between runs. check's venv is GPUSORT_WHEEL_VENV
# (default $CARGO_TARGET_DIR/wheel-check/venv), made anew each time. Needs python3 with venv,
# cargo, and objdump (binutils).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
policy=manylinux_2_28
glibc_max=2.28
step() { printf '\n== %s\n' "$*"; }

# The one wheel in $1 (the package's name is gpusort).
the_wheel() {
    local wheels=("$1"/gpusort-*.whl)
    [[ -f "${wheels[0]}" && ${#wheels[@]} == 1 ]] || {
        echo "expected one gpusort wheel in $1, found: ${wheels[*]}" >&2
        return 1
    }
    printf '%s\n' "${wheels[0]}"
}

build() {
    local out="${1:?usage: ci/wheel.sh build DIR}"
    local venv="$CARGO_TARGET_DIR/wheel/venv"
    step "venv ($venv): $(python3 --version), maturin and zig"
    [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q "maturin==1.16.0" "ziglang==0.15.2"
    step "maturin build --release --zig --compatibility $policy"
    mkdir -p "$out"
    rm -f "$out"/gpusort-*.whl
    # maturin finds zig as `python -m ziglang` of the python on PATH: the venv's.
    PATH="$venv/bin:$PATH" maturin build --release --locked --zig --compatibility "$policy" \
        --manifest-path python/Cargo.toml --out "$out"
    ls -l "$(the_wheel "$out")"
}

check() {
    local dir="${1:?usage: ci/wheel.sh check DIR}"
    local venv="${GPUSORT_WHEEL_VENV:-$CARGO_TARGET_DIR/wheel-check/venv}"
    local wheel tags newest
    wheel="$(the_wheel "$dir")"
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    step "$(basename "$wheel"): tags and glibc symbol versions"
    # The WHEEL file's tags and the extension module, read with the standard library alone.
    tags="$(python3 - "$wheel" "$tmp" <<'EOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for name in z.namelist():
    if name.endswith(".dist-info/WHEEL"):
        print(" ".join(line.split(":", 1)[1].strip() for line in z.read(name).decode().splitlines()
                       if line.startswith("Tag:")))
    elif name.startswith("gpusort/_native") and name.endswith(".so"):
        z.extract(name, sys.argv[2])
EOF
)"
    echo "tags: $tags"
    [[ " $tags " == *"-$policy"_* ]] || { echo "no $policy tag" >&2; return 1; }
    newest="$(objdump -T "$tmp"/gpusort/_native*.so | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"
    echo "newest glibc symbol version: $newest"
    [[ "$(printf '%s\n' "${newest#GLIBC_}" "$glibc_max" | sort -V | tail -n 1)" == "$glibc_max" ]] ||
        { echo "$newest is newer than $policy allows" >&2; return 1; }
    step "a fresh venv ($venv): $(python3 --version), the wheel with its test extras"
    rm -rf "$venv"
    python3 -m venv "$venv"
    # The extras ci/python.sh installs: pytest, and the libraries of gpusort.dask, .pandas and
    # .arrow; ml_dtypes for the bfloat16 tests.
    "$venv/bin/python" -m pip install -q "${wheel}[test,dask,pandas,arrow]" "ml_dtypes>=0.4"
    # From outside the checkout, so that python/gpusort/ cannot stand in for the installed package.
    (cd "$tmp" && "$venv/bin/python" -c \
        'import gpusort; print(gpusort.__version__, gpusort.__file__, gpusort.default_sorter().describe())')
    step "pytest python/tests against the wheel"
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --durations=5 python/tests
}

case "${1:-}" in
    build) build "${2:-}" ;;
    check) check "${2:-}" ;;
    *) echo "usage: ci/wheel.sh build DIR | check DIR" >&2; exit 2 ;;
esac
