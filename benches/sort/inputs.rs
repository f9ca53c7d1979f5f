//! The bench's inputs (the six patterns, from a splitmix64 stream shared with CUB and torch) and
//! the checks every configuration's result passes before it is timed.

use std::sync::atomic::{AtomicU64, Ordering};

use gpusort::{check, Kvp, Order};
use rayon::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pattern {
    Random,
    Sorted,
    Reverse,
    Distinct16,
    AllEqual,
    Zipf,
}

pub const PATTERNS: [Pattern; 6] =
    [Pattern::Random, Pattern::Sorted, Pattern::Reverse, Pattern::Distinct16, Pattern::AllEqual, Pattern::Zipf];

/// The i-th output of a splitmix64 stream seeded with `seed`; computed per index so inputs of
/// hundreds of millions of pairs are generated on every core.
pub use gpusort_cpu::rng::splitmix64 as splitmix;

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Random => "random",
            Pattern::Sorted => "sorted",
            Pattern::Reverse => "reverse",
            Pattern::Distinct16 => "distinct16",
            Pattern::AllEqual => "equal",
            Pattern::Zipf => "zipf",
        }
    }

    /// Key of item `i` of `n`. Not all-zero anywhere: zeros would flatter memory compression.
    fn key(self, n: usize, seed: u64, i: usize) -> u32 {
        let z = splitmix(seed, i as u64);
        match self {
            Pattern::Random => z as u32,
            Pattern::Sorted => i as u32,
            Pattern::Reverse => (n - 1 - i) as u32,
            Pattern::Distinct16 => splitmix(16, z & 15) as u32,
            Pattern::AllEqual => 0x9E37_79B9,
            // Log-uniform ranks (an octave picked uniformly, then a rank inside it): rank r has
            // probability about 1/(32 r), Zipf's law with exponent 1. Integer-only so C++ and
            // Python make the same keys; the odd multiplier scatters frequent keys over the digits.
            Pattern::Zipf => {
                let e = (z >> 59) as u32;
                let rank = (1u32 << e) | (z as u32 & ((1u32 << e) - 1));
                rank.wrapping_mul(0x9E37_79B1)
            }
        }
    }

    /// Copy `copy` of this pattern: copy 0 uses seed `n`, as `cub_bench` and `report.py torch` do.
    pub fn kvps(self, n: usize, copy: u64) -> Vec<Kvp> {
        let seed = n as u64 + copy;
        (0..n).into_par_iter().map(|i| Kvp::new(self.key(n, seed, i), i as u32)).collect()
    }

    /// The keys of `kvps(n, copy)` alone.
    pub fn keys(self, n: usize, copy: u64) -> Vec<u32> {
        let seed = n as u64 + copy;
        (0..n).into_par_iter().map(|i| self.key(n, seed, i)).collect()
    }
}

/// One number from `var`, else `default`.
pub fn env_count(var: &str, default: usize) -> usize {
    std::env::var(var).map_or(default, |s| s.trim().parse().expect(var))
}

pub fn env_sizes(var: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(var) {
        Ok(s) => s.split(',').filter(|t| !t.trim().is_empty()).map(|t| t.trim().parse().expect(var)).collect(),
        Err(_) => default.to_vec(),
    }
}

/// every value present once and still with its key, and equal keys in input order when `stable`.
/// The oracle's own permutation check hashes every pair, which takes seconds at 64M.
pub fn check_pairs(input: &[Kvp], out: &[Kvp], stable: bool) -> Result<(), String> {
    if input.len() != out.len() {
        return Err(format!("length changed: {} in, {} out", input.len(), out.len()));
    }
    if let Some(i) = check::first_unsorted(out, Order::Ascending) {
        return Err(format!("not sorted at {i}: {:?} then {:?}", out[i - 1], out[i]));
    }
    let seen: Vec<AtomicU64> = (0..input.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    let bad = out.par_iter().enumerate().find_any(|&(j, p)| {
        let v = p.value as usize;
        let fresh = v < input.len() && seen[v / 64].fetch_or(1 << (v % 64), Ordering::Relaxed) & (1 << (v % 64)) == 0;
        let in_order = !stable || j == 0 || out[j - 1].key != p.key || out[j - 1].value < p.value;
        !fresh || input[v].key != p.key || !in_order
    });
    match bad {
        Some((j, p)) => Err(format!("pair {p:?} at {j} lost its key, is duplicated or broke stability")),
        None => Ok(()),
    }
}

pub fn check_keys(input: &[u32], out: &[u32]) -> Result<(), String> {
    if input.len() != out.len() {
        return Err(format!("length changed: {} in, {} out", input.len(), out.len()));
    }
    let mut expect = input.to_vec();
    expect.par_sort_unstable();
    match expect.iter().zip(out).position(|(a, b)| a != b) {
        Some(i) => Err(format!("keys differ from the reference at {i}")),
        None => Ok(()),
    }
}

/// Copies on every core: restoring a 512 MB input must not dominate the bench's wall time.
pub fn par_copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    dst.par_chunks_mut(1 << 16).zip(src.par_chunks(1 << 16)).for_each(|(d, s)| d.copy_from_slice(s));
}
