//! The segmented sort entry points: many independent runs of one key array (with or without
//! `uint32_t` values), each sorted on its own in one call; the runs are given by offsets.
//!
//! One function per key type, written out as in `sort` (cbindgen reads signatures, not macro
//! expansions), each forwarding to the generic `segments`. A NULL `values` pointer selects the
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

/// Sorts each segment of `len` `uint32_t` keys on its own, in `order`, stably (equal keys keep
/// their order, ascending and descending alike), each value of `values` moving with its key.
/// Segment `s` is `keys[offsets[s]]` up to (not including) `keys[offsets[s + 1]]`: `offsets`
/// holds `num_offsets` positions (segments + 1) that start at 0, end at `len` and never fall;
/// empty segments are fine, and nothing crosses a segment boundary. A batch of rows of `cols`
/// keys (`torch.sort(dim=-1)`, `np.sort(axis=-1)`) is the offsets `0, cols, 2 * cols, ...`. The
/// segments are sorted together, in one or two sorts of the whole array, on the sorter's backend
/// (the GPU when the sorter picks it); always the stable radix sort, whatever the sorter.
///
/// `values` may be NULL: the keys alone are sorted. `sorter` may be NULL (the default sorter).
/// `keys` and `values` may be NULL only when `len` is 0, `offsets` only when `num_offsets` is 0,
/// which is an error: the offsets hold at least `{0, len}` (`{0}` when `len` is 0). Offsets that do not cut `len` keys into
/// segments (`num_offsets` 0, a first offset other than 0, a last other than `len`, a fall, more
/// than 2^32 segments), overlapping arrays, or 64-bit keys past 2^32 are
/// `GPUSORT_INVALID_ARGUMENT`. On failure the keys and values hold their original contents
/// (except after `GPUSORT_PANIC`, a bug).
///
/// ```c
/// uint32_t keys[] = {3, 1, 2, /* | */ 9, 7, /* | */ 5};
/// uint32_t rows[] = {0, 1, 2, 3, 4, 5};
/// const size_t offsets[] = {0, 3, 5, 6};   /* three segments */
/// gpusort_sort_segments_u32(NULL, keys, rows, 6, offsets, 4, GPUSORT_ASCENDING);
/// /* keys: 1 2 3  7 9  5; rows: 1 2 0  4 3  5 */
/// gpusort_sort_segments_u32(NULL, keys, NULL, 6, offsets, 4, GPUSORT_DESCENDING);
/// /* keys: 3 2 1  9 7  5 (keys only) */
/// ```
///
/// # Safety
/// `keys` must point to `len` keys and `values` (unless NULL) to `len` values that no other
/// thread touches during the call; `offsets` to `num_offsets` `size_t` that nothing writes
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_u32(
    sorter: *const gpusort_sorter,
    keys: *mut u32,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `int32_t` keys, with their `uint32_t` values or (`values` NULL) alone
/// (see `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_i32(
    sorter: *const gpusort_sorter,
    keys: *mut i32,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `float` keys in IEEE 754 totalOrder (see `gpusort_sort_keys_f32`), with
/// their `uint32_t` values or (`values` NULL) alone (see `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_f32(
    sorter: *const gpusort_sorter,
    keys: *mut f32,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `uint64_t` keys, with their `uint32_t` values or (`values` NULL) alone
/// (see `gpusort_sort_segments_u32`); up to 2^32 keys.
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_u64(
    sorter: *const gpusort_sorter,
    keys: *mut u64,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `int64_t` keys, with their `uint32_t` values or (`values` NULL) alone
/// (see `gpusort_sort_segments_u32`); up to 2^32 keys.
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_i64(
    sorter: *const gpusort_sorter,
    keys: *mut i64,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `double` keys in IEEE 754 totalOrder, with their `uint32_t` values or
/// (`values` NULL) alone (see `gpusort_sort_segments_u32`); up to 2^32 keys.
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_f64(
    sorter: *const gpusort_sorter,
    keys: *mut f64,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    segments(sorter, keys, values, len, offsets, num_offsets, order)
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
