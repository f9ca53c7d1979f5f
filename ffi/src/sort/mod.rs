//! The sort entry points: `gpusort_sort_kvp` (pairs in one array) here, and the generic sorts of
//! keys alone and of split key and value arrays that the per-key-type families forward to:
//! `keys.rs` (`gpusort_sort_keys_<t>`), `pairs.rs` (`gpusort_sort_pairs_<t>`, `uint32_t` values)
//! and `pairs64.rs` (`gpusort_sort_pairs_<t>_u64`), generated from the key list.

use std::mem::{align_of, offset_of, size_of};

use gpusort_core::{Key, Kvp, Sorter, Value};

use crate::args::{algorithm, disjoint, gpusort_algorithm, gpusort_order, order, RawArray};
use crate::failure::Failure;
use crate::guard::guard;
use crate::sorter::{gpusort_sorter, resolve};
use crate::status::gpusort_status;

mod keys;
mod pairs;
mod pairs64;

pub use keys::*;
pub use pairs::*;
pub use pairs64::*;

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

/// Keys alone, of any key type.
pub(crate) unsafe fn sort_keys<K: Key>(
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

/// Split pairs of any key and value type (`uint32_t` values in `pairs.rs`, `uint64_t` in
/// `pairs64.rs`).
pub(crate) unsafe fn sort_pairs<K: Key, V: Value>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{GPUSORT_ALGORITHM_AUTO, GPUSORT_ALGORITHM_BITONIC, GPUSORT_DESCENDING};
    // This thread's last error, read directly (gpusort_last_error_message has its own tests).
    use crate::failure::last_error;
    use gpusort_status::{GPUSORT_INVALID_ARGUMENT, GPUSORT_OK};
    use std::ptr::null;

    /// A pointer to the last page of the address space, and a length that runs far past its end.
    const TOP: usize = usize::MAX & !0xFFF;
    const LONG: usize = usize::MAX / 64;

    /// `status` must be GPUSORT_INVALID_ARGUMENT, with a message naming `what` and the address
    /// space.
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
        assert_eq!((st, buf), (GPUSORT_OK, [2, 3, 0, 1]));
    }

    #[test]
    fn small_keys_sort_alone_and_with_values() {
        let mut keys = [300i16, -2, 7, i16::MIN, -2, i16::MAX];
        let mut values = [0u32, 1, 2, 3, 4, 5];
        let st = unsafe { gpusort_sort_pairs_i16(null(), keys.as_mut_ptr(), values.as_mut_ptr(), 6, 0, 0) };
        assert_eq!((st, keys, values), (GPUSORT_OK, [i16::MIN, -2, -2, 7, 300, i16::MAX], [3, 1, 4, 2, 0, 5]));
        let mut bytes = [5u8, 255, 0, 5];
        let st =
            unsafe { gpusort_sort_keys_u8(null(), bytes.as_mut_ptr(), 4, GPUSORT_DESCENDING, GPUSORT_ALGORITHM_AUTO) };
        assert_eq!((st, bytes), (GPUSORT_OK, [255, 5, 5, 0]));
    }

    #[test]
    fn values_of_64_bits_keep_all_their_bits_and_overlap_is_refused() {
        let mut keys = [3i64, -1, 3, 0];
        let mut rows = [u64::MAX, 1 << 40, 7, 0];
        let st = unsafe { gpusort_sort_pairs_i64_u64(null(), keys.as_mut_ptr(), rows.as_mut_ptr(), 4, 0, 0) };
        assert_eq!((st, keys, rows), (GPUSORT_OK, [-1, 0, 3, 3], [1 << 40, 0, u64::MAX, 7]));
        // Stable descending too, and with a sorting network asked for.
        let mut keys = [1.5f32, 2.0, 1.5];
        let mut rows = [10u64 << 33, 11, 12 << 33];
        let (k, v) = (keys.as_mut_ptr(), rows.as_mut_ptr());
        let st = unsafe { gpusort_sort_pairs_f32_u64(null(), k, v, 3, 1, GPUSORT_ALGORITHM_BITONIC) };
        assert_eq!((st, keys, rows), (GPUSORT_OK, [2.0, 1.5, 1.5], [11, 10 << 33, 12 << 33]));
        let mut buf = [5u64, 4, 3, 2];
        let p = buf.as_mut_ptr();
        let st = unsafe { gpusort_sort_pairs_u64_u64(null(), p, p.add(1), 3, 0, 0) };
        assert_eq!((st, buf), (GPUSORT_INVALID_ARGUMENT, [5, 4, 3, 2]));
        let st = unsafe { gpusort_sort_pairs_u32_u64(null(), std::ptr::null_mut(), p, 2, 0, 0) };
        assert_eq!((st, buf), (GPUSORT_INVALID_ARGUMENT, [5, 4, 3, 2]));
        let st = unsafe { gpusort_sort_pairs_u32_u64(null(), std::ptr::null_mut(), std::ptr::null_mut(), 0, 0, 0) };
        assert_eq!(st, GPUSORT_OK);
        let mut small = [2u8, 1];
        let mut rows = [u64::MAX, 0];
        let st = unsafe { gpusort_sort_pairs_u8_u64(null(), small.as_mut_ptr(), rows.as_mut_ptr(), 2, 0, 0) };
        assert_eq!((st, small, rows), (GPUSORT_OK, [1, 2], [0, u64::MAX]));
    }
}
