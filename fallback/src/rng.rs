//! splitmix64 (Steele, Lea and Flood, 2014): the seeded input generator of gpusort's tests, benches
//! and demo, the same stream as `benches/cub/cub_bench.cu` and `ci/report.py` draw. Not for anything
//! that needs unpredictable numbers.

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Output `i` (from 0) of the stream seeded with `seed`, computed alone, so that large inputs can
/// be made on every core: `splitmix64(s, i)` is the `i + 1`-th `SplitMix64(s).next()`.
///
/// ```
/// use gpusort_cpu::rng::{splitmix64, SplitMix64};
/// let mut r = SplitMix64(7);
/// assert_eq!((r.next(), r.next()), (splitmix64(7, 0), splitmix64(7, 1)));
/// ```
#[inline]
pub fn splitmix64(seed: u64, i: u64) -> u64 {
    mix(seed.wrapping_add(i.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// The splitmix64 stream; the field is its state, the seed to start with.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The stream seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 bits.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix(self.0)
    }

    /// The low 32 bits of the next output (as `cub_bench` draws its keys).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.next() as u32
    }
}
