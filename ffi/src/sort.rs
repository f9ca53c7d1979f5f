//! The sort entry points: pairs in one array, split key and value arrays, keys alone.
//!
//! Each key type has one `gpusort_sort_keys_<t>` and one `gpusort_sort_pairs_<t>`, written out
//! (cbindgen reads signatures, not macro expansions) and forwarding to the generic `keys` and
//! `pairs`; a new key type of `gpusort::Key` needs just those two short functions.

use std::mem::{align_of, offset_of, size_of};

use gpusort_core::{Key, Kvp, Order, Sorter};

use crate::args::{algorithm, disjoint, gpusort_algorithm, gpusort_order, order, slice_mut};
use crate::error::Failure;
use crate::guard::guard;
use crate::sorter::{gpusort_sorter, resolve};
use crate::status::gpusort_status;

/// A 32-bit key and its 32-bit value: 8 bytes, 4-byte aligned, key first.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct gpusort_kvp {
    pub key: u32,
    pub value: u32,
}

// The C struct is reinterpreted as `gpusort::Kvp`: the layouts must match to the byte.
const _: () = assert!(size_of::<gpusort_kvp>() == size_of::<Kvp>() && align_of::<gpusort_kvp>() == align_of::<Kvp>());
const _: () = assert!(offset_of!(gpusort_kvp, key) == offset_of!(Kvp, key));
const _: () = assert!(offset_of!(gpusort_kvp, value) == offset_of!(Kvp, value));

/// Runs `sort` with the resolved sorter and order, after the options are checked.
unsafe fn with_sorter(
    sorter: *const gpusort_sorter,
    ord: gpusort_order,
    alg: gpusort_algorithm,
    sort: impl FnOnce(&Sorter, Order) -> Result<(), Failure>,
) -> gpusort_status {
    guard(|| {
        let (ord, alg) = (order(ord)?, algorithm(alg)?);
        sort(&resolve(sorter, alg), ord)
    })
}

unsafe fn keys<K: Key>(
    sorter: *const gpusort_sorter,
    keys: *mut K,
    len: usize,
    ord: gpusort_order,
    alg: gpusort_algorithm,
) -> gpusort_status {
    with_sorter(sorter, ord, alg, |s, ord| Ok(s.sort_keys_by(slice_mut(keys, len, "keys")?, ord)?))
}

unsafe fn pairs<K: Key>(
    sorter: *const gpusort_sorter,
    keys: *mut K,
    values: *mut u32,
    len: usize,
    ord: gpusort_order,
    alg: gpusort_algorithm,
) -> gpusort_status {
    with_sorter(sorter, ord, alg, |s, ord| {
        let (k, v) = (slice_mut(keys, len, "keys")?, slice_mut(values, len, "values")?);
        disjoint(keys, values, len)?;
        Ok(s.sort_pairs_by(k, v, ord)?)
    })
}

/// Sorts `len` pairs at `data` by key in `order`, values moving with their keys. With
/// `GPUSORT_ALGORITHM_AUTO` or `_RADIX` the sort is stable (pairs with equal keys keep their
/// order, ascending or descending), on every backend.
///
/// `sorter` may be NULL (the default sorter). `data` may be NULL only when `len` is 0. On failure
/// `data` holds its original contents (except after `GPUSORT_PANIC`, a bug).
///
/// # Safety
/// `data` must point to `len` pairs that no other thread touches during the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_kvp(
    sorter: *const gpusort_sorter,
    data: *mut gpusort_kvp,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
) -> gpusort_status {
    with_sorter(sorter, order, algorithm, |s, ord| Ok(s.sort_kvp_by(slice_mut(data.cast::<Kvp>(), len, "data")?, ord)?))
}

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
    self::keys(sorter, keys, len, order, algorithm)
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
    self::keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `float` keys in `order` (see `gpusort_sort_keys_u32`), in IEEE 754 totalOrder:
/// -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
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
    self::keys(sorter, keys, len, order, algorithm)
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
    self::keys(sorter, keys, len, order, algorithm)
}

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
    pairs(sorter, keys, values, len, order, algorithm)
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
    pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `float` keys (totalOrder, see `gpusort_sort_keys_f32`) with their `uint32_t` values
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
    pairs(sorter, keys, values, len, order, algorithm)
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
    pairs(sorter, keys, values, len, order, algorithm)
}
