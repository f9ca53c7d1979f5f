#!/usr/bin/env bash
# The C ABI: builds libgpusort.{so,a}, checks the header compiles as C11 and C++, runs
# the C tests (static, plain; shared, with ASan and UBSan), the Python ctypes test, and the fork
# and memory-limit tests in C and Python. The Rust tests of the C ABI and the header check
# (cbindgen's output against ffi/include/gpusort.h) are `cargo test -p gpusort-ffi`, part of
# `cargo test --workspace`, which the README's test command runs first (run here, `-p` alone
# unifies features differently and rebuilt four crates: 35 s of a CI run).
#
# CARGO_TARGET_DIR is honoured (default: the workspace's target/). GPUSORT_FFI_PROFILE=release
# tests the release build instead of the dev one. CC/CXX pick the compilers (gcc/g++).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
case "${GPUSORT_FFI_PROFILE:-dev}" in
    # The dev profile leaves our crates unoptimised (Cargo.toml). At opt-level 1 the library took
    # 6.0 minutes to build against 1.5 (2 cores), more than the C tests gained (full sizes: 114 s
    # against 247), and on a machine without a GPU the C tests' sweeps stop at 4099 items anyway
    # (test_gpusort.c, largest_size). No debug info: the static library was 500 MB with line tables.
    dev) profile=(); libdir="$CARGO_TARGET_DIR/debug"; build_env=(env CARGO_PROFILE_DEV_DEBUG=false) ;;
    release) profile=(--release); libdir="$CARGO_TARGET_DIR/release"; build_env=() ;;
    *) echo "GPUSORT_FFI_PROFILE must be dev or release" >&2; exit 2 ;;
esac
cc="${CC:-gcc}" cxx="${CXX:-g++}"
out="$CARGO_TARGET_DIR/ffi-ci"
mkdir -p "$out"
warn=(-Wall -Wextra -Werror -pedantic)
# What Rust's std needs from the system when linked statically (`rustc --print native-static-libs`
# on x86_64/aarch64-unknown-linux-gnu).
native_libs=(${GPUSORT_NATIVE_LIBS:--lgcc_s -lutil -lrt -lpthread -lm -ldl -lc})

step() { printf '\n== %s\n' "$*"; }

step "build libgpusort.so and libgpusort.a"
"${build_env[@]}" cargo build -p gpusort-ffi "${profile[@]}"
ls -l "$libdir/libgpusort.so" "$libdir/libgpusort.a"

step "the header compiles alone as C11 and as C++11/C++17"
printf '#include "gpusort.h"\nint main(void) { return gpusort_status_str(GPUSORT_OK) == 0; }\n' >"$out/header.c"
"$cc" -std=c11 "${warn[@]}" -Iffi/include -c "$out/header.c" -o "$out/header_c.o"
for std in c++11 c++17; do
    "$cxx" -std=$std "${warn[@]}" -Iffi/include -x c++ -c "$out/header.c" -o "$out/header_cxx.o"
done
echo "ok"

step "C tests, static library"
"$cc" -std=c11 "${warn[@]}" -O1 -Iffi/include ffi/tests/c/test_gpusort.c "$libdir/libgpusort.a" \
    "${native_libs[@]}" -o "$out/test_gpusort_static"
"$out/test_gpusort_static" | tee "$out/c-static.log" | tail -n 3

step "C tests, shared library, -fsanitize=address,undefined"
"$cc" -std=c11 "${warn[@]}" -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -Iffi/include ffi/tests/c/test_gpusort.c -L"$libdir" -lgpusort -o "$out/test_gpusort_asan"
# Sizes up to 257 (GPUSORT_C_TEST_QUICK): the plain run above takes the larger ones.
GPUSORT_C_TEST_QUICK=1 LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$out/test_gpusort_asan" | tee "$out/c-asan.log" | tail -n 3

step "Python ctypes test"
GPUSORT_LIB="$libdir/libgpusort.so" python3 ffi/python/test_gpusort.py | tee "$out/python.log" | tail -n 3

# Static and without sanitizers: ASan's shadow memory cannot live under the
# address-space limit that test sets.
step "C test: sorting in forked children, and under an address-space limit"
"$cc" -std=c11 "${warn[@]}" -O1 -Iffi/include ffi/tests/c/test_fork.c "$libdir/libgpusort.a" \
    "${native_libs[@]}" -o "$out/test_fork"
"$out/test_fork" | tee "$out/c-fork.log" | tail -n 3

step "Python test: multiprocessing with the fork start method"
GPUSORT_LIB="$libdir/libgpusort.so" python3 ffi/python/test_fork.py | tee "$out/python-fork.log" | tail -n 3

step "all FFI checks passed (full logs in $out)"
