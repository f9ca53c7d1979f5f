//! The radix sweep's variants one by one (src/cuda/radix/steps.rs, kernels-cuda/cuda/radix_steps.cu):
//! each ranking (shared-memory OR with and without the leader's add, match for warps of few
//! digits, keys staged as they are ranked) and look-back (batches of 4 and 8, early and late)
//! sorts `Kvp`s through a whole radix sort, in small tiles, at sizes around the tile and the
//! look-back batches, on random, few-distinct, sorted and reversed keys in both orders. Each result
//! is checked by the oracle: sorted, a permutation with every value on its key, stable.
//!
//! Without a GPU every case is reported as ignored (tests/common/harness.rs); GPUSORT_REQUIRE_GPU=1
//! makes that a failure.

mod common;
use common::{harness, kvp_input, Pattern};

use gpusort::radix_steps::{sort_kvp, tile, STEPS};
use gpusort::{check, Order};

const PATTERNS: [Pattern; 5] =
    [Pattern::Random, Pattern::FewDistinct, Pattern::Sorted, Pattern::Reverse, Pattern::AllEqual];

/// Sizes at the tile's edges, past one and two look-back batches, and of many tiles.
fn sizes(tile: usize) -> Vec<usize> {
    vec![2, tile - 1, tile, tile + 1, 2 * tile + 1, 4 * tile, 8 * tile - 1, 9 * tile + 3, 33 * tile + 5, 100_003]
}

fn variant(step: &'static str) {
    let tile = tile().unwrap_or_else(|e| panic!("the radix_steps image's tile: {e}"));
    for (seed, n) in sizes(tile).into_iter().enumerate() {
        for pattern in PATTERNS {
            let input = kvp_input(n, pattern, 7 + seed as u64);
            for order in [Order::Ascending, Order::Descending] {
                let out = sort_kvp(step, &input, order).unwrap_or_else(|e| panic!("{step} n={n} {pattern:?}: {e}"));
                check::validate(&input, &out, order, true)
                    .unwrap_or_else(|e| panic!("{step} n={n} {pattern:?} {order:?}: {e}"));
            }
        }
    }
}

fn main() -> std::process::ExitCode {
    let trials = STEPS.iter().map(|&step| harness::gpu(&format!("sweep_{step}"), move || variant(step))).collect();
    harness::run(trials)
}
