//! The top-k entry points: the `k` first keys of an array in an order, sorted, with their input
//! positions as `uint64_t` indices, the keys only read.
//!
//! One function per key type, written out as in `sort` (cbindgen reads signatures, not macro
//! expansions), each forwarding to the generic `top_k`. The indices are `uint64_t`, as those of
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
    top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
    top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `float` keys in `order`, in IEEE 754 totalOrder (`-NaN < -inf < ... < -0.0 <
/// +0.0 < ... < +inf < +NaN`: a NaN is among the largest keys, or the smallest when negative),
/// with their positions (see `gpusort_top_k_u32`).
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
    top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
    top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
    top_k(sorter, keys, len, k, out_keys, out_indices, order)
}

/// The `k` first `double` keys in `order`, in IEEE 754 totalOrder (see `gpusort_top_k_f32`),
/// with their positions (see `gpusort_top_k_u32`).
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
    top_k(sorter, keys, len, k, out_keys, out_indices, order)
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
