//! The sort entry points: pairs in one array, split key and value arrays, keys alone.
//!
//! Each key type has one `gpusort_sort_keys_<t>` and one `gpusort_sort_pairs_<t>`, written out
//! (cbindgen reads signatures, not macro expansions) and forwarding to the generic `keys` and
//! `pairs`; a new key type of `gpusort::Key` needs just those two short functions.

use std::mem::{align_of, offset_of, size_of};

use gpusort_core::{Key, Kvp, Sorter, Value};

use crate::args::{algorithm, disjoint, gpusort_algorithm, gpusort_order, order, RawArray};
use crate::failure::Failure;
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

/// Runs `sort` with the resolved sorter, set to the order and algorithm, after those are checked.
pub(crate) unsafe fn with_sorter(
    sorter: *const gpusort_sorter,
    ord: gpusort_order,
    alg: gpusort_algorithm,
    sort: impl FnOnce(&Sorter) -> Result<(), Failure>,
) -> gpusort_status {
    guard(|| {
        let (ord, alg) = (order(ord)?, algorithm(alg)?);
        sort(&resolve(sorter, alg, ord))
    })
}

pub(crate) unsafe fn keys<K: Key>(
    sorter: *const gpusort_sorter,
    keys: *mut K,
    len: usize,
    ord: gpusort_order,
    alg: gpusort_algorithm,
) -> gpusort_status {
    with_sorter(sorter, ord, alg, |s| {
        let keys = RawArray::new(keys, len, "keys")?;
        Ok(s.sort_keys(keys.into_slice())?)
    })
}

/// Split pairs of any key and value type (`uint32_t` values here, `uint64_t` in `pairs64.rs`).
pub(crate) unsafe fn pairs<K: Key, V: Value>(
    sorter: *const gpusort_sorter,
    keys: *mut K,
    values: *mut V,
    len: usize,
    ord: gpusort_order,
    alg: gpusort_algorithm,
) -> gpusort_status {
    with_sorter(sorter, ord, alg, |s| {
        let (keys, values) = (RawArray::new(keys, len, "keys")?, RawArray::new(values, len, "values")?);
        // On the raw addresses, before either slice exists: aliasing `&mut` slices are undefined
        // behaviour even if never used.
        disjoint(&keys, &values, "the key and value arrays")?;
        Ok(s.sort_pairs(keys.into_slice(), values.into_slice())?)
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
    with_sorter(sorter, order, algorithm, |s| {
        let data = RawArray::new(data.cast::<Kvp>(), len, "data")?;
        Ok(s.sort_kvp(data.into_slice())?)
    })
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
    self::keys(sorter, keys, len, order, algorithm)
}

/// Sorts `len` `double` keys in `order` (see `gpusort_sort_keys_u32`), in IEEE 754 totalOrder
/// as `gpusort_sort_keys_f32` does.
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
    pairs(sorter, keys, values, len, order, algorithm)
}

/// Sorts `double` keys (totalOrder) with their `uint32_t` values (see `gpusort_sort_pairs_u32`).
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
    pairs(sorter, keys, values, len, order, algorithm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::GPUSORT_ALGORITHM_AUTO;
    use crate::error::gpusort_last_error_message;
    use gpusort_status::GPUSORT_INVALID_ARGUMENT;

    /// A pointer to the last page of the address space, and a length that runs far past its end.
    const TOP: usize = usize::MAX & !0xFFF;
    const LONG: usize = usize::MAX / 64;

    fn last_error() -> String {
        let mut buf = [0 as std::ffi::c_char; 256];
        unsafe { gpusort_last_error_message(buf.as_mut_ptr(), buf.len(), std::ptr::null_mut()) };
        unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_owned()
    }

    /// `call` must fail with GPUSORT_INVALID_ARGUMENT and a message naming `what` and the address
    /// space; before the fix it panicked on overflow (debug), or read and wrote wild memory.
    fn refuses(status: gpusort_status, what: &str) {
        assert_eq!(status, GPUSORT_INVALID_ARGUMENT, "{what}: {}", last_error());
        let message = last_error();
        assert!(message.contains(&format!("{what} at 0x")) && message.contains("address space"), "{message}");
    }

    fn wrapping_keys<K: Key + Default + Copy>(
        keys_fn: unsafe extern "C" fn(
            *const gpusort_sorter,
            *mut K,
            usize,
            gpusort_order,
            gpusort_algorithm,
        ) -> gpusort_status,
        pairs_fn: unsafe extern "C" fn(
            *const gpusort_sorter,
            *mut K,
            *mut u32,
            usize,
            gpusort_order,
            gpusort_algorithm,
        ) -> gpusort_status,
    ) {
        let top = TOP as *mut K;
        let mut values = [7u32; 4];
        let mut keys = [K::default(); 4];
        // The last length runs exactly one element past the top page.
        for len in [1 << 40, LONG, 0x1000 / size_of::<K>()] {
            refuses(unsafe { keys_fn(std::ptr::null(), top, len, 0, GPUSORT_ALGORITHM_AUTO) }, "keys");
            let st = unsafe { pairs_fn(std::ptr::null(), top, values.as_mut_ptr(), len, 0, GPUSORT_ALGORITHM_AUTO) };
            refuses(st, "keys");
        }
        // Valid-looking keys (never touched: the values are checked before anything is sorted).
        for len in [1 << 40, LONG, 0x1000 / 4] {
            let st = unsafe { pairs_fn(std::ptr::null(), keys.as_mut_ptr(), TOP as *mut u32, len, 0, 0) };
            refuses(st, "values");
        }
        assert_eq!(values, [7; 4]);
    }

    #[test]
    fn arrays_running_past_the_address_space_are_invalid_arguments() {
        wrapping_keys::<u32>(gpusort_sort_keys_u32, gpusort_sort_pairs_u32);
        wrapping_keys::<i32>(gpusort_sort_keys_i32, gpusort_sort_pairs_i32);
        wrapping_keys::<f32>(gpusort_sort_keys_f32, gpusort_sort_pairs_f32);
        wrapping_keys::<u64>(gpusort_sort_keys_u64, gpusort_sort_pairs_u64);
        wrapping_keys::<i64>(gpusort_sort_keys_i64, gpusort_sort_pairs_i64);
        wrapping_keys::<f64>(gpusort_sort_keys_f64, gpusort_sort_pairs_f64);
        for len in [1 << 40, LONG, 0x1000 / 8] {
            let st = unsafe { gpusort_sort_kvp(std::ptr::null(), TOP as *mut gpusort_kvp, len, 0, 0) };
            refuses(st, "data");
        }
    }

    #[test]
    fn overlapping_pairs_are_refused_before_any_slice_exists() {
        let mut buf = [3u32, 2, 1, 0];
        let p = buf.as_mut_ptr();
        let st = unsafe { gpusort_sort_pairs_u32(std::ptr::null(), p, p.add(1), 3, 0, 0) };
        assert_eq!((st, buf), (GPUSORT_INVALID_ARGUMENT, [3, 2, 1, 0]));
        assert!(last_error().contains("overlap"));
        let st = unsafe { gpusort_sort_pairs_u32(std::ptr::null(), p, p.add(2), 2, 0, 0) };
        assert_eq!((st, buf), (gpusort_status::GPUSORT_OK, [2, 3, 0, 1]));
    }
}
