//! The `gpusort_argsort_<t>` entry points, one per key type. Each forwards to `argsort`.
//!
//! Generated from the key list by `ffi/tests/generate`: edit the template there, then
//! `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.

use crate::args::gpusort_order;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;
use gpusort_core::{bf16, f16};

/// Writes to `out` the stable permutation that sorts `len` `uint32_t` keys in `order`:
/// `keys[out[0]]`, `keys[out[1]]`, ... are in order, and equal keys keep their input order
/// (ascending and descending alike: descending is not the ascending result reversed). The keys
/// are only read. Always the stable radix sort, on the sorter's backend (the GPU when the sorter
/// picks it; past 2^32 keys, the CPU).
///
/// Indices are `uint64_t` for every key type, so that any `size_t` length is reachable and
/// NumPy-style `int64`/`uint64` index buffers are filled directly (every index is below `len`).
///
/// `sorter` may be NULL (the default sorter). `keys` and `out` may be NULL only when `len` is 0;
/// they must be aligned and must not overlap (`GPUSORT_INVALID_ARGUMENT`). On failure `out` holds
/// its original contents or, where the GPU failed while the indices came down, the complete result
/// (finished on the CPU from the keys); never part of one (except after `GPUSORT_PANIC`, a bug).
///
/// ```c
/// uint32_t keys[] = {30, 10, 30, 20};
/// uint64_t idx[4];
/// gpusort_argsort_u32(NULL, keys, 4, idx, GPUSORT_ASCENDING);    /* idx: 1 3 0 2 */
/// gpusort_argsort_u32(NULL, keys, 4, idx, GPUSORT_DESCENDING);   /* idx: 0 2 3 1 */
/// ```
///
/// # Safety
/// `keys` must point to `len` keys that nothing writes during the call; `out` to `len`
/// writable `uint64_t` that nothing else touches during the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_u32(
    sorter: *const gpusort_sorter,
    keys: *const u32,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `int32_t` keys (see `gpusort_argsort_u32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_i32(
    sorter: *const gpusort_sorter,
    keys: *const i32,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `float` keys (see `gpusort_argsort_u32`), in IEEE 754
/// totalOrder or the sorter's float order (see `gpusort_sort_keys_f32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_f32(
    sorter: *const gpusort_sorter,
    keys: *const f32,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `uint64_t` keys (see `gpusort_argsort_u32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_u64(
    sorter: *const gpusort_sorter,
    keys: *const u64,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `int64_t` keys (see `gpusort_argsort_u32`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_i64(
    sorter: *const gpusort_sorter,
    keys: *const i64,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `double` keys (see `gpusort_argsort_u32`), in IEEE 754
/// totalOrder or the sorter's float order (see `gpusort_sort_keys_f64`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_f64(
    sorter: *const gpusort_sorter,
    keys: *const f64,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
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
    super::argsort(sorter, keys, len, out, order)
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
    super::argsort(sorter, keys, len, out, order)
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
    super::argsort(sorter, keys, len, out, order)
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
    super::argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `uint16_t` keys holding the bits of IEEE 754 binary16 floats
/// (see `gpusort_argsort_u32`), in IEEE 754 totalOrder or the sorter's float order (see
/// `gpusort_sort_keys_f16`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_f16(
    sorter: *const gpusort_sorter,
    keys: *const f16,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `uint16_t` keys holding the bits of bfloat16 floats (see
/// `gpusort_argsort_u32`), in IEEE 754 totalOrder or the sorter's float order (see
/// `gpusort_sort_keys_bf16`).
///
/// # Safety
/// As `gpusort_argsort_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_bf16(
    sorter: *const gpusort_sorter,
    keys: *const bf16,
    len: usize,
    out: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::argsort(sorter, keys, len, out, order)
}
