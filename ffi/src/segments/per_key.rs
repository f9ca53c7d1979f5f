//! The `gpusort_sort_segments_<t>` entry points, one per key type. Each forwards to `segments`.
//!
//! Generated from the key list by `ffi/tests/generate`: edit the template there, then
//! `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.

use crate::args::gpusort_order;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;
use gpusort_core::{bf16, f16};

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
/// which is an error: the offsets hold at least `{0, len}` (`{0}` when `len` is 0). Offsets that
/// do not cut `len` keys into segments (`num_offsets` 0, a first offset other than 0, a last
/// other than `len`, a fall, more than 2^32 segments), overlapping arrays, or 64-bit keys past
/// 2^32 are `GPUSORT_INVALID_ARGUMENT`. On failure the keys and values hold their original
/// contents (except after `GPUSORT_PANIC`, a bug).
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
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `int32_t` keys, with their `uint32_t` values or (`values` NULL) alone (see
/// `gpusort_sort_segments_u32`).
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
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `float` keys in IEEE 754 totalOrder (see `gpusort_sort_keys_f32`;
/// `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order), with their `uint32_t` values
/// or (`values` NULL) alone (see `gpusort_sort_segments_u32`).
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
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
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
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `int64_t` keys, with their `uint32_t` values or (`values` NULL) alone (see
/// `gpusort_sort_segments_u32`); up to 2^32 keys.
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
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `double` keys in IEEE 754 totalOrder (see `gpusort_sort_keys_f64`;
/// `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order), with their `uint32_t` values
/// or (`values` NULL) alone (see `gpusort_sort_segments_u32`); up to 2^32 keys.
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
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `uint16_t` keys, with their `uint32_t` values or (`values` NULL) alone
/// (see `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_u16(
    sorter: *const gpusort_sorter,
    keys: *mut u16,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `int16_t` keys, with their `uint32_t` values or (`values` NULL) alone (see
/// `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_i16(
    sorter: *const gpusort_sorter,
    keys: *mut i16,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `uint8_t` keys, with their `uint32_t` values or (`values` NULL) alone (see
/// `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_u8(
    sorter: *const gpusort_sorter,
    keys: *mut u8,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `int8_t` keys, with their `uint32_t` values or (`values` NULL) alone (see
/// `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_i8(
    sorter: *const gpusort_sorter,
    keys: *mut i8,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `uint16_t` keys holding the bits of IEEE 754 binary16 floats in IEEE 754
/// totalOrder (see `gpusort_sort_keys_f16`; `GPUSORT_INVALID_ARGUMENT` on a sorter with another
/// float order), with their `uint32_t` values or (`values` NULL) alone (see
/// `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_f16(
    sorter: *const gpusort_sorter,
    keys: *mut f16,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// Sorts each segment of `uint16_t` keys holding the bits of bfloat16 floats in IEEE 754 totalOrder
/// (see `gpusort_sort_keys_bf16`; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order),
/// with their `uint32_t` values or (`values` NULL) alone (see `gpusort_sort_segments_u32`).
///
/// # Safety
/// As `gpusort_sort_segments_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_segments_bf16(
    sorter: *const gpusort_sorter,
    keys: *mut bf16,
    values: *mut u32,
    len: usize,
    offsets: *const usize,
    num_offsets: usize,
    order: gpusort_order,
) -> gpusort_status {
    super::segments(sorter, keys, values, len, offsets, num_offsets, order)
}
