//! The sorts of slices of keys: `Kvp` pairs, keys alone, and keys with values in a second slice.

use super::Sorter;
use crate::backend::SortJob;
use crate::value::ValueSlice;
use crate::{Key, Kvp, SortError, Value};

impl Sorter {
    /// Sorts pairs by key in the sorter's order, stably (with `Auto`/`Radix`).
    ///
    /// ```
    /// use gpusort::{Kvp, Sorter};
    /// let mut v = vec![Kvp::new(7, 0), Kvp::new(3, 1), Kvp::new(7, 2)];
    /// Sorter::auto().sort_kvp(&mut v)?;
    /// assert_eq!(v, [Kvp::new(3, 1), Kvp::new(7, 0), Kvp::new(7, 2)]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_kvp(&self, v: &mut [Kvp]) -> Result<(), SortError> {
        self.run(SortJob::Kvp(v))
    }

    /// Sorts keys (`u32`, `i32`, `f32` in [`f32::total_cmp`] order, `u64`, `i64`, `f64` in
    /// [`f64::total_cmp`] order, or the sorter's [`FloatOrder`](crate::FloatOrder)) in the
    /// sorter's order. In another float order than total order, keys holding `-0.0` or NaNs are
    /// put in the order of their stable permutation, so equal keys of different bits keep their
    /// input order (extra host memory: a copy of the keys and a `u32` per key).
    ///
    /// ```
    /// let mut v = vec![1.5f32, f32::NAN, -0.0, 0.0, f32::NEG_INFINITY];
    /// gpusort::Sorter::auto().sort_keys(&mut v)?;
    /// assert_eq!(v[0], f32::NEG_INFINITY);
    /// assert!(v[4].is_nan());
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_keys<K: Key>(&self, v: &mut [K]) -> Result<(), SortError> {
        if self.reorders_floats::<K>() {
            return self.sort_floats(v);
        }
        self.run(SortJob::Keys(K::slice(v)))
    }

    /// Sorts split arrays by key in the sorter's order, values moving with their keys; stable
    /// with `Auto`/`Radix`. `InvalidArgument` when the lengths differ.
    ///
    /// Values ([`Value`]) are opaque payloads of 4 bytes (`u32`, `i32`, `f32`) or 8 bytes (`u64`,
    /// `i64`, `f64`: row ids past 2^32), moved bit for bit. 8-byte values are always sorted
    /// stably, whatever the sorter's algorithm: on the CPU by the split pair sort; on the GPU the
    /// keys' stable argsort runs there, then keys and values are permuted on all host cores
    /// (extra host memory: 4 bytes + one key + one value per pair), so both backends give the
    /// same result bit for bit. On failure both slices keep their contents.
    ///
    /// ```
    /// let (mut keys, mut rows) = (vec![-2i32, 5, -2], vec![0u32, 1, 2]);
    /// gpusort::Sorter::auto().sort_pairs(&mut keys, &mut rows)?;
    /// assert_eq!((keys, rows), (vec![-2, -2, 5], vec![0, 2, 1]));
    ///
    /// let (mut keys, mut rows) = (vec![9u64, 3, 9], vec![u64::MAX, 1 << 33, 0]);
    /// gpusort::Sorter::auto().sort_pairs(&mut keys, &mut rows)?;
    /// assert_eq!((keys, rows), (vec![3, 9, 9], vec![1 << 33, u64::MAX, 0]));
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_pairs<K: Key, V: Value>(&self, keys: &mut [K], values: &mut [V]) -> Result<(), SortError> {
        SortError::check_pair_lengths(keys.len(), values.len())?;
        self.total_floats_only(K::TYPE, "sort_pairs")?;
        match V::bits(values) {
            ValueSlice::U32(values) => self.run(SortJob::Pairs(K::slice(keys), values)),
            ValueSlice::U64(values) => self.sort_pairs_wide(keys, values),
        }
    }
}
