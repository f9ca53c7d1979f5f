//! The `gpusort_sort_pairs_<t>` entry points, one per key type. Each forwards to `sort_pairs`, with
//! `uint32_t` values (`pairs64.rs` has the `uint64_t` ones).
//!
//! Generated from the key list by `ffi/tests/generate`: edit the template there, then
//! `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.

use crate::args::{gpusort_algorithm, gpusort_order};
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;
use gpusort_core::{bf16, f16};

/// Sorts split arrays of `len` `uint32_t` keys and `len` `uint32_t` values by key in `order`,
/// each value moving with its key; stable with `GPUSORT_ALGORITHM_AUTO` or `_RADIX`. Either
/// array may be NULL only when `len` is 0; the arrays must not overlap
/// (`GPUSORT_INVALID_ARGUMENT`). On failure both hold their original contents.
///
/// # Safety
/// `keys` and `values` must each point to `len` elements that no other thread touches during
/// the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u32(
    sorter: *const gpusort_sorter,
    keys: *mut u32,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `int32_t` keys with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i32(
    sorter: *const gpusort_sorter,
    keys: *mut i32,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `float` keys in IEEE 754 totalOrder (see `gpusort_sort_keys_f32`;
/// `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with their `uint32_t` values
/// (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_f32(
    sorter: *const gpusort_sorter,
    keys: *mut f32,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint64_t` keys with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u64(
    sorter: *const gpusort_sorter,
    keys: *mut u64,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `int64_t` keys with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i64(
    sorter: *const gpusort_sorter,
    keys: *mut i64,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `double` keys in IEEE 754 totalOrder (see `gpusort_sort_keys_f64`;
/// `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with their `uint32_t` values
/// (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_f64(
    sorter: *const gpusort_sorter,
    keys: *mut f64,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
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
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
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
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
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
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
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
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint16_t` keys holding the bits of IEEE 754 binary16 floats in IEEE 754 totalOrder (see
/// `gpusort_sort_keys_f16`; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with
/// their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_f16(
    sorter: *const gpusort_sorter,
    keys: *mut f16,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint16_t` keys holding the bits of bfloat16 floats in IEEE 754 totalOrder (see
/// `gpusort_sort_keys_bf16`; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with
/// their `uint32_t` values (see `gpusort_sort_pairs_u32`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_bf16(
    sorter: *const gpusort_sorter,
    keys: *mut bf16,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}
