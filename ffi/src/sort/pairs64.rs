//! The `gpusort_sort_pairs_<t>_u64` entry points, one per key type. Split pairs with 64-bit values,
//! each forwarding to `sort_pairs`. The values are opaque 8-byte payloads moved bit for bit:
//! `int64_t` or `double` arrays pass as `(uint64_t *)`. On the GPU the keys are argsorted there and
//! both arrays permuted on the host (`Sorter::sort_pairs`), so every backend gives the same result.
//!
//! Generated from the key list by `ffi/tests/generate`: edit the template there, then
//! `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.

use crate::args::{gpusort_algorithm, gpusort_order};
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;
use gpusort_core::{bf16, f16};

/// Sorts split arrays of `len` `uint32_t` keys and `len` `uint64_t` values by key in `order`,
/// each value moving with its key: row ids past 2^32, offsets, or any 8-byte payload (cast
/// `int64_t *` and `double *` arrays; the bits are moved, never read as numbers). Always stable
/// (equal keys keep their input order): with a GPU sorting network asked for, the GPU's radix
/// sort argsorts the keys instead (a CPU sorter refuses the networks with `GPUSORT_UNSUPPORTED`,
/// as for `uint32_t` values). Either array may be NULL only when `len` is 0; the arrays must not
/// overlap (`GPUSORT_INVALID_ARGUMENT`). On failure both hold their original contents. Extra host
/// memory on the GPU path: 4 bytes plus one key and one value per pair. An array of
/// `{uint64_t key; uint64_t value;}` structs sorts with `gpusort_sort_records` instead.
///
/// # Safety
/// `keys` and `values` must each point to `len` elements that no other thread touches during
/// the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u32_u64(
    sorter: *const gpusort_sorter,
    keys: *mut u32,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `int32_t` keys with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i32_u64(
    sorter: *const gpusort_sorter,
    keys: *mut i32,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `float` keys in IEEE 754 totalOrder (see `gpusort_sort_keys_f32`;
/// `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with their `uint64_t` values
/// (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_f32_u64(
    sorter: *const gpusort_sorter,
    keys: *mut f32,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint64_t` keys with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u64_u64(
    sorter: *const gpusort_sorter,
    keys: *mut u64,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `int64_t` keys with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i64_u64(
    sorter: *const gpusort_sorter,
    keys: *mut i64,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `double` keys in IEEE 754 totalOrder (see `gpusort_sort_keys_f64`;
/// `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with their `uint64_t` values
/// (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_f64_u64(
    sorter: *const gpusort_sorter,
    keys: *mut f64,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint16_t` keys with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u16_u64(
    sorter: *const gpusort_sorter,
    keys: *mut u16,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `int16_t` keys with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i16_u64(
    sorter: *const gpusort_sorter,
    keys: *mut i16,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint8_t` keys with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_u8_u64(
    sorter: *const gpusort_sorter,
    keys: *mut u8,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `int8_t` keys with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_i8_u64(
    sorter: *const gpusort_sorter,
    keys: *mut i8,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint16_t` keys holding the bits of IEEE 754 binary16 floats in IEEE 754 totalOrder (see
/// `gpusort_sort_keys_f16`; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with
/// their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_f16_u64(
    sorter: *const gpusort_sorter,
    keys: *mut f16,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `uint16_t` keys holding the bits of bfloat16 floats in IEEE 754 totalOrder (see
/// `gpusort_sort_keys_bf16`; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order) with
/// their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).
///
/// # Safety
/// As `gpusort_sort_pairs_u32_u64`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_pairs_bf16_u64(
    sorter: *const gpusort_sorter,
    keys: *mut bf16,
    values: *mut u64,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    super::sort_pairs(sorter, keys, values, len, order, algorithm)
}
