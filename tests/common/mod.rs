//! Inputs and backends shared by the test suites.
#![allow(dead_code)]

use gpusort::{Algorithm, Key, Keyed, Sorter};

pub mod dir;
pub mod harness;

/// A backend under test, with the algorithms it must sort with.
pub struct Backend {
    pub name: &'static str,
    pub sorter: Sorter,
    pub algorithms: Vec<Algorithm>,
}

/// The CPU backend.
pub fn cpu_backend() -> Backend {
    Backend { name: "cpu", sorter: Sorter::cpu(), algorithms: vec![Algorithm::Auto, Algorithm::Radix] }
}

/// The first CUDA device, for cases that `harness::gpu` runs only where there is one.
pub fn cuda_backend() -> Backend {
    let sorter = Sorter::cuda().unwrap_or_else(|e| panic!("a GPU case ran without a usable GPU: {e}"));
    let algorithms = vec![Algorithm::Auto, Algorithm::Radix, Algorithm::Bitonic, Algorithm::OddEvenMerge];
    Backend { name: "cuda", sorter, algorithms }
}

impl Backend {
    /// Whether a case of `n` items in pattern `p` of a sweep written for the GPU's size-dependent
    /// paths runs here: always on a GPU; on the CPU backend up to 4097 items, and past that with
    /// random and few-distinct keys only. The CPU backend's own size thresholds and patterns are
    /// gpusort-cpu's tests (fallback/tests/sorts), built optimised; here, in an unoptimised test
    /// build, the large CPU cases took most of a CI run's test time and repeated those.
    pub fn runs(&self, n: usize, p: Pattern) -> bool {
        self.name != "cpu" || n <= 4097 || matches!(p, Pattern::Random | Pattern::FewDistinct)
    }
}

/// Prints past the test harness's output capture, so a skip shows even when the test passes.
pub fn skip_loudly(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// Lengths at the usual trouble spots: tiny, around powers of two (tile sizes are powers of two),
/// and primes.
pub const SMALL_LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024,
    1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 10007,
];
pub const LARGE_LENGTHS: &[usize] = &[65535, 65536, 65537, 131071, 262147, 1 << 20, (1 << 20) + 1, 1_000_003];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    Random,
    AllEqual,
    /// Only 0 and u32::MAX: the extremes of the key range.
    Extremes,
    Sorted,
    Reverse,
    /// 16 distinct keys.
    FewDistinct,
    /// Random in the low byte only: most radix digits are constant.
    LowByte,
}

pub const PATTERNS: &[Pattern] = &[
    Pattern::Random,
    Pattern::AllEqual,
    Pattern::Extremes,
    Pattern::Sorted,
    Pattern::Reverse,
    Pattern::FewDistinct,
    Pattern::LowByte,
];

/// splitmix64, seeded: reproducible inputs (`Rng(seed)`, `.next()`, `.next_u32()`).
pub use gpusort_cpu::rng::SplitMix64 as Rng;

/// 64 random-ish bits per element following `pattern` (never all zero for Random).
pub fn bits(n: usize, pattern: Pattern, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed ^ (n as u64).rotate_left(17));
    let mut v: Vec<u64> = (0..n).map(|_| r.next()).collect();
    match pattern {
        Pattern::Random => {}
        Pattern::AllEqual => v.iter_mut().for_each(|x| *x = 0xDEAD_BEEF_1234_5678),
        Pattern::Extremes => v.iter_mut().for_each(|x| *x = if *x & 1 == 0 { 0 } else { u64::MAX }),
        // Through the oracle's sort, optimised in gpusort-cpu: this crate's own is not.
        Pattern::Sorted => v = sorted(&v),
        Pattern::Reverse => v = sorted(&v).into_iter().rev().collect(),
        Pattern::FewDistinct => v.iter_mut().for_each(|x| *x = (*x % 16).wrapping_mul(0x0F0F_0F0F_0F0F_0F0F)),
        Pattern::LowByte => v.iter_mut().for_each(|x| *x = 0x7000_0000_7000_0000 | (*x & 0xff)),
    }
    v
}

/// `v` in ascending order.
pub fn sorted(v: &[u64]) -> Vec<u64> {
    gpusort::check::stable_order(v).into_iter().map(|at| v[at]).collect()
}

/// A key type under test, with an identity for multiset and stability checks (floats have none).
/// Every type of the key list is one: a pattern's top bits become the key's ordered bits, so
/// Sorted stays sorted and Extremes hits the type's smallest and largest keys.
pub trait TestKey: Key + Copy + std::fmt::Debug {
    fn from_bits(b: u64) -> Self;
    fn id(self) -> u64;
}

/// The ordered-bits words of the key types, built from a pattern's top bits.
pub trait FromTopBits {
    fn from_top(b: u64, bytes: usize) -> Self;
}
impl FromTopBits for u32 {
    fn from_top(b: u64, bytes: usize) -> u32 {
        (b >> (64 - 8 * bytes)) as u32
    }
}
impl FromTopBits for u64 {
    fn from_top(b: u64, bytes: usize) -> u64 {
        b >> (64 - 8 * bytes)
    }
}

impl<K: Key + std::fmt::Debug> TestKey for K
where
    K::Bits: FromTopBits,
{
    fn from_bits(b: u64) -> K {
        K::from_ordered_bits(K::Bits::from_top(b, K::KEY_BYTES))
    }
    fn id(self) -> u64 {
        self.to_ordered_bits().into()
    }
}

/// A split pair rebuilt as one item, so the oracle can check it (values of 4 or 8 bytes).
#[derive(Clone, Copy, Debug)]
pub struct Pair<K, V = u32> {
    pub key: K,
    pub value: V,
}

impl<K: TestKey, V: Copy + Eq> PartialEq for Pair<K, V> {
    fn eq(&self, o: &Self) -> bool {
        self.key.id() == o.key.id() && self.value == o.value
    }
}
impl<K: TestKey, V: Copy + Eq> Eq for Pair<K, V> {}
impl<K: TestKey, V: Copy + Eq + std::hash::Hash> std::hash::Hash for Pair<K, V> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.key.id(), self.value).hash(h)
    }
}
impl<K: TestKey, V: Copy + Send + Sync + 'static> Keyed for Pair<K, V> {
    type Key = K;
    fn sort_key(&self) -> K {
        self.key
    }
}

/// The first CUDA device as a sorter, or `None` after a loud skip line; with
/// `GPUSORT_REQUIRE_GPU=1` a missing GPU fails the test.
pub fn cuda_or_skip(what: &str) -> Option<Sorter> {
    match Sorter::cuda() {
        Ok(s) => Some(s),
        Err(e) if std::env::var("GPUSORT_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("GPUSORT_REQUIRE_GPU=1 but no usable GPU for {what}: {e}")
        }
        Err(e) => {
            skip_loudly(&format!("skipped: {what}: no CUDA device ({e})"));
            None
        }
    }
}

/// Pairs whose values are their input positions (witnesses for the permutation and stability
/// checks), keys following `pattern`.
pub fn kvp_input(n: usize, pattern: Pattern, seed: u64) -> Vec<gpusort::Kvp> {
    bits(n, pattern, seed)
        .into_iter()
        .enumerate()
        .map(|(i, b)| gpusort::Kvp::new(u32::from_bits(b), i as u32))
        .collect()
}

/// A device memory limit under which a radix sort of `T` runs in pieces of at most `run` items
/// (see `Sorter::with_device_memory_limit`: 2 items + 1 byte per item, plus 64 KiB).
pub fn radix_limit_for_runs<T>(run: usize) -> usize {
    // Small keys sort as 32-bit ordered bits made beside them.
    let per_item = match std::mem::size_of::<T>() {
        small @ ..4 => small + 9,
        size => 2 * size + 1,
    };
    (64 << 10) + run * per_item
}

/// A copy of `from` in page-locked host memory of `s`'s context (cached, flags 0: what
/// `cudaHostAlloc` and torch's `pin_memory()` give), which the host sorts copy in place.
#[cfg(feature = "cuda")]
pub fn page_locked<T: gpusort::cudarc::driver::DeviceRepr + gpusort::cudarc::driver::ValidAsZeroBits + Copy>(
    s: &Sorter,
    from: &[T],
) -> gpusort::cudarc::driver::PinnedHostSlice<T> {
    let ctx = s.cuda_context().expect("a CUDA sorter");
    // SAFETY: every item is written below before anything reads it.
    let mut p = unsafe { ctx.alloc_pinned_with_flags::<T>(from.len().max(1), 0) }.expect("page-locked memory");
    p.as_mut_slice().expect("page-locked view")[..from.len()].copy_from_slice(from);
    p
}
