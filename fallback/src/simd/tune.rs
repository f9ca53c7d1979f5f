//! Every number that chooses between the vector sort and the radix sort, with the measurement
//! that set it.

/// Vector sorts of more keys than this run on the pool, split in pieces of at most `PAR_PIECE`.
/// 64K random u32 keys on the dev machine's 2 cores: 0.173 ms on the calling thread, 0.131 split
/// (from 32K, in pieces of 16K); u64 0.381 against 0.233.
pub(crate) const PAR_MIN: usize = 1 << 15;
/// Pieces of a parallel vector sort are split no further than this.
pub(crate) const PAR_PIECE: usize = 1 << 14;

/// The vector sort takes every size and every thread count on the dev machine. A radix sort for
/// the largest integer keys on several threads was tried: with the row-order network it won at
/// 16M on 2 threads (u32 97 against 119 ms), with the column-order network it lost (u32 38.5
/// against 47.2 ms, u64 83 against voracious' 96; f32 43.5 against 71.3). The 16-core GPU host is
/// not measured yet: `ci/npsort.sh --radix` shows both there.
///
/// Whether the vector sort is the one to use for keys of type `K` on `isa`.
pub(crate) fn vector_wins<K: crate::key::SortKey>(isa: super::Isa) -> bool {
    isa != super::Isa::Portable && super::Map::of::<K>().is_some()
}

/// Registers of the network that sorts a range once it is this short: 16 (256 u32 or 128 u64
/// keys). With the network in row order, 8 registers won (64K random u32 keys sorted in blocks,
/// ns per key: 128 keys 1.02, 256 1.35); in column order (network.rs) 16 do, one thread on the
/// dev machine: u32 64K 0.174 against 0.198 ms, 1M 3.59 against 4.05; u64 64K 0.383 against 0.411.
pub(crate) const SMALL_REGS: usize = 16;
