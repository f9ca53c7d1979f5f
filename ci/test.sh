#!/usr/bin/env bash
# The tests, as README.md gives them: the Rust tests (`cargo test --workspace`, then the library
# without its `cuda` feature), the C ABI's checks (ci/ffi.sh) and the Python package's
# (ci/python.sh), all three side by side once the Rust tests are built: each spends part of its
# time on one core (a test harness thread, a C reference sort, the Python interpreter) while
# another builds or runs. In a cold CI run on 2 cores the three took 12.2 minutes together, the
# cores busy 97% of the time. The two scripts start once `cargo test` runs its first test
# binary: cargo then no longer holds the build directory's lock, which their own builds take.
# Logs are in target/test-logs/, printed when all three are done; the exit status fails if any
# failed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo test --workspace --no-run
logs="${CARGO_TARGET_DIR:-$root/target}/test-logs"
mkdir -p "$logs"
rm -f "$logs"/{rust,ffi,python,report}.log

# (`&&`: errexit does not apply inside the `||` that `logged` runs it in.)
rust_tests() {
    cargo test --workspace && cargo test -p gpusort --no-default-features --lib
}

# Runs "$@" with its output in log $1, and ends the log with the outcome and the time it took.
logged() {
    local log="$logs/$1.log" t0=$SECONDS rc=0
    shift
    "$@" >"$log" 2>&1 || rc=$?
    printf '\n== %s: %s after %d s\n' "$*" "$( ((rc == 0)) && echo passed || echo FAILED)" $((SECONDS - t0)) >>"$log"
    return "$rc"
}

echo "the Rust tests, ci/ffi.sh and ci/python.sh, side by side (logs in $logs)"
logged rust rust_tests &
rust=$!
# Built above, so cargo runs its first binary at once; should it end instead, the scripts start.
for _ in $(seq 600); do
    grep -q '^ *Running ' "$logs/rust.log" 2>/dev/null && break
    kill -0 "$rust" 2>/dev/null || break
    sleep 0.5
done
logged ffi ci/ffi.sh &
ffi=$!
logged python ci/python.sh &
python=$!
failed=()
wait "$rust" || failed+=("the Rust tests")
wait "$ffi" || failed+=(ci/ffi.sh)
wait "$python" || failed+=(ci/python.sh)
# The report's tests (ci/report/tests: fixture rows, no GPU, under a second), with the pytest of
# ci/python.sh's venv, or the machine's where that venv is missing.
py="${CARGO_TARGET_DIR:-$root/target}/python-ci/venv/bin/python"
[[ -x "$py" ]] || py=python3
logged report "$py" -m pytest -q -p no:cacheprovider ci/report/tests || failed+=(ci/report/tests)
cat "$logs/rust.log" "$logs/ffi.log" "$logs/python.log" "$logs/report.log"
if ((${#failed[@]})); then
    printf '\nFAILED: %s (logs in %s)\n' "${failed[*]}" "$logs" >&2
    exit 1
fi
printf '\nall tests passed: Rust, the C ABI, the Python package, the report\n'
