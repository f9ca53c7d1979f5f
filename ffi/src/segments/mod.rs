//! The segmented sort entry points: many independent runs of one key array (with or without
//! `uint32_t` values), each sorted on its own in one call; the runs are given by offsets.
//!
//! `segments` here is generic over the key type; `per_key.rs`, generated from the key list, has the
//! `gpusort_sort_segments_<t>` entry points that forward to it. A NULL `values` pointer selects the
//! keys-only sort (`Sorter::sort_segments_keys`), so one function per key type serves both, as
//! the offsets are the part that differs from `gpusort_sort_pairs_*` and `gpusort_sort_keys_*`.
//!
//! No algorithm argument: a segmented sort is stable by definition here, and its 64-bit key path
//! (an argsort, then the positions sorted by segment) is correct only with a stable sort, so the
//! sorter's algorithm is set to AUTO (the stable radix sort), as `argsort` does.

use gpusort_core::Key;

use crate::args::{disjoint, gpusort_order, RawArray, GPUSORT_ALGORITHM_AUTO};
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

mod per_key;

pub use per_key::*;

pub(crate) unsafe fn segments<K: Key>(
    sorter: *const gpusort_sorter,
    keys: *mut K,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    ord: gpusort_order,
) -> gpusort_status {
    with_sorter(sorter, ord, GPUSORT_ALGORITHM_AUTO, |s| {
        let keys = RawArray::new(keys, len, "keys")?;
        let values = if values.is_null() { None } else { Some(RawArray::new(values, len, "values")?) };
        let offsets = RawArray::new(offsets.cast_mut(), num_offsets, "offsets")?;
        // The offsets become a shared slice beside `&mut` ones: they may share no byte with them.
        disjoint(&keys, &offsets, "the key and offset arrays")?;
        let Some(values) = values else {
            return Ok(s.sort_segments_keys(keys.into_slice(), offsets.into_ref())?);
        };
        disjoint(&keys, &values, "the key and value arrays")?;
        disjoint(&values, &offsets, "the value and offset arrays")?;
        // The library checks the offsets before it writes anything, and writes the slices only
        // once every sort of the call has succeeded: on failure they keep their contents.
        Ok(s.sort_segments(keys.into_slice(), values.into_slice(), offsets.into_ref())?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{GPUSORT_ASCENDING, GPUSORT_DESCENDING};
    // This thread's last error, read directly (gpusort_last_error_message has its own tests).
    use crate::failure::last_error;
    use gpusort_status::{GPUSORT_INVALID_ARGUMENT, GPUSORT_OK};
    use std::ptr::{null, null_mut};

    #[test]
    fn segments_sort_on_their_own_with_and_without_values() {
        let (mut keys, mut rows) = ([3u32, 1, 2, 9, 7, 5], [0u32, 1, 2, 3, 4, 5]);
        let offsets = [0usize, 3, 5, 6];
        let st = unsafe {
            gpusort_sort_segments_u32(null(), keys.as_mut_ptr(), rows.as_mut_ptr(), 6, offsets.as_ptr(), 4, 0)
        };
        assert_eq!((st, keys, rows), (GPUSORT_OK, [1, 2, 3, 7, 9, 5], [1, 2, 0, 4, 3, 5]));
        let st = unsafe {
            gpusort_sort_segments_u32(null(), keys.as_mut_ptr(), null_mut(), 6, offsets.as_ptr(), 4, GPUSORT_DESCENDING)
        };
        assert_eq!((st, keys), (GPUSORT_OK, [3, 2, 1, 9, 7, 5]));
        // 64-bit keys take the other path (argsort, then by segment): stable in both orders.
        let mut keys = [2.5f64, -1.0, 2.5, f64::NAN, -0.0, 0.0, 1.0];
        let mut values = [0u32, 1, 2, 3, 4, 5, 6];
        let offsets = [0usize, 4, 4, 7];
        let (k, v, o) = (keys.as_mut_ptr(), values.as_mut_ptr(), offsets.as_ptr());
        let st = unsafe { gpusort_sort_segments_f64(null(), k, v, 7, o, 4, GPUSORT_DESCENDING) };
        assert_eq!((st, values), (GPUSORT_OK, [3, 0, 2, 1, 6, 5, 4]));
        let st = unsafe { gpusort_sort_segments_f64(null(), k, v, 7, o, 4, GPUSORT_ASCENDING) };
        assert_eq!((st, values), (GPUSORT_OK, [1, 0, 2, 3, 4, 5, 6]));
        assert_eq!(keys[..3], [-1.0, 2.5, 2.5]);
        let mut small = [9u16, 1, 65535, 4, 0, 2];
        let offsets = [0usize, 3, 6];
        let st =
            unsafe { gpusort_sort_segments_u16(null(), small.as_mut_ptr(), null_mut(), 6, offsets.as_ptr(), 3, 0) };
        assert_eq!((st, small), (GPUSORT_OK, [1, 9, 65535, 0, 2, 4]));
    }

    #[test]
    fn refused_calls_write_nothing() {
        let mut keys = [3i64, 1, 2, 0];
        let mut values = [7u32; 4];
        let (k, v) = (keys.as_mut_ptr(), values.as_mut_ptr());
        let call = |k: *mut i64, v: *mut u32, len: usize, offsets: &[usize], order: u32| unsafe {
            gpusort_sort_segments_i64(null(), k, v, len, offsets.as_ptr(), offsets.len(), order)
        };
        let refused = |st: gpusort_status, words: &str| {
            assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "{words}");
            assert!(last_error().contains(words), "{words}: {}", last_error());
        };
        refused(call(k, v, 4, &[], 0), "empty");
        refused(call(k, v, 4, &[1, 4], 0), "start at 1");
        refused(call(k, v, 4, &[0, 3], 0), "end at 3");
        refused(call(k, v, 4, &[0, 3, 2, 4], 0), "fall from 3 to 2");
        refused(call(k, null_mut(), 4, &[0, 5], 0), "end at 5");
        refused(call(k, v, 4, &[0, 4], 2), "order 2");
        refused(call(null_mut(), v, 4, &[0, 4], 0), "keys is NULL");
        refused(unsafe { gpusort_sort_segments_i64(null(), k, v, 4, null(), 2, 0) }, "offsets is NULL");
        refused(call(k, k.cast(), 4, &[0, 4], 0), "the key and value arrays overlap");
        let inside = [0usize, 4];
        let st = unsafe {
            gpusort_sort_segments_u64(null(), inside.as_ptr().cast_mut().cast(), v, 2, inside.as_ptr(), 2, 0)
        };
        refused(st, "the key and offset arrays overlap");
        let st = unsafe {
            gpusort_sort_segments_u32(null(), k.cast(), inside.as_ptr().cast_mut().cast(), 4, inside.as_ptr(), 2, 0)
        };
        refused(st, "the value and offset arrays overlap");
        assert_eq!((keys, values), ([3, 1, 2, 0], [7; 4]));
        // NULL with length 0: an empty array, with the offsets {0}.
        let st = unsafe { gpusort_sort_segments_f32(null(), null_mut(), null_mut(), 0, [0usize].as_ptr(), 1, 1) };
        assert_eq!(st, GPUSORT_OK);
    }
}
