//! The entry points for the small key types, `uint16_t`, `int16_t`, `uint8_t` and `int8_t`
//! (issue 20): every per-key-type family (`gpusort_sort_keys_*`, `gpusort_sort_pairs_*`,
//! `gpusort_argsort_*`, `gpusort_sort_segments_*`, `gpusort_top_k_*`) has a `_u16`, `_i16`,
//! `_u8` and `_i8` member here, forwarding to the same generic functions as the others, and
//! documented by reference to the family's `_u32` member. Records take them as
//! `GPUSORT_KEY_U16` .. `GPUSORT_KEY_I8`. Written out for cbindgen, as in `sort`.
//!
//! On the GPU these keys travel as 32-bit words and sort in two (16-bit) or one (8-bit) radix
//! digit passes; with the sorting networks (`GPUSORT_ALGORITHM_BITONIC`, `_ODD_EVEN_MERGE`) they
//! sort as 32-bit keys do.

use crate::args::{gpusort_algorithm, gpusort_order};
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;
use crate::{argsort, segments, sort, topk};

/// Sorts `len` `uint16_t` keys in `order` (see `gpusort_sort_keys_u32`).
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_u16(
    sorter: *const gpusort_sorter,
    keys: *mut u16,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::keys(sorter, keys, len, order, algorithm)
}

/// Sorts `uint16_t` keys with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u16(
    sorter: *const gpusort_sorter,
    keys: *mut u16,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::pairs(sorter, keys, values, len, order, algorithm)
}

/// The stable permutation that sorts `uint16_t` keys (see `gpusort_argsort_u32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_u16(
    sorter: *const gpusort_sorter,
    keys: *const u16,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    argsort::argsort(sorter, keys, len, out, order)
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
    segments::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// The `k` first `uint16_t` keys in `order`, with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_u16(
    sorter: *const gpusort_sorter,
    keys: *const u16,
    len: usize,
    k: usize,
    out_keys: *mut u16,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    topk::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// Sorts `len` `int16_t` keys in `order` (see `gpusort_sort_keys_u32`).
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_i16(
    sorter: *const gpusort_sorter,
    keys: *mut i16,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::keys(sorter, keys, len, order, algorithm)
}

/// Sorts `int16_t` keys with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i16(
    sorter: *const gpusort_sorter,
    keys: *mut i16,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::pairs(sorter, keys, values, len, order, algorithm)
}

/// The stable permutation that sorts `int16_t` keys (see `gpusort_argsort_u32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_i16(
    sorter: *const gpusort_sorter,
    keys: *const i16,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    argsort::argsort(sorter, keys, len, out, order)
}

/// Sorts each segment of `int16_t` keys, with their `uint32_t` values or (`values` NULL) alone
/// (see `gpusort_sort_segments_u32`).
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
    segments::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// The `k` first `int16_t` keys in `order`, with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_i16(
    sorter: *const gpusort_sorter,
    keys: *const i16,
    len: usize,
    k: usize,
    out_keys: *mut i16,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    topk::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// Sorts `len` `uint8_t` keys in `order` (see `gpusort_sort_keys_u32`).
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_u8(
    sorter: *const gpusort_sorter,
    keys: *mut u8,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::keys(sorter, keys, len, order, algorithm)
}

/// Sorts `uint8_t` keys with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u8(
    sorter: *const gpusort_sorter,
    keys: *mut u8,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::pairs(sorter, keys, values, len, order, algorithm)
}

/// The stable permutation that sorts `uint8_t` keys (see `gpusort_argsort_u32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_u8(
    sorter: *const gpusort_sorter,
    keys: *const u8,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    argsort::argsort(sorter, keys, len, out, order)
}

/// Sorts each segment of `uint8_t` keys, with their `uint32_t` values or (`values` NULL) alone
/// (see `gpusort_sort_segments_u32`).
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
    segments::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// The `k` first `uint8_t` keys in `order`, with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_u8(
    sorter: *const gpusort_sorter,
    keys: *const u8,
    len: usize,
    k: usize,
    out_keys: *mut u8,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    topk::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// Sorts `len` `int8_t` keys in `order` (see `gpusort_sort_keys_u32`).
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_i8(
    sorter: *const gpusort_sorter,
    keys: *mut i8,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::keys(sorter, keys, len, order, algorithm)
}

/// Sorts `int8_t` keys with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i8(
    sorter: *const gpusort_sorter,
    keys: *mut i8,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    sort::pairs(sorter, keys, values, len, order, algorithm)
}

/// The stable permutation that sorts `int8_t` keys (see `gpusort_argsort_u32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_i8(
    sorter: *const gpusort_sorter,
    keys: *const i8,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    argsort::argsort(sorter, keys, len, out, order)
}

/// Sorts each segment of `int8_t` keys, with their `uint32_t` values or (`values` NULL) alone
/// (see `gpusort_sort_segments_u32`).
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
    segments::segments(sorter, keys, values, len, offsets, num_offsets, order)
}

/// The `k` first `int8_t` keys in `order`, with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_i8(
    sorter: *const gpusort_sorter,
    keys: *const i8,
    len: usize,
    k: usize,
    out_keys: *mut i8,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    topk::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{GPUSORT_ALGORITHM_AUTO, GPUSORT_ASCENDING, GPUSORT_DESCENDING};
    use gpusort_status::GPUSORT_OK;
    use std::ptr::{null, null_mut};

    #[test]
    fn every_family_sorts_small_keys() {
        let mut keys = [300i16, -2, 7, i16::MIN, -2, i16::MAX];
        let mut values = [0u32, 1, 2, 3, 4, 5];
        let st =
            unsafe { gpusort_sort_pairs_i16(null(), keys.as_mut_ptr(), values.as_mut_ptr(), 6, GPUSORT_ASCENDING, 0) };
        assert_eq!((st, keys, values), (GPUSORT_OK, [i16::MIN, -2, -2, 7, 300, i16::MAX], [3, 1, 4, 2, 0, 5]));

        let mut bytes = [5u8, 255, 0, 5];
        let st =
            unsafe { gpusort_sort_keys_u8(null(), bytes.as_mut_ptr(), 4, GPUSORT_DESCENDING, GPUSORT_ALGORITHM_AUTO) };
        assert_eq!((st, bytes), (GPUSORT_OK, [255, 5, 5, 0]));

        let signed = [3i8, -128, 127, 3, 0];
        let mut out = [9u64; 5];
        let st = unsafe { gpusort_argsort_i8(null(), signed.as_ptr(), 5, out.as_mut_ptr(), GPUSORT_DESCENDING) };
        assert_eq!((st, out), (GPUSORT_OK, [2, 0, 3, 4, 1]));

        let mut wide = [9u16, 1, 65535, 4, 0, 2];
        let offsets = [0usize, 3, 6];
        let st = unsafe { gpusort_sort_segments_u16(null(), wide.as_mut_ptr(), null_mut(), 6, offsets.as_ptr(), 3, 0) };
        assert_eq!((st, wide), (GPUSORT_OK, [1, 9, 65535, 0, 2, 4]));

        let (mut best, mut at) = ([0u16; 2], [0u64; 2]);
        let keys = [7u16, 65535, 7, 0];
        let st = unsafe { gpusort_top_k_u16(null(), keys.as_ptr(), 4, 2, best.as_mut_ptr(), at.as_mut_ptr(), 0) };
        assert_eq!((st, best, at), (GPUSORT_OK, [0, 7], [3, 0]));
    }
}
