//! Keys-only sorts in vector registers: a vectorized quicksort (see `quick`) whose base case is a
//! sorting network (see `network`), on the instruction set found at run time. Keys sort as their
//! directed ordered bits (u32 or u64), mapped in registers as the first pass reads them and back
//! as the last stores them (`map::KeyMap`), so float keys keep `total_cmp` order bit for bit. Inputs too small or too large for this to win, key types it does
//! not know, and machines without the instruction set keep the radix sort: the portable path.
//!
//! Instruction sets: AVX-512F (`avx512.rs`, 16 u32 or 8 u64 lanes) and AVX2 (`avx2.rs`, 8 or 4),
//! chosen at run time; both implement `vector::Vector`, and `quick` and `network` are written once
//! over it. Every other machine (aarch64 included) keeps the radix sort. `tune` says where each
//! path wins. Float keys without NaN are compared as floats where one thread sorts them
//! (`float`).
//!
//! All cores: the top partitions split the range and `rayon::join` sorts the two sides; each
//! side below `tune::PAR_PIECE` is sorted by one thread.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod float;
mod map;
// The generic algorithm has no user on machines without an implementation of `Vector`.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod network;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod quick;
pub(crate) mod tune;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod vector;

use std::sync::OnceLock;

use crate::key::SortKey;
use crate::order::Order;
use map::KeyMap;
pub(crate) use map::Map;
use quick::Split;
use vector::Lane;

/// The instruction sets the keys-only sort can run on. `Portable` is the radix sort.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// No vector sort: the radix sort (every machine).
    Portable,
    /// AVX2 (x86-64).
    Avx2,
    /// AVX-512F (x86-64).
    Avx512,
}

impl Isa {
    /// Every instruction set, portable first.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// Whether this machine can run it.
    pub fn available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("popcnt"),
            #[cfg(not(target_arch = "x86_64"))]
            Isa::Avx2 | Isa::Avx512 => false,
        }
    }

    /// The best available one, capped by `GPUSORT_CPU_SIMD` (`off`, `avx2`, `avx512`) when that
    /// is set: a way to measure or test the other paths on a machine with wider vectors. Read once.
    pub fn detected() -> Isa {
        static BEST: OnceLock<Isa> = OnceLock::new();
        *BEST.get_or_init(|| {
            let cap = match std::env::var("GPUSORT_CPU_SIMD").as_deref() {
                Ok("off") | Ok("portable") | Ok("0") => Isa::Portable,
                Ok("avx2") => Isa::Avx2,
                _ => Isa::Avx512,
            };
            Isa::ALL.into_iter().filter(|i| *i <= cap && i.available()).max().unwrap_or(Isa::Portable)
        })
    }
}

/// One key width's entry points on one instruction set.
#[derive(Clone, Copy)]
struct Kernel<B> {
    /// Sorts on the calling thread (`quick::sort`).
    sort: unsafe fn(&mut [B], KeyMap, bool),
    /// Partitions a range longer than the base case (`quick::split`), leaving the words that the
    /// kernel sorts (ordered bits, or signed words: `map::Bits::FLIPPED`).
    split: unsafe fn(&mut [B], KeyMap, bool) -> Split,
    /// Maps a range that `split` finished (one value) back to raw key bits.
    back: fn(KeyMap, &mut [B]),
}

trait Width: Lane + float::Word {
    /// The kernel for keys whose bits `map` orders: signed keys sort as signed words where the
    /// instruction set compares both ways (AVX-512), which makes their raw bits the words.
    fn kernel(isa: Isa, map: Map) -> Option<Kernel<Self>>;
    /// The sort of float keys of this width as floats (`float::exact`), and the NaN scan that
    /// tells them.
    fn float(isa: Isa) -> Option<(float::Sort<Self>, float::Scan<Self>)>;
}

impl Width for u32 {
    fn kernel(isa: Isa, map: Map) -> Option<Kernel<u32>> {
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 if map == Map::Signed => {
                Some(Kernel { sort: avx512::sort_i32, split: avx512::split_i32, back: avx512::back_i32 })
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => Some(Kernel { sort: avx2::sort_u32, split: avx2::split_u32, back: avx2::back_u32 }),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Some(Kernel { sort: avx512::sort_u32, split: avx512::split_u32, back: avx512::back_u32 }),
            _ => None,
        }
    }
    fn float(isa: Isa) -> Option<(float::Sort<u32>, float::Scan<u32>)> {
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Some((avx512::sort_f32, avx512::scan_f32)),
            _ => None,
        }
    }
}

impl Width for u64 {
    fn kernel(isa: Isa, map: Map) -> Option<Kernel<u64>> {
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 if map == Map::Signed => {
                Some(Kernel { sort: avx512::sort_i64, split: avx512::split_i64, back: avx512::back_i64 })
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => Some(Kernel { sort: avx2::sort_u64, split: avx2::split_u64, back: avx2::back_u64 }),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Some(Kernel { sort: avx512::sort_u64, split: avx512::split_u64, back: avx512::back_u64 }),
            _ => None,
        }
    }
    fn float(isa: Isa) -> Option<(float::Sort<u64>, float::Scan<u64>)> {
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => Some((avx2::sort_f64, avx2::scan_f64)),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Some((avx512::sort_f64, avx512::scan_f64)),
            _ => None,
        }
    }
}

/// Whether [`sort`] has a kernel for keys of type `K` on `isa` (and `isa` is available).
pub(crate) fn has_kernel<K: SortKey>(isa: Isa) -> bool {
    let Some(map) = Map::of::<K>() else { return false };
    let kernel = match std::mem::size_of::<K>() {
        4 => u32::kernel(isa, map).is_some(),
        8 => u64::kernel(isa, map).is_some(),
        _ => false,
    };
    kernel && isa.available()
}

/// Sorts `v` with the vector sort on `isa` when the key type has one there and `isa` is
/// available; false, with `v` untouched, otherwise. Ranges above `piece` keys are split over the
/// current rayon pool. Needs no memory.
pub(crate) fn sort<K: SortKey>(v: &mut [K], order: Order, isa: Isa, piece: usize) -> bool {
    if !isa.available() {
        return false;
    }
    let Some(map) = Map::of::<K>() else { return false };
    let descending = order == Order::Descending;
    // The keys go to the words the kernel sorts as the first pass reads them and back as the
    // last stores them: no passes of their own.
    let key_map = KeyMap { map, descending };
    if let Some(bits) = map::as_bits::<K, u32>(v) {
        return sort_words(bits, isa, key_map, piece);
    }
    if let Some(bits) = map::as_bits::<K, u64>(v) {
        return sort_words(bits, isa, key_map, piece);
    }
    false
}

/// [`sort`] on the raw words of the keys.
fn sort_words<B: Width>(bits: &mut [B], isa: Isa, key_map: KeyMap, piece: usize) -> bool {
    // Float keys without NaN are compared as floats where one thread sorts them. The check is a
    // pass of its own: on 16 threads of the Intel GPU host it cost more than the compares saved
    // (f64 keys, `float.rs`).
    if let (Map::Float, Some((sort_float, scan)), true) = (key_map.map, B::float(isa), piece >= bits.len()) {
        // SAFETY: both entries exist only for an available instruction set (checked in `sort`).
        if unsafe { float::exact(bits, scan) } {
            unsafe { sort_float(bits, float::key_map(key_map.descending)) };
            float::order_zeros(bits, key_map.descending);
            return true;
        }
    }
    B::kernel(isa, key_map.map).is_some_and(|k| run(bits, k, key_map, piece))
}

fn run<B: Width>(v: &mut [B], kernel: Kernel<B>, key_map: KeyMap, piece: usize) -> bool {
    let depth = 2 * (usize::BITS - v.len().leading_zeros());
    // The network takes any range up to its size: splitting below it gains nothing.
    split_sort(v, kernel, (piece.max(1 << 10), depth), key_map, false);
    true
}

/// Splits until the pieces are at most `piece` keys, sorting the two sides of each split in
/// parallel. `depth` bounds the splits: past it (bad pivots) a piece goes to one thread, whose
/// sort has its own bound. `mapped`: the keys are ordered bits already (else raw key bits, which
/// the first pass maps); they come back as raw key bits.
fn split_sort<B: Width>(v: &mut [B], kernel: Kernel<B>, (piece, depth): (usize, u32), map: KeyMap, mapped: bool) {
    if v.len() <= piece || depth == 0 {
        // SAFETY: `kernel` exists only for an available instruction set (checked in `sort`).
        unsafe { (kernel.sort)(v, map, mapped) };
        return;
    }
    // SAFETY: as above; `v` is longer than `piece`, which is above the base case.
    let s = unsafe { (kernel.split)(v, map, !mapped) };
    let (left, right) = v.split_at_mut(s.mid);
    let side = |side: &mut [B], done: bool| {
        if done {
            // One value: finished, back to raw key bits.
            (kernel.back)(map, side)
        } else {
            split_sort(side, kernel, (piece, depth - 1), map, true)
        }
    };
    rayon::join(|| side(left, s.left_done), || side(right, s.right_done));
}
