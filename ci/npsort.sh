#!/usr/bin/env bash
# gpusort's CPU keys-only sort against np.sort (ci/npsort_bench.py): builds the release timing
# binary and a venv with numpy under target/, then prints the markdown table. Extra arguments go
# to the script (--types u32,f32,u64,i32,i64,f64 --sizes 64K,1M,16M --radix --threads N).
set -euo pipefail
cd "$(dirname "$0")/.."
# A bench target (harness = false), so that `cargo test` does not build it: the path comes from
# cargo's JSON messages.
bin="$(cargo bench -q -p gpusort-cpu --bench npsort_table --no-run --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "npsort_table" and m.get("executable"):
        print(m["executable"])')"
venv=target/npsort-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import numpy" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy
fi
"$venv/bin/python" ci/npsort_bench.py --bin "$bin" "$@"
