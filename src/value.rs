//! The value types split pair sorts move beside their keys: 4-byte payloads (`u32`, `i32`, `f32`)
//! and 8-byte payloads (`u64`, `i64`, `f64`: row ids past 2^32, byte offsets, timestamps).
//!
//! Values are never compared, only moved, so each width travels as one unsigned type: every
//! 4-byte value as `u32`, every 8-byte value as `u64`, bit for bit (a NaN payload stays as it
//! was). 4-byte values take the backends' split-pair path as they always did; 8-byte values take
//! `Sorter::sort_pairs_wide` (`sorter/values.rs`).

mod sealed {
    pub trait Sealed {}
}

/// A value's bits as one of the two widths the sorts move.
#[doc(hidden)]
#[derive(Debug)]
pub enum ValueSlice<'a> {
    /// 4-byte values.
    U32(&'a mut [u32]),
    /// 8-byte values.
    U64(&'a mut [u64]),
}

/// A value type [`Sorter::sort_pairs`](crate::Sorter::sort_pairs) (and `sort_segments`,
/// `top_k_pairs`) moves with its key: `u32`, `i32`, `f32` (4 bytes) or `u64`, `i64`, `f64`
/// (8 bytes), an opaque payload moved bit for bit. Sealed.
///
/// ```
/// // Row ids past 2^32 beside f32 scores.
/// let mut scores = vec![0.5f32, -2.0, 0.5];
/// let mut rows = vec![5_000_000_000u64, 7, 1 << 40];
/// gpusort::Sorter::auto().sort_pairs(&mut scores, &mut rows)?;
/// assert_eq!(rows, [7, 5_000_000_000, 1 << 40]);
/// # Ok::<(), gpusort::SortError>(())
/// ```
///
/// An array of `(u64 key, u64 value)` structs needs no pair type of its own:
/// [`Sorter::sort_by_key`](crate::Sorter::sort_by_key) sorts it stably, argsorting the keys on
/// the sorter's backend and gathering the structs on all host cores.
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Kvp64 { key: u64, value: u64 }
/// let mut v = vec![Kvp64 { key: 9, value: 1 << 40 }, Kvp64 { key: 2, value: 3 }, Kvp64 { key: 9, value: 0 }];
/// gpusort::Sorter::auto().sort_by_key(&mut v, |p| p.key)?;
/// assert_eq!(v.iter().map(|p| p.value).collect::<Vec<_>>(), [3, 1 << 40, 0]);
/// # Ok::<(), gpusort::SortError>(())
/// ```
pub trait Value: Copy + Send + Sync + sealed::Sealed + 'static {
    /// The slice as the unsigned values of its width.
    #[doc(hidden)]
    fn bits(v: &mut [Self]) -> ValueSlice<'_>;
}

macro_rules! value_type {
    ($t:ty, $variant:ident, $bits:ty) => {
        impl sealed::Sealed for $t {}
        impl Value for $t {
            fn bits(v: &mut [Self]) -> ValueSlice<'_> {
                const { assert!(size_of::<$t>() == size_of::<$bits>() && align_of::<$t>() == align_of::<$bits>()) };
                // SAFETY: same size and alignment (checked above), and every bit pattern is valid
                // for both types; the borrow of `v` carries over, so nothing else reaches it.
                ValueSlice::$variant(unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<$bits>(), v.len()) })
            }
        }
    };
}

value_type!(u32, U32, u32);
value_type!(i32, U32, u32);
value_type!(f32, U32, u32);
value_type!(u64, U64, u64);
value_type!(i64, U64, u64);
value_type!(f64, U64, u64);
