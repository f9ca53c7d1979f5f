//! What `Sorter::sort_by_key` sorts records by: one `Key`, which takes the argsort path of
//! `records.rs`, a byte string (`[u8; N]`), or a tuple of these, whose elements become the columns
//! of one lexsort.

use rayon::prelude::*;

use super::records::{copy_reading_keys, host_buffer, put_in_order, PIECE};
use super::Sorter;
use crate::{Column, Key, SortError};

mod sealed {
    pub trait Sealed {}
    pub trait Element {}
}

/// A key [`Sorter::sort_by_key`] sorts records by: any [`Key`], a byte string `[u8; N]` (ordered
/// as `memcmp` orders it, N from 1 to [`MAX_BYTE_WIDTH`](crate::MAX_BYTE_WIDTH)), or a tuple of one
/// to four of these, ordered lexicographically (by the first element, ties by the second, and so
/// on). Sealed.
///
/// A byte string or a tuple's elements are read into one column each, in the same pass that copies
/// the records, and sorted by one [`Sorter::lexsort`] of those columns (packed into one radix word where their
/// widths fit 64 bits); the sorter's order applies to every element, its float order
/// ([`Sorter::with_float_order`]) to every float element. Extra host memory: a record, each
/// element's key and a `u32` per record, beside the lexsort's own.
///
/// ```
/// use gpusort::{FloatOrder, Order, Sorter};
/// #[derive(Clone, Copy)]
/// struct Sale { city: u16, price: f32, id: u32 }
/// let mut sales = [
///     Sale { city: 2, price: 9.5, id: 0 },
///     Sale { city: 1, price: f32::NAN, id: 1 },
///     Sale { city: 2, price: 3.0, id: 2 },
///     Sale { city: 1, price: 4.0, id: 3 },
/// ];
/// let sorter = Sorter::auto().with_float_order(FloatOrder::NanLast);
/// sorter.sort_by_key(&mut sales, |s| (s.city, s.price))?;
/// assert_eq!(sales.map(|s| s.id), [3, 1, 2, 0]);
/// sorter.clone().with_order(Order::Descending).sort_by_key(&mut sales, |s| (s.city, s.price))?;
/// assert_eq!(sales.map(|s| s.id), [0, 2, 3, 1]); // NaN stays last
///
/// let mut words = [(*b"pear", 1u8), (*b"fig ", 2), (*b"pear", 0)];
/// sorter.sort_by_key(&mut words, |w| (w.0, w.1))?;
/// assert_eq!(words, [(*b"fig ", 2), (*b"pear", 0), (*b"pear", 1)]);
/// # Ok::<(), gpusort::SortError>(())
/// ```
pub trait RecordKey: Sized + sealed::Sealed {
    /// `sort_by_key` by keys of this type.
    #[doc(hidden)]
    fn sort_records<T, F>(sorter: &Sorter, v: &mut [T], key: F) -> Result<(), SortError>
    where
        T: Copy + Send + Sync,
        F: Fn(&T) -> Self + Sync;
}

impl<K: Key> sealed::Sealed for K {}

impl<K: Key> RecordKey for K {
    fn sort_records<T, F>(sorter: &Sorter, v: &mut [T], key: F) -> Result<(), SortError>
    where
        T: Copy + Send + Sync,
        F: Fn(&T) -> K + Sync,
    {
        sorter.sort_by_one_key(v, key)
    }
}

/// An element of a tuple key: a [`Key`] or a byte string, read into a column of its own.
#[doc(hidden)]
pub trait ColumnKey: Copy + Send + Sync + sealed::Element {
    /// The column of `keys`.
    fn column(keys: &[Self]) -> Column<'_>;
}

impl<K: Key> sealed::Element for K {}

impl<K: Key> ColumnKey for K {
    fn column(keys: &[K]) -> Column<'_> {
        Column::new(keys)
    }
}

impl<const N: usize> sealed::Element for [u8; N] {}

impl<const N: usize> ColumnKey for [u8; N] {
    fn column(keys: &[[u8; N]]) -> Column<'_> {
        Column::bytes(keys)
    }
}

impl<const N: usize> sealed::Sealed for [u8; N] {}

impl<const N: usize> RecordKey for [u8; N] {
    fn sort_records<T, F>(sorter: &Sorter, v: &mut [T], key: F) -> Result<(), SortError>
    where
        T: Copy + Send + Sync,
        F: Fn(&T) -> Self + Sync,
    {
        <([u8; N],)>::sort_records(sorter, v, |r| (key(r),))
    }
}

/// The `RecordKey` of a tuple: element `$i` of type `$K` read into column `$k`.
macro_rules! tuple_key {
    ($($K:ident $k:ident $i:tt),+) => {
        impl<$($K: ColumnKey),+> sealed::Sealed for ($($K,)+) {}

        impl<$($K: ColumnKey),+> RecordKey for ($($K,)+) {
            fn sort_records<T, F>(sorter: &Sorter, v: &mut [T], key: F) -> Result<(), SortError>
            where
                T: Copy + Send + Sync,
                F: Fn(&T) -> Self + Sync,
            {
                let n = v.len();
                if !sorter.records_to_sort(n)? {
                    return Ok(());
                }
                $(let mut $k = host_buffer::<$K>(n, "sort_by_key keys (host memory)")?;)+
                let pieces = ($($k.spare_capacity_mut()[..n].par_chunks_mut(PIECE),)+).into_par_iter();
                let copy = copy_reading_keys(v, pieces, |s, ($($k,)+)| {
                    for (j, r) in s.iter().enumerate() {
                        let t = key(r);
                        $($k[j].write(t.$i);)+
                    }
                })?;
                // SAFETY: `copy_reading_keys` handed every piece of the n rows of each column to
                // the closure, which wrote each row.
                unsafe {
                    $($k.set_len(n);)+
                }
                // On the calling thread: a GPU sort must not run on a pool worker.
                let positions = sorter.lexsort(&[$($K::column(&$k)),+])?;
                $(drop($k);)+
                put_in_order(&copy, &positions, v);
                Ok(())
            }
        }
    };
}

tuple_key!(A a 0);
tuple_key!(A a 0, B b 1);
tuple_key!(A a 0, B b 1, C c 2);
tuple_key!(A a 0, B b 1, C c 2, D d 3);
