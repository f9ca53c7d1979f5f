#!/usr/bin/env bash
# The test command (README): the whole workspace's tests, then the C ABI's C and Python tests.
# On a machine without a GPU the GPU cases print `skipped: no CUDA device`; set
# GPUSORT_REQUIRE_GPU=1 to make a missing GPU a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
kernels-cuda/build-images.sh --check
cargo test --workspace
if [[ -x ci/ffi.sh ]]; then ci/ffi.sh; fi
