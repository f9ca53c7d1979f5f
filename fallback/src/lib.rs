//! gpusort's CPU backend: stable parallel sorts on rayon, and the checks every GPU result is
//! validated with.
//!
//! All pair sorts here are stable in both orders: items with equal keys keep their input order,
//! ascending or descending. Keys-only sorts need no stability (equal keys are indistinguishable).
//!
//! Sorts run on the backend's own thread pool ([`install`]), never on rayon's global one, so a
//! process forked from one that sorted can sort too.

mod alloc;
pub mod check;
pub mod key;
mod keys;
mod pairs;
mod pool;
mod presorted;
mod radix;
mod raw;
pub mod rng;
mod wc;

pub use alloc::AllocError;
pub use key::{Keyed, RadixBits, SortKey};
pub use pool::{install, threads};
pub use raw::{kept_scratch_bytes, release_scratch};

/// Sort direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest key first (the default).
    #[default]
    Ascending,
    /// Largest key first.
    Descending,
}

impl Order {
    /// The ordered bits with which an ascending radix sort yields this order (stable either way).
    #[inline(always)]
    pub fn directed<B: RadixBits>(self, bits: B) -> B {
        match self {
            Order::Ascending => bits,
            Order::Descending => bits.invert(),
        }
    }
}

/// `dst.copy_from_slice(src)` with non-temporal stores: each destination line is written whole
/// without being read first, which saves a third of the memory traffic of a large copy into memory
/// that is not in cache (staging buffers, results handed back to a caller). Small copies and the
/// unaligned edges use ordinary stores.
///
/// # Panics
/// When the lengths differ.
pub fn copy_streaming<T: Copy>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "copy_streaming lengths");
    // SAFETY: both slices hold `len` items and cannot overlap (one is borrowed mutably).
    unsafe { wc::copy(raw::Ptr(src.as_ptr() as *mut T), raw::Ptr(dst.as_mut_ptr()), src.len()) }
}

/// Runs a sort of `len` items on the pool, or on the calling thread when it is small enough
/// that the sort takes no parallel path (waking the pool would cost more than such a sort).
fn on_pool<R: Send>(len: usize, f: impl FnOnce() -> R + Send) -> R {
    if len <= radix::SEQ_MAX {
        f()
    } else {
        install(f)
    }
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
    // One monomorphised sort per direction keeps the key function free of a branch.
    on_pool(v.len(), || match order {
        Order::Ascending => radix::sort(v, |x: &T| x.sort_key().to_ordered_bits()),
        Order::Descending => radix::sort(v, |x: &T| x.sort_key().to_ordered_bits().invert()),
    })
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
    on_pool(v.len(), || keys::sort(v, order))
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
    on_pool(keys.len(), || pairs::sort(keys, values, order))
}
