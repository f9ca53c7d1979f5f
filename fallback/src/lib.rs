//! gpusort's CPU backend: stable parallel sorts on rayon, and the checks every GPU result is
//! validated with.
//!
//! All pair sorts here are stable in both orders: items with equal keys keep their input order,
//! ascending or descending. Keys-only sorts need no stability (equal keys are indistinguishable).
//!
//! Sorts run on the backend's own thread pool ([`install`]), never on rayon's global one, so a
//! process forked from one that sorted can sort too.

#![warn(missing_docs)]

// Layers, each using only the ones above it in this list: `alloc` (fallible buffers), `key`
// (ordered bits), `order`, `keyfn`, `raw` (pointers, kept scratch), `pool`; `huge` (huge-page
// buffers) and `gather` (items in a permutation's order); the passes `wc` and
// `presorted`; `simd` (the vector quicksort for keys only); `radix`; `select` (the first k keys); `stable` (the sort on the
// pool); `keys`, `pairs`; `check` (the oracle).
mod alloc;
pub mod check;
mod counting;
mod gather;
mod huge;
pub mod key;
mod keyfn;
mod keys;
mod order;
mod pairs;
mod pool;
mod presorted;
mod radix;
mod raw;
pub mod rng;
mod select;
#[doc(hidden)]
pub mod simd;
mod stable;
mod wc;

pub use alloc::AllocError;
pub use gather::gather;
pub use huge::{HugePages, HugeVec};
pub use key::{Keyed, RadixBits, SortKey};
pub use order::Order;
pub use pool::{install, threads};
pub use raw::{kept_scratch_bytes, release_scratch};
pub use select::select_first;

/// `dst.copy_from_slice(src)` with non-temporal stores: each destination line is written whole
/// without being read first, which saves a third of the memory traffic of a large copy into memory
/// that is not in cache (staging buffers, results handed back to a caller). Small copies and the
/// unaligned edges use ordinary stores.
///
/// # Panics
/// When the lengths differ.
///
/// ```
/// let src = vec![7u64; 1 << 20];
/// let mut dst = vec![0u64; src.len()];
/// gpusort_cpu::copy_streaming(&mut dst, &src);
/// assert_eq!(dst, src);
/// ```
pub fn copy_streaming<T: Copy>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "copy_streaming lengths");
    // SAFETY: both slices hold `len` items and cannot overlap (one is borrowed mutably).
    unsafe { wc::copy(raw::Ptr(src.as_ptr() as *mut T), raw::Ptr(dst.as_mut_ptr()), src.len()) }
}

/// Stable sort of items by their keys.
///
/// `Err` when the scratch memory the sort needs (one item per input item) cannot be had; `v`
/// then holds its original contents.
///
/// ```
/// use gpusort_cpu::{sort_stable, Keyed, Order};
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Row { id: u32, score: f32 }
/// impl Keyed for Row {
///     type Key = f32;
///     fn sort_key(&self) -> f32 { self.score }
/// }
/// let mut rows = vec![Row { id: 0, score: 2.5 }, Row { id: 1, score: -1.0 }, Row { id: 2, score: 2.5 }];
/// sort_stable(&mut rows, Order::Descending)?;
/// assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), [0, 2, 1]);
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub fn sort_stable<T: Keyed>(v: &mut [T], order: Order) -> Result<(), AllocError> {
    stable::sort(v, order)
}

/// Sort keys only.
///
/// `Err` when the memory the sort needs cannot be had (up to one key per input key); `v` then
/// holds its original contents.
///
/// ```
/// let mut v = vec![3u64, 1, 2];
/// gpusort_cpu::sort_keys(&mut v, gpusort_cpu::Order::Ascending)?;
/// assert_eq!(v, [1, 2, 3]);
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub fn sort_keys<K: SortKey>(v: &mut [K], order: Order) -> Result<(), AllocError> {
    keys::sort(v, order)
}

/// [`sort_keys`] on a chosen instruction set at every size, skipping the choice of path; when
/// `isa` is not available here, or has no sort for `K`, the portable (radix) path runs. For
/// tests and benchmarks.
#[doc(hidden)]
pub fn sort_keys_on<K: SortKey>(v: &mut [K], order: Order, isa: simd::Isa) -> Result<(), AllocError> {
    keys::sort_on(v, order, isa)
}

/// Stable sort of split key and value slices, values moving with their keys.
///
/// `Err` when the memory the sort needs (two key-value pairs per input pair) cannot be had; both
/// slices then hold their original contents.
///
/// # Panics
/// If the two slices differ in length (the public API checks this first and returns an error).
///
/// ```
/// let (mut keys, mut values) = (vec![2i32, -7, 2], vec![10u32, 11, 12]);
/// gpusort_cpu::sort_pairs(&mut keys, &mut values, gpusort_cpu::Order::Ascending)?;
/// assert_eq!((keys, values), (vec![-7, 2, 2], vec![11, 10, 12]));
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub fn sort_pairs<K: SortKey, V: Copy + Send + Sync + 'static>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), AllocError> {
    stable::on_pool(keys.len(), || pairs::sort(keys, values, order))
}
