//! The argsort entry points: the stable permutation that sorts an array of keys, as `uint64_t`
//! indices, the keys only read.
//!
//! One function per key type, written out as in `sort` (cbindgen reads signatures, not macro
//! expansions), each forwarding to the generic `argsort`.
//!
//! Why one index type, `uint64_t`, and not a `uint32_t` variant beside it: C lengths are
//! `size_t`, and an index must reach any of them (a `uint32_t` one stops at 2^32 keys, which
//! a 16 GiB array of `uint32_t` keys already passes); NumPy's and most data frames' indices are
//! 64-bit, so their callers pass their own `int64`/`uint64` buffer with no conversion; and six
//! functions instead of twelve keep the API one obvious choice per key type. The cost, four more
//! bytes written per key, is small beside the sort: up to 2^32 keys the library sorts with
//! 32-bit positions and widens them in one parallel pass.

use gpusort_core::Key;

use crate::args::{disjoint, gpusort_order, RawArray, GPUSORT_ALGORITHM_AUTO};
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

pub(crate) unsafe fn argsort<K: Key>(
    sorter: *const gpusort_sorter,
    keys: *const K,
    len: usize,
    out: *mut u64,
    ord: gpusort_order,
) -> gpusort_status {
    // Argsort is stable by definition here: the sorter's algorithm is set to AUTO (the stable
    // radix sort), whatever the handle was made with.
    with_sorter(sorter, ord, GPUSORT_ALGORITHM_AUTO, |s| {
        let (keys, out) = (RawArray::new(keys.cast_mut(), len, "keys")?, RawArray::new(out, len, "out")?);
        // A shared and a `&mut` slice over the same bytes would be undefined behaviour.
        disjoint(&keys, &out, "the key and output arrays")?;
        // `argsort_into` writes `out` only once its sort has succeeded (every path of it sorts
        // into its own buffer first), which is what keeps `out` untouched on failure.
        Ok(s.argsort_into(keys.into_ref(), out.into_slice())?)
    })
}

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
/// they must be aligned and must not overlap (`GPUSORT_INVALID_ARGUMENT`). On failure `out` is
/// not written: it holds its original contents (except after `GPUSORT_PANIC`, a bug).
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
    argsort(sorter, keys, len, out, order)
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
    argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `float` keys in IEEE 754 totalOrder (see
/// `gpusort_sort_keys_f32` and `gpusort_argsort_u32`).
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
    argsort(sorter, keys, len, out, order)
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
    argsort(sorter, keys, len, out, order)
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
    argsort(sorter, keys, len, out, order)
}

/// The stable permutation that sorts `double` keys in IEEE 754 totalOrder (see
/// `gpusort_argsort_u32`).
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
    argsort(sorter, keys, len, out, order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{GPUSORT_ASCENDING, GPUSORT_DESCENDING};
    use crate::error::gpusort_last_error_message;
    use gpusort_status::{GPUSORT_INVALID_ARGUMENT, GPUSORT_OK};
    use std::ptr::{null, null_mut};

    fn last_error() -> String {
        let mut buf = [0 as std::ffi::c_char; 256];
        unsafe { gpusort_last_error_message(buf.as_mut_ptr(), buf.len(), null_mut()) };
        unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_owned()
    }

    #[test]
    fn permutations_are_stable_in_both_orders() {
        let keys = [2.5f64, -1.0, 2.5, f64::NAN, -0.0, 0.0];
        let mut out = [9u64; 6];
        assert_eq!(
            unsafe { gpusort_argsort_f64(null(), keys.as_ptr(), 6, out.as_mut_ptr(), GPUSORT_ASCENDING) },
            GPUSORT_OK
        );
        assert_eq!(out, [1, 4, 5, 0, 2, 3]);
        let st = unsafe { gpusort_argsort_f64(null(), keys.as_ptr(), 6, out.as_mut_ptr(), GPUSORT_DESCENDING) };
        assert_eq!((st, out), (GPUSORT_OK, [3, 0, 2, 5, 4, 1]));
        let keys = [3i32, -7, 3, 3];
        assert_eq!(
            unsafe { gpusort_argsort_i32(null(), keys.as_ptr(), 4, out.as_mut_ptr(), GPUSORT_DESCENDING) },
            GPUSORT_OK
        );
        assert_eq!(out[..4], [0, 2, 3, 1]);
        assert_eq!(out[4..], [4, 1], "only len indices are written");
    }

    #[test]
    fn refused_calls_write_nothing() {
        let keys = [3u32, 1, 2, 0];
        let mut out = [7u64; 4];
        let p = out.as_mut_ptr();
        assert_eq!(unsafe { gpusort_argsort_u32(null(), null(), 4, p, 0) }, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("keys is NULL"));
        assert_eq!(unsafe { gpusort_argsort_u32(null(), keys.as_ptr(), 4, null_mut(), 0) }, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("out is NULL"));
        assert_eq!(unsafe { gpusort_argsort_u32(null(), keys.as_ptr(), 4, p, 2) }, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("order 2"));
        // The keys are the first half of the output's bytes.
        let st = unsafe { gpusort_argsort_u32(null(), p.cast::<u32>().cast_const(), 4, p, 0) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("the key and output arrays overlap"), "{}", last_error());
        let st = unsafe { gpusort_argsort_u32(null(), keys.as_ptr(), 1, p.cast::<u8>().add(4).cast(), 0) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("out is not aligned"));
        let top = (usize::MAX & !0xFFF) as *mut u64;
        assert_eq!(unsafe { gpusort_argsort_u32(null(), keys.as_ptr(), 0x1000 / 4, top, 0) }, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("out at 0x") && last_error().contains("address space"));
        assert_eq!(out, [7; 4]);
        assert_eq!(unsafe { gpusort_argsort_u64(null(), null(), 0, null_mut(), 1) }, GPUSORT_OK);
    }
}
