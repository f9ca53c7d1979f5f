//! The `gpusort_sort_keys_<t>` entry points, one per key type. Each forwards to `sort_keys`.
//!
//! Generated from the key list by `ffi/tests/generate`: edit the template there, then
//! `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.

use crate::args::{gpusort_algorithm, gpusort_order};
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;
use gpusort_core::{bf16, f16};

/// Sorts `len` `uint32_t` keys in `order`. `keys` may be NULL only when `len` is 0; on failure
/// it holds its original contents.
///
/// # Safety
/// `keys` must point to `len` keys that no other thread touches during the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_u32(
    sorter: *const gpusort_sorter,
    keys: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `int32_t` keys in `order` (see `gpusort_sort_keys_u32`).
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_i32(
    sorter: *const gpusort_sorter,
    keys: *mut i32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `float` keys in `order` (see `gpusort_sort_keys_u32`), in IEEE 754 totalOrder:
/// `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, or in the sorter's float order
/// (`gpusort_sorter_with_float_order`), keys it makes equal kept in input order.
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_f32(
    sorter: *const gpusort_sorter,
    keys: *mut f32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `uint64_t` keys in `order` (see `gpusort_sort_keys_u32`).
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_u64(
    sorter: *const gpusort_sorter,
    keys: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `int64_t` keys in `order` (see `gpusort_sort_keys_u32`).
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_i64(
    sorter: *const gpusort_sorter,
    keys: *mut i64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `double` keys in `order` (see `gpusort_sort_keys_u32`), in IEEE 754 totalOrder:
/// `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, or in the sorter's float order
/// (`gpusort_sorter_with_float_order`), keys it makes equal kept in input order.
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_f64(
    sorter: *const gpusort_sorter,
    keys: *mut f64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}

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
    super::sort_keys(sorter, keys, len, order, algorithm)
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
    super::sort_keys(sorter, keys, len, order, algorithm)
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
    super::sort_keys(sorter, keys, len, order, algorithm)
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
    super::sort_keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `uint16_t` keys holding the bits of IEEE 754 binary16 floats in `order` (see
/// `gpusort_sort_keys_u32`), in IEEE 754 totalOrder:
/// `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, or in the sorter's float order
/// (`gpusort_sorter_with_float_order`), keys it makes equal kept in input order.
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_f16(
    sorter: *const gpusort_sorter,
    keys: *mut f16,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `uint16_t` keys holding the bits of bfloat16 floats in `order` (see
/// `gpusort_sort_keys_u32`), in IEEE 754 totalOrder:
/// `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, or in the sorter's float order
/// (`gpusort_sorter_with_float_order`), keys it makes equal kept in input order.
///
/// # Safety
/// As `gpusort_sort_keys_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_keys_bf16(
    sorter: *const gpusort_sorter,
    keys: *mut bf16,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_keys(sorter, keys, len, order, algorithm)
}
