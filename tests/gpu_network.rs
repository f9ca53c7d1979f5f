//! GPU sorting networks (bitonic, odd-even merge): edge cases and every kernel boundary, both
//! orders, pairs and keys, validated against the CPU oracle. Neither network is stable, so pairs
//! are checked for order and for every value staying with its key, not for stability.
//!
//! Without a GPU every case is reported as ignored (tests/common/harness.rs); GPUSORT_REQUIRE_GPU=1
//! makes that a failure.

mod common;
use common::harness;
use common::skip_loudly;

use gpusort::{check, Algorithm, Kvp, Order, Sorter};

fn sorter(algorithm: Algorithm) -> Option<Sorter> {
    match Sorter::cuda() {
        Ok(s) => Some(s.with_algorithm(algorithm)),
        Err(e) if std::env::var("GPUSORT_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("GPUSORT_REQUIRE_GPU=1 but no CUDA device: {e}")
        }
        Err(e) => {
            skip_loudly(&format!("skipped: no CUDA device ({e})"));
            None
        }
    }
}

const NETWORKS: [Algorithm; 2] = [Algorithm::Bitonic, Algorithm::OddEvenMerge];
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// With the committed tuning, tiles are 4096 pairs or 8192 keys. Bitonic global passes cover one
/// stage alone up to 2^20 pairs (2^21 keys); odd-even closed passes (no halo) cover a stage's
/// strides down to the tile merge up to 2^17 pairs (2^19 keys); odd-even tile-merge windows own
/// 3584 pairs or 7168 keys (3072 / 6144 with earlier tuning). Lengths sit on each side of those,
/// plus primes and the usual small cases.
const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 32, 33, 255, 256, 257, 1021, 3071, 3072, 3073, 3583, 3584, 3585, 4095,
    4096, 4097, 6143, 6144, 6145, 7167, 7168, 7169, 8191, 8192, 8193, 9217, 12289, 16383, 16385, 24577, 32768, 32769,
    65535, 65537, 100_003,
];
const LARGE_LENGTHS: &[usize] =
    &[(1 << 17) + 1, (1 << 19) - 1, (1 << 19) + 3, (1 << 20) + 1, 1_000_000, 2_097_153, (1 << 21) + 5];

#[derive(Clone, Copy, Debug)]
enum Pattern {
    Random,
    AllEqual,
    Extremes,
    AllMax,
    Sorted,
    Reverse,
    FewDistinct,
}
const PATTERNS: [Pattern; 7] = [
    Pattern::Random,
    Pattern::AllEqual,
    Pattern::Extremes,
    Pattern::AllMax,
    Pattern::Sorted,
    Pattern::Reverse,
    Pattern::FewDistinct,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

fn keys(n: usize, p: Pattern, seed: u64) -> Vec<u32> {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..n)
        .map(|i| match p {
            Pattern::Random => r.next(),
            Pattern::AllEqual => 0x1234_5678,
            Pattern::Extremes => {
                if r.next() & 1 == 0 {
                    0
                } else {
                    u32::MAX
                }
            }
            Pattern::AllMax => u32::MAX,
            Pattern::Sorted => i as u32,
            Pattern::Reverse => u32::MAX - i as u32,
            Pattern::FewDistinct => r.next() % 16,
        })
        .collect()
}

fn pairs(n: usize, p: Pattern, seed: u64) -> Vec<Kvp> {
    keys(n, p, seed).into_iter().enumerate().map(|(i, k)| Kvp::new(k, i as u32)).collect()
}

fn check_one(s: &Sorter, alg: Algorithm, n: usize, p: Pattern, order: Order, seed: u64) {
    let input = pairs(n, p, seed);
    let mut out = input.clone();
    s.clone()
        .with_order(order)
        .sort_kvp(&mut out)
        .unwrap_or_else(|e| panic!("{alg:?} pairs n={n} {p:?} {order:?}: {e}"));
    if let Err(e) = check::validate(&input, &out, order, false) {
        panic!("{alg:?} pairs n={n} {p:?} {order:?}: {e}");
    }
    let input = keys(n, p, seed + 1);
    let mut out = input.clone();
    s.clone()
        .with_order(order)
        .sort_keys(&mut out)
        .unwrap_or_else(|e| panic!("{alg:?} keys n={n} {p:?} {order:?}: {e}"));
    if let Err(e) = check::validate_keys(&input, &out, order) {
        panic!("{alg:?} keys n={n} {p:?} {order:?}: {e}");
    }
}

fn every_length_and_pattern() {
    for alg in NETWORKS {
        let Some(s) = sorter(alg) else { return };
        for &n in LENGTHS {
            for p in PATTERNS {
                for order in ORDERS {
                    check_one(&s, alg, n, p, order, n as u64);
                }
            }
        }
    }
}

fn large_lengths() {
    for alg in NETWORKS {
        let Some(s) = sorter(alg) else { return };
        for &n in LARGE_LENGTHS {
            for p in [Pattern::Random, Pattern::Extremes, Pattern::FewDistinct] {
                for order in ORDERS {
                    check_one(&s, alg, n, p, order, 7 + n as u64);
                }
            }
        }
    }
}

/// Several global passes per stage, a non-power-of-two length far from the next power of two.
fn ten_million_and_one() {
    for alg in NETWORKS {
        let Some(s) = sorter(alg) else { return };
        for order in ORDERS {
            check_one(&s, alg, 10_000_001, Pattern::Random, order, 99);
        }
    }
}

/// Through the device-resident entry points, on a caller's stream.
fn device_resident() {
    for alg in NETWORKS {
        let Some(s) = sorter(alg) else { return };
        let ctx = s.cuda_context().expect("a CUDA sorter has a context");
        let stream = ctx.new_stream().unwrap();
        for n in [0usize, 1, 4097, 333_333] {
            let input = pairs(n, Pattern::Random, 5);
            let mut dev = stream.clone_htod(&input).unwrap();
            s.clone().with_order(Order::Descending).sort_kvp_device(&mut dev, &stream).unwrap();
            let out = stream.clone_dtoh(&dev).unwrap();
            stream.synchronize().unwrap();
            check::validate(&input, &out, Order::Descending, false).unwrap();
            let input = keys(n, Pattern::Random, 6);
            let mut dev = stream.clone_htod(&input).unwrap();
            s.sort_keys_device(&mut dev, &stream).unwrap();
            let out = stream.clone_dtoh(&dev).unwrap();
            stream.synchronize().unwrap();
            check::validate_keys(&input, &out, Order::Ascending).unwrap();
        }
    }
}

/// Small and medium sizes for compute-sanitizer (memcheck, racecheck): every kernel, partial
/// blocks, both buffers of odd-even.
fn sanitizer_sizes() {
    for alg in NETWORKS {
        let Some(s) = sorter(alg) else { return };
        for n in [5usize, 4097, 9217, 40_000, 70_001] {
            check_one(&s, alg, n, Pattern::Random, Order::Ascending, 3);
            check_one(&s, alg, n, Pattern::Extremes, Order::Descending, 4);
        }
    }
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("every_length_and_pattern", every_length_and_pattern),
        harness::gpu("large_lengths", large_lengths),
        harness::gpu("ten_million_and_one", ten_million_and_one),
        harness::gpu("device_resident", device_resident),
        harness::gpu("sanitizer_sizes", sanitizer_sizes).with_ignored_flag(true),
    ])
}
