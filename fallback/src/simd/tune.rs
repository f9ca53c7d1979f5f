//! Every number that chooses between the vector sort and the radix sort, with the measurement
//! that set it.

/// Vector sorts of more keys than this run on the pool, split in pieces of at most `PAR_PIECE`,
/// when it has several threads. (With one, the calling thread sorts, sparing the wake-up of the
/// pool's worker; not timed apart from the batch and prefetch below, with which 64K u32 keys on
/// one thread of the Intel GPU host went from 0.312-0.382 ms to 0.199-0.205.)
/// 64K random u32 keys on the dev machine's 2 cores: 0.173 ms on the calling thread, 0.131 split
/// (from 32K, in pieces of 16K); u64 0.381 against 0.233.
pub(crate) const PAR_MIN: usize = 1 << 15;
/// Pieces of a parallel vector sort are split no further than this.
pub(crate) const PAR_PIECE: usize = 1 << 14;

/// The vector sort takes every size on the dev machine's 2 threads. A radix sort for the largest
/// integer keys on several threads was tried: with the row-order network it won at 16M on 2
/// threads (u32 97 against 119 ms), with the column-order network it lost (u32 38.5 against 47.2
/// ms, u64 83 against voracious' 96; f32 43.5 against 71.3). On the 16-core GPU host (Xeon,
/// AVX-512; `ci/npsort_bench.py --radix`) the radix sort's parallel passes win at 16M on 16
/// threads, where the vector sort's top partitions run on one thread each: u32 13.1 against 20.0
/// ms, f32 16.0 against 20.3, u64 49.2 against 56.4 (at 1M it is mixed: u32 1.02 against 1.21,
/// f32 3.53 against 1.45), hence [`RADIX_FROM`] with [`RADIX_THREADS`] or more.
///
/// Whether the vector sort is the one to use for `n` keys of type `K` on `isa`, `threads` being
/// the pool's size.
pub(crate) fn vector_wins<K: crate::key::SortKey>(isa: super::Isa, n: usize, threads: usize) -> bool {
    let Some(map) = super::Map::of::<K>() else { return false };
    if threads >= RADIX_THREADS && n >= RADIX_FROM {
        return false;
    }
    match isa {
        super::Isa::Portable => false,
        // See [`AVX2_MAX_32`]: float keys have no crossover.
        super::Isa::Avx2 if map == super::Map::Float => true,
        super::Isa::Avx2 if std::mem::size_of::<K>() == 4 => n <= AVX2_MAX_32,
        super::Isa::Avx2 => n <= AVX2_MAX_64,
        super::Isa::Avx512 => true,
    }
}

/// See [`vector_wins`]: from this many keys, on a pool of [`RADIX_THREADS`] or more, the radix sort.
pub(crate) const RADIX_FROM: usize = 1 << 24;
/// See [`vector_wins`]: 16 threads measured; 2 threads keep the vector sort at every size.
pub(crate) const RADIX_THREADS: usize = 16;

/// With AVX2 only (8 u32 or 4 u64 lanes, no compress), the vector sort takes integer keys up to
/// 1M (32-bit) and 256K (64-bit), float keys at every size. First measured with the AVX2 path
/// forced on a Zen 4 (one thread, vector against radix, ms: u32 64K 0.268 / 0.336, 1M 5.65 /
/// 5.85, 16M 109 / 96; u64 64K 0.624 / 0.721, 1M 13.0 / 11.7). On an AVX2-only machine (Zen 3,
/// signed-word compares), one thread, median of rounds, least time in brackets:
/// integers tie from 1M up (u32 4M 45.2 (30.4) / 42.9 (30.4), 16M 181 (137) / 180 (138); i32
/// 16M 194 (141) / 194 (141); u64 1M 22.2 (19.7) / 21.2 (17.7), 4M 109 (68) / 91 (56), 16M 333
/// (307) / 349 (318)), so they keep the crossovers; floats lose far more to the radix sort's
/// key maps and win at every size (f32 4M 45.2 (31.4) / 66.8 (53.0), 16M 193 (139) / 273 (258);
/// f64 1M 23.2 (15.4) / 34.3 (27.2), 4M 98.6 (73.8) / 135 (119)).
pub(crate) const AVX2_MAX_32: usize = 1 << 20;
/// See [`AVX2_MAX_32`].
pub(crate) const AVX2_MAX_64: usize = 1 << 18;

/// Registers of the network that sorts a range once it is this short: 16 (256 u32 or 128 u64
/// keys). With the network in row order, 8 registers won (64K random u32 keys sorted in blocks,
/// ns per key: 128 keys 1.02, 256 1.35); in column order (network.rs) 16 do, one thread on the
/// dev machine: u32 64K 0.174 against 0.198 ms, 1M 3.59 against 4.05; u64 64K 0.383 against 0.411.
pub(crate) const SMALL_REGS: usize = 16;

/// Registers read per step of the partition (and kept back at each end to make room), AVX-512.
/// The end to read from next depends on where the last step's keys went, a chain through a load,
/// a compare and a count; reading several registers per decision spreads that latency, and the
/// next step's lines are prefetched at both ends (`quick::partition`). Random keys, one thread,
/// ms, each variant timed twice in one run, alternating. The 16-core GPU host (Intel
/// Xeon, AVX-512), against 4 registers without prefetch: u32 64K 0.249 / 1M 5.51 / 16M 86.5
/// against 0.382 / 6.85 / 141 (np.sort 0.183 / 4.89 / 83.9); f32 1M 4.94 / 16M 115 against
/// 7.33 / 164; u64 1M 10.1 / 16M 212 against 15.1 / 326. Eight without prefetch: u32 64K 0.259,
/// 1M 6.04, 16M 125. (Earlier, on the dev machine (Zen 4) without the prefetch: one register 64K 0.278
/// ms, 1M 7.2; four 0.225 and 4.5; eight no faster, 0.226.)
pub(crate) const BATCH_WIDE: usize = 8;
/// As [`BATCH_WIDE`], for AVX2's 16 registers (not timed again: 8 would hold all 16 at the ends).
pub(crate) const BATCH_NARROW: usize = 4;

/// Keys sampled for a pivot, at every range size: one register (16 32-bit keys with AVX-512, 8
/// 64-bit keys with AVX-512 or 32-bit with AVX2, 4 64-bit with AVX2), sorted by the network in
/// that register: sorting two registers of samples is a chain of 10 dependent network stages.
/// Intel dev machine (Emerald Rapids), AVX-512, one thread, least of 3000 (64K) or 200 (1M)
/// sorts, 8 samples against 16: u64 64K 0.337 against 0.357 ms, 1M 7.51-7.71 against 7.70-7.85;
/// f64 0.313 against 0.335, 1M within the noise. 64 above 4K keys (the rule before) cost more
/// than the better pivots saved. Dev machine (Zen 5), one thread, ms, same run: u32 64K 0.082
/// against 0.091, 1M 1.84 against 2.00, 16M 40.1 against 42.1; u64 64K 0.171 against 0.181, 1M
/// 3.97 against 4.03, 16M 88.4 against 88.9. (64 keys from a few whole registers at spread
/// places instead of 64 scattered keys: u32 0.086 / 1.83 / 39.7, u64 0.172 / 3.87 / 92.8.)
/// The 32-bit AVX-512 sample is one gather (`Vector::load_spread`); 16 loads into an array read
/// back as a register stalled the read. Intel dev machine, one thread, least of 2000
/// (64K) or 100 (1M) sorts, 3 rounds, array against gather: u32 64K 0.175 / 0.170 ms, 1M 3.60 /
/// 3.56; f32 0.179 / 0.174, 3.71 / 3.66. A gather of 8 64-bit keys was slower than the array:
/// u64 64K 0.334 / 0.342, 1M 7.35 / 7.50; f64 0.300 / 0.305, 6.76 / 6.86 (not kept).
/// The sample's sort is a chain of dependent stages, so its latency counts: f32 samples are
/// sorted as signed words (`avx512::sorted_as_ints`; integer min and max take one cycle,
/// `vminps` four). Same machine and method: f32 64K 0.175 / 0.169 ms, 1M 3.64 / 3.55. f64
/// samples as signed words: no change (64K 0.301 / 0.302, 1M 6.80 / 6.80), not kept.
pub(crate) const SAMPLE: usize = 16;

/// Ranges of up to this many halves of the network (3: 384 u32 keys with AVX-512) are split
/// near `n - small` keys rather than at the median (`quick::split_rank`), the left side aimed
/// `small / LEAF_AIM_SLACK` keys past it, where the sample is a whole register of 16 keys. A
/// model of the sort's cost (each network's comparators and shuffles, a partition pass per key,
/// the spread of a sample's order statistics) put this rule within 0.2% of the best rank per
/// range size and the median 6.5% above it; aiming at the middle of the fitting range (`(n -
/// small + small / 2) / 2`) 2.3% above. Intel dev machine, one thread, least of 2000
/// (64K) or 100 (1M) sorts, 3 rounds, median / middle aim / this rule: u32 64K 0.180 / 0.176 /
/// 0.175 ms, 1M 4.01 / 3.70 / 3.64; i32 0.182 / 0.177 / 0.176, 3.71 / 3.72 / 3.63; f32 1M 3.84 /
/// 3.78 / 3.73. With 8 samples (64-bit keys) it lost: u64 64K 0.339 against 0.349, f64 0.302
/// against 0.322, so those keep the median.
pub(crate) const LEAF_SPLIT_HALVES: usize = 3;
/// See [`LEAF_SPLIT_HALVES`].
pub(crate) const LEAF_AIM_SLACK: usize = 16;
