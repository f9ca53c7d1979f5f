//! The argsort entry points: the stable permutation that sorts an array of keys, as `uint64_t`
//! indices, the keys only read.
//!
//! `argsort` here is generic over the key type; `per_key.rs`, generated from the key list, has the
//! `gpusort_argsort_<t>` entry points that forward to it.
//!
//! Why one index type, `uint64_t`, and not a `uint32_t` variant beside it: C lengths are
//! `size_t`, and an index must reach any of them (a `uint32_t` one stops at 2^32 keys, which
//! a 16 GiB array of `uint32_t` keys already passes); NumPy's and most data frames' indices are
//! 64-bit, so their callers pass their own `int64`/`uint64` buffer with no conversion; and one
//! function per key type instead of two keeps the API one obvious choice. The cost, four more
//! bytes written per key, is small beside the sort: up to 2^32 keys the library sorts with
//! 32-bit positions and widens them where they are made (on the GPU, before they come down).

use gpusort_core::Key;

use crate::args::{disjoint, gpusort_order, RawArray, GPUSORT_ALGORITHM_AUTO};
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

mod per_key;

pub use per_key::*;

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
        // On failure `argsort_into` leaves `out` as it was or holding the complete result.
        Ok(s.argsort_into(keys.into_ref(), out.into_slice())?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{GPUSORT_ASCENDING, GPUSORT_DESCENDING};
    // This thread's last error, read directly (gpusort_last_error_message has its own tests).
    use crate::failure::last_error;
    use gpusort_status::{GPUSORT_INVALID_ARGUMENT, GPUSORT_OK};
    use std::ptr::{null, null_mut};

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
        let signed = [3i8, -128, 127, 3, 0];
        let st = unsafe { gpusort_argsort_i8(null(), signed.as_ptr(), 5, out.as_mut_ptr(), GPUSORT_DESCENDING) };
        assert_eq!((st, &out[..5]), (GPUSORT_OK, &[2, 0, 3, 4, 1][..]));
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
