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

/// Registers of the network that sorts a range once it is this short: 16 (256 u32 or 128 u64
/// keys). With the network in row order, 8 registers won (64K random u32 keys sorted in blocks,
/// ns per key: 128 keys 1.02, 256 1.35); in column order (network.rs) 16 do, one thread on the
/// dev machine: u32 64K 0.174 against 0.198 ms, 1M 3.59 against 4.05; u64 64K 0.383 against 0.411.
pub(crate) const SMALL_REGS: usize = 16;
