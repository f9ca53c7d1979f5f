//! The `gpusort_top_k_<t>` entry points, one per key type. Each forwards to `top_k`.
//!
//! Generated from the key list by `ffi/tests/generate`: edit the template there, then
//! `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.

use crate::args::gpusort_order;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;
use gpusort_core::{bf16, f16};

/// Writes the `k` smallest of `len` `uint32_t` keys (the `k` largest with `GPUSORT_DESCENDING`),
/// sorted in `order`, to `out_keys`, and where each stood in `keys` to `out_indices`: exactly
/// the first `k` entries of a stable sort, as `gpusort_argsort_u32` would order them, so equal
/// keys come in increasing position and ties at the `k`-th key go to the earliest positions
/// (descending too). `keys[out_indices[i]] == out_keys[i]`. The keys are only read. Without
/// sorting the rest: the `k` are picked on all host cores in one to three passes over the keys,
/// then only they are sorted, on the sorter's backend (the GPU when the sorter picks it).
///
/// `k` runs from 0 to `len` (`GPUSORT_INVALID_ARGUMENT` above); `out_keys` holds `k` keys and
/// `out_indices`, unless NULL (the keys alone), `k` indices. `sorter` may be NULL (the default
/// sorter). `keys` may be NULL only when `len` is 0, the outputs only when `k` is 0; arrays must
/// be aligned and must not overlap (`GPUSORT_INVALID_ARGUMENT`). On failure the outputs are not
/// written: they hold their original contents (except after `GPUSORT_PANIC`, a bug).
///
/// ```c
/// uint32_t keys[] = {30, 10, 30, 20, 10};
/// uint32_t best[3];
/// uint64_t at[3];
/// gpusort_top_k_u32(NULL, keys, 5, 3, best, at, GPUSORT_ASCENDING);    /* best: 10 10 20, at: 1 4 3 */
/// gpusort_top_k_u32(NULL, keys, 5, 1, best, NULL, GPUSORT_DESCENDING); /* best: 30 (keys only) */
/// ```
///
/// # Safety
/// `keys` must point to `len` keys that nothing writes during the call; `out_keys` to `k`
/// writable keys and `out_indices` (unless NULL) to `k` writable `uint64_t`, which nothing else
/// touches during the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_u32(
    sorter: *const gpusort_sorter,
    keys: *const u32,
    len: usize,
    k: usize,
    out_keys: *mut u32,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `int32_t` keys in `order`, with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_i32(
    sorter: *const gpusort_sorter,
    keys: *const i32,
    len: usize,
    k: usize,
    out_keys: *mut i32,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `float` keys in `order`, in IEEE 754 totalOrder (see `gpusort_sort_keys_f32`: a
/// NaN is among the largest keys, or the smallest when negative; `GPUSORT_INVALID_ARGUMENT` on a
/// sorter with another float order), with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_f32(
    sorter: *const gpusort_sorter,
    keys: *const f32,
    len: usize,
    k: usize,
    out_keys: *mut f32,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `uint64_t` keys in `order`, with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_u64(
    sorter: *const gpusort_sorter,
    keys: *const u64,
    len: usize,
    k: usize,
    out_keys: *mut u64,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `int64_t` keys in `order`, with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_i64(
    sorter: *const gpusort_sorter,
    keys: *const i64,
    len: usize,
    k: usize,
    out_keys: *mut i64,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `double` keys in `order`, in IEEE 754 totalOrder (see `gpusort_sort_keys_f64`: a
/// NaN is among the largest keys, or the smallest when negative; `GPUSORT_INVALID_ARGUMENT` on a
/// sorter with another float order), with their positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_f64(
    sorter: *const gpusort_sorter,
    keys: *const f64,
    len: usize,
    k: usize,
    out_keys: *mut f64,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `uint16_t` keys holding the bits of IEEE 754 binary16 floats in `order`, in IEEE
/// 754 totalOrder (see `gpusort_sort_keys_f16`: a NaN is among the largest keys, or the smallest
/// when negative; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order), with their
/// positions (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_f16(
    sorter: *const gpusort_sorter,
    keys: *const f16,
    len: usize,
    k: usize,
    out_keys: *mut f16,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `uint16_t` keys holding the bits of bfloat16 floats in `order`, in IEEE 754
/// totalOrder (see `gpusort_sort_keys_bf16`: a NaN is among the largest keys, or the smallest when
/// negative; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order), with their positions
/// (see `gpusort_top_k_u32`).
///
/// # Safety
/// As `gpusort_top_k_u32`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_bf16(
    sorter: *const gpusort_sorter,
    keys: *const bf16,
    len: usize,
    k: usize,
    out_keys: *mut bf16,
    out_indices: *mut u64,
    order: gpusort_order,
) -> gpusort_status {
    super::top_k(sorter, keys, len, k, out_keys, out_indices, order)
}
