//! Every number that chooses between the vector sort and the radix sort, with the measurement
//! that set it.

/// Pieces of a parallel vector sort are split no further than this: below it one thread sorts a
/// piece faster than handing half to another thread pays.
pub(crate) const PAR_PIECE: usize = 1 << 16;

/// From this many keys, with more than one thread, integer keys go back to the radix sort (u64
/// ones to voracious). 16M random keys on the 2-core dev machine (Zen 4, loaded), both cores:
/// u32 vector 119 ms against radix 97, u64 170 against voracious 163, but f32 vector 89 against
/// radix 131 (the radix sort maps float keys on every pass), so float keys stay.
pub(crate) const PAR_RADIX_MIN: usize = 1 << 23;

/// Whether the vector sort beats the radix sort for `n` keys of type `K` on `threads` threads.
pub(crate) fn vector_wins<K: crate::key::SortKey>(isa: super::Isa, n: usize, threads: usize) -> bool {
    let Some(map) = super::Map::of::<K>() else { return false };
    if isa == super::Isa::Portable {
        return false;
    }
    map == super::Map::Float || threads == 1 || n < PAR_RADIX_MIN
}

/// Registers of the network that sorts a range once it is this short: 8 (128 u32 or 64 u64
/// keys). Sorting 64K random u32 keys in blocks on the dev machine, ns per key: 16 keys 0.54,
/// 64 0.98, 128 1.02, 256 1.35; a partition pass costs about 0.3, so 256 did not pay.
pub(crate) const SMALL_REGS: usize = 8;
