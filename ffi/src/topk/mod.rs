//! The top-k entry points: the `k` first keys of an array in an order, sorted, with their input
//! positions as `uint64_t` indices, the keys only read.
//!
//! `top_k` here is generic over the key type; `per_key.rs`, generated from the key list, has the
//! `gpusort_top_k_<t>` entry points that forward to it. The indices are `uint64_t`, as those of
//! `gpusort_argsort_*`, for the same reasons; a NULL `out_indices` skips them, for callers that
//! want the values alone (a threshold, the best scores).
//!
//! `Sorter::top_k` returns vectors of its own; they are copied into the caller's buffers only
//! once it has succeeded, which is what keeps the outputs untouched on failure. The copy is small
//! beside the selection (`k` items against reading all `len` keys, and the sort of the `k`).

use std::mem::size_of;

use gpusort_core::Key;
use rayon::prelude::*;

use crate::args::{disjoint, gpusort_order, RawArray, GPUSORT_ALGORITHM_AUTO};
use crate::failure::Failure;
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

mod per_key;

pub use per_key::*;

/// Bytes per parallel task of the copy out; below one piece the calling thread copies alone.
const COPY_PIECE: usize = 1 << 20;

pub(crate) unsafe fn top_k<K: Key>(
    sorter: *const gpusort_sorter,
    keys: *const K,
    len: usize,
    k: usize,
    out_keys: *mut K,
    out_indices: *mut u64,
    ord: gpusort_order,
) -> gpusort_status {
    // Ties at the k-th key must go to the earliest positions on every sorter: AUTO, as argsort.
    with_sorter(sorter, ord, GPUSORT_ALGORITHM_AUTO, |s| {
        let keys = RawArray::new(keys.cast_mut(), len, "keys")?;
        // Before the outputs are checked: a k past len would otherwise be reported as an output
        // array running past the address space, which is not the caller's mistake.
        if k > len {
            return Err(Failure::invalid(format!("k is {k} but there are {len} keys: k runs from 0 to len")));
        }
        let out_keys = RawArray::new(out_keys, k, "out_keys")?;
        let out_indices =
            if out_indices.is_null() { None } else { Some(RawArray::new(out_indices, k, "out_indices")?) };
        // The keys become a shared slice beside `&mut` ones: they may share no byte with them.
        disjoint(&keys, &out_keys, "the key and output key arrays")?;
        if let Some(idx) = &out_indices {
            disjoint(&keys, idx, "the key and output index arrays")?;
            disjoint(&out_keys, idx, "the output key and index arrays")?;
        }
        let top = s.top_k(keys.into_ref(), k)?;
        copy_out(out_keys.into_slice(), &top.keys);
        if let Some(idx) = out_indices {
            copy_out(idx.into_slice(), &top.indices);
        }
        Ok(())
    })
}

/// `src` into the caller's `dst`; large ones on all cores with streaming stores, as
/// `gpusort_sort_records` copies back (`k` may be as large as the input).
fn copy_out<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    let piece = COPY_PIECE / size_of::<T>();
    if dst.len() <= piece {
        dst.copy_from_slice(src);
        return;
    }
    gpusort_cpu::install(|| {
        dst.par_chunks_mut(piece).zip(src.par_chunks(piece)).for_each(|(d, s)| gpusort_cpu::copy_streaming(d, s))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::GPUSORT_DESCENDING;
    // This thread's last error, read directly (gpusort_last_error_message has its own tests).
    use crate::failure::last_error;
    use gpusort_status::{GPUSORT_INVALID_ARGUMENT, GPUSORT_OK};
    use std::ptr::{null, null_mut};

    #[test]
    fn the_first_k_of_a_stable_sort_with_and_without_indices() {
        let keys = [30u32, 10, 30, 20, 10];
        let (mut best, mut at) = ([0u32; 3], [0u64; 3]);
        let st = unsafe { gpusort_top_k_u32(null(), keys.as_ptr(), 5, 3, best.as_mut_ptr(), at.as_mut_ptr(), 0) };
        assert_eq!((st, best, at), (GPUSORT_OK, [10, 10, 20], [1, 4, 3]));
        let st = unsafe {
            gpusort_top_k_u32(null(), keys.as_ptr(), 5, 2, best.as_mut_ptr(), null_mut(), GPUSORT_DESCENDING)
        };
        assert_eq!((st, best), (GPUSORT_OK, [30, 30, 20]), "ties in increasing position, the third untouched");
        let keys = [2.5f64, f64::NAN, -0.0, 0.0, -f64::NAN, 2.5];
        let (mut best, mut at) = ([0f64; 6], [9u64; 6]);
        let st = unsafe {
            gpusort_top_k_f64(null(), keys.as_ptr(), 6, 6, best.as_mut_ptr(), at.as_mut_ptr(), GPUSORT_DESCENDING)
        };
        assert_eq!((st, at), (GPUSORT_OK, [1, 0, 5, 3, 2, 4]), "total order, NaN largest and -NaN smallest");
        assert_eq!(best.map(f64::to_bits), at.map(|i| keys[i as usize].to_bits()));
        let st = unsafe { gpusort_top_k_i64(null(), null(), 0, 0, null_mut(), null_mut(), 0) };
        assert_eq!(st, GPUSORT_OK, "n = 0 and k = 0 with NULL arrays");
        let (mut best, mut at) = ([0u16; 2], [0u64; 2]);
        let keys = [7u16, 65535, 7, 0];
        let st = unsafe { gpusort_top_k_u16(null(), keys.as_ptr(), 4, 2, best.as_mut_ptr(), at.as_mut_ptr(), 0) };
        assert_eq!((st, best, at), (GPUSORT_OK, [0, 7], [3, 0]));
    }

    #[test]
    fn refused_calls_write_nothing() {
        let keys = [3i32, 1, 2, 0];
        let (mut best, mut at) = ([7i32; 4], [7u64; 4]);
        let (k, b, a) = (keys.as_ptr(), best.as_mut_ptr(), at.as_mut_ptr());
        let refused = |st: gpusort_status, words: &str| {
            assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "{words}");
            assert!(last_error().contains(words), "{words}: {}", last_error());
        };
        unsafe {
            refused(gpusort_top_k_i32(null(), k, 4, 5, b, a, 0), "k is 5 but there are 4 keys");
            refused(gpusort_top_k_i32(null(), k, 0, 1, b, a, 0), "k is 1 but there are 0 keys");
            refused(gpusort_top_k_i32(null(), k, 4, usize::MAX, b, a, 0), "k is 18446744073709551615");
            refused(gpusort_top_k_i32(null(), null(), 4, 2, b, a, 0), "keys is NULL");
            refused(gpusort_top_k_i32(null(), k, 4, 2, null_mut(), a, 0), "out_keys is NULL");
            refused(gpusort_top_k_i32(null(), k, 4, 2, b, a, 2), "order 2");
            refused(gpusort_top_k_i32(null(), k, 4, 2, k.cast_mut(), a, 0), "the key and output key arrays overlap");
            refused(gpusort_top_k_i32(null(), k, 4, 2, b, k.cast_mut().cast(), 0), "the key and output index arrays");
            refused(gpusort_top_k_i32(null(), k, 4, 2, b, b.cast(), 0), "the output key and index arrays overlap");
            refused(gpusort_top_k_i32(null(), k, 4, 2, b.cast::<u8>().add(1).cast(), a, 0), "out_keys is not aligned");
        }
        assert_eq!((best, at), ([7; 4], [7; 4]));
    }
}
