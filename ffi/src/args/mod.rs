//! The integer options C passes (order, algorithm, backend, key type, float order, null
//! placement), and raw pointers checked, then turned into slices. The `GPUSORT_KEY_*` values are in
//! `key_types.rs`, generated from the key list.
//!
//! Options are plain integers, not Rust enums, so an out-of-range value from C is an
//! `GPUSORT_INVALID_ARGUMENT` instead of undefined behaviour.

use std::mem::{align_of, size_of};
use std::ops::Range;

use gpusort_core::{Algorithm, FloatOrder, KeyType, NullPlacement, Order};

use crate::failure::Failure;

/// Sort order: `GPUSORT_ASCENDING` or `GPUSORT_DESCENDING`.
pub type gpusort_order = u32;
/// Smallest key first.
pub const GPUSORT_ASCENDING: gpusort_order = 0;
/// Largest key first.
pub const GPUSORT_DESCENDING: gpusort_order = 1;

/// Sorting algorithm: one of the `GPUSORT_ALGORITHM_*` values.
pub type gpusort_algorithm = u32;
/// The fastest stable sort the backend has (radix today). Stable: equal keys keep their order.
pub const GPUSORT_ALGORITHM_AUTO: gpusort_algorithm = 0;
/// Stable LSD radix sort, on the CPU and the GPU.
pub const GPUSORT_ALGORITHM_RADIX: gpusort_algorithm = 1;
/// Bitonic sorting network on the GPU, not stable. Without a GPU, the auto backend (and the
/// default sorter) sorts with the CPU's stable radix sort instead, a result the network may give
/// too; the CPU backend returns `GPUSORT_UNSUPPORTED` (but lengths 0 and 1, with nothing to sort,
/// succeed with every algorithm on every backend).
pub const GPUSORT_ALGORITHM_BITONIC: gpusort_algorithm = 2;
/// Batcher's odd-even merge sorting network on the GPU (without one, as bitonic), not stable.
pub const GPUSORT_ALGORITHM_ODD_EVEN_MERGE: gpusort_algorithm = 3;

/// Backend of a sorter handle: one of the `GPUSORT_BACKEND_*` values.
pub type gpusort_backend = u32;
/// The first CUDA GPU when one is usable (from a few thousand items up), else the CPU. Never
/// fails. The environment variable `GPUSORT_BACKEND=cpu|cuda|auto` overrides the choice; any other
/// value makes its sorts fail with `GPUSORT_INVALID_ARGUMENT`, naming the value.
pub const GPUSORT_BACKEND_AUTO: gpusort_backend = 0;
/// The CPU (all cores) only.
pub const GPUSORT_BACKEND_CPU: gpusort_backend = 1;
/// The first CUDA GPU only, for every length; `gpusort_sorter_new` fails without one.
pub const GPUSORT_BACKEND_CUDA: gpusort_backend = 2;

/// How float keys are ordered: one of the `GPUSORT_FLOAT_ORDER_*` values, a sorter's
/// (`gpusort_sorter_with_float_order`) or a column's (`gpusort_column`). Other key types ignore it.
pub type gpusort_float_order = u32;
/// The default of where it is given: a column's float order is then its sorter's, and a
/// sorter's `GPUSORT_FLOAT_ORDER_TOTAL`. A zeroed `gpusort_column` holds it.
pub const GPUSORT_FLOAT_ORDER_DEFAULT: gpusort_float_order = 0;
/// IEEE 754 totalOrder, the library's default: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf <
/// +NaN`, NaNs ordered by their bits (sign and payload).
pub const GPUSORT_FLOAT_ORDER_TOTAL: gpusort_float_order = 1;
/// NumPy's, CuPy's and pandas' order: every NaN after every other value, ascending and
/// descending alike. `-0.0` and `+0.0` are one value, as are all NaNs: a stable sort keeps
/// them in input order.
pub const GPUSORT_FLOAT_ORDER_NAN_LAST: gpusort_float_order = 2;
/// Every NaN before every other value in both orders; zeros and NaNs as `GPUSORT_FLOAT_ORDER_NAN_LAST`.
pub const GPUSORT_FLOAT_ORDER_NAN_FIRST: gpusort_float_order = 3;
/// PyTorch's order: NaN is the largest value (last ascending, first descending); zeros and NaNs
/// as `GPUSORT_FLOAT_ORDER_NAN_LAST`.
pub const GPUSORT_FLOAT_ORDER_NAN_LARGEST: gpusort_float_order = 4;

/// Where a column's null rows go (`gpusort_column`): `GPUSORT_NULLS_LAST` or `GPUSORT_NULLS_FIRST`.
pub type gpusort_null_placement = u32;
/// After every other row, ascending and descending alike (pandas' `na_position="last"`, Arrow's
/// `at_end`).
pub const GPUSORT_NULLS_LAST: gpusort_null_placement = 0;
/// Before every other row, ascending and descending alike.
pub const GPUSORT_NULLS_FIRST: gpusort_null_placement = 1;

/// The type of the key inside a record (`gpusort_sort_records`), or of the keys of a device
/// array (`gpusort_sort_device_*`, `gpusort_top_k_device`): one of the `GPUSORT_KEY_*` values.
pub type gpusort_key_type = u32;
pub(crate) mod key_types;

/// The key type a `gpusort_key_type` value names: its position in `KeyType::ALL`.
pub(crate) fn key_type(key_type: gpusort_key_type) -> Result<KeyType, Failure> {
    usize::try_from(key_type).ok().and_then(|i| KeyType::ALL.get(i).copied()).ok_or_else(|| {
        let last = KeyType::ALL.len() - 1;
        Failure::invalid(format!("key type {key_type} is not one of the GPUSORT_KEY_* values (0..={last})"))
    })
}

pub(crate) fn order(order: gpusort_order) -> Result<Order, Failure> {
    match order {
        GPUSORT_ASCENDING => Ok(Order::Ascending),
        GPUSORT_DESCENDING => Ok(Order::Descending),
        other => {
            Err(Failure::invalid(format!("order {other} is neither GPUSORT_ASCENDING (0) nor GPUSORT_DESCENDING (1)")))
        }
    }
}

pub(crate) fn algorithm(algorithm: gpusort_algorithm) -> Result<Algorithm, Failure> {
    match algorithm {
        GPUSORT_ALGORITHM_AUTO => Ok(Algorithm::Auto),
        GPUSORT_ALGORITHM_RADIX => Ok(Algorithm::Radix),
        GPUSORT_ALGORITHM_BITONIC => Ok(Algorithm::Bitonic),
        GPUSORT_ALGORITHM_ODD_EVEN_MERGE => Ok(Algorithm::OddEvenMerge),
        other => {
            Err(Failure::invalid(format!("algorithm {other} is not one of the GPUSORT_ALGORITHM_* values (0..=3)")))
        }
    }
}

/// The float order a `gpusort_float_order` value names; `None` for `GPUSORT_FLOAT_ORDER_DEFAULT`.
pub(crate) fn float_order(floats: gpusort_float_order) -> Result<Option<FloatOrder>, Failure> {
    match floats {
        GPUSORT_FLOAT_ORDER_DEFAULT => Ok(None),
        GPUSORT_FLOAT_ORDER_TOTAL => Ok(Some(FloatOrder::Total)),
        GPUSORT_FLOAT_ORDER_NAN_LAST => Ok(Some(FloatOrder::NanLast)),
        GPUSORT_FLOAT_ORDER_NAN_FIRST => Ok(Some(FloatOrder::NanFirst)),
        GPUSORT_FLOAT_ORDER_NAN_LARGEST => Ok(Some(FloatOrder::NanLargest)),
        other => {
            Err(Failure::invalid(format!("float order {other} is not one of the GPUSORT_FLOAT_ORDER_* values (0..=4)")))
        }
    }
}

pub(crate) fn null_placement(placement: gpusort_null_placement) -> Result<NullPlacement, Failure> {
    match placement {
        GPUSORT_NULLS_LAST => Ok(NullPlacement::Last),
        GPUSORT_NULLS_FIRST => Ok(NullPlacement::First),
        other => Err(Failure::invalid(format!(
            "null placement {other} is neither GPUSORT_NULLS_LAST (0) nor GPUSORT_NULLS_FIRST (1)"
        ))),
    }
}

/// The bytes `len` elements of `size` bytes starting at address `addr` occupy, or `None` when that
/// is more than `isize::MAX` bytes (the most a Rust slice may span) or would run past the last
/// address. Checked arithmetic: a hostile pointer and length never overflow, in any build.
pub(crate) fn byte_range(addr: usize, len: usize, size: usize) -> Option<Range<usize>> {
    let bytes = len.checked_mul(size).filter(|&b| b <= isize::MAX as usize)?;
    Some(addr..addr.checked_add(bytes)?)
}

/// `len` elements at `ptr`, checked for everything `slice::from_raw_parts_mut` needs that C
/// callers can get wrong (NULL, misalignment, a size past `isize::MAX` bytes, a span that wraps
/// the address space), but not yet a slice: two arrays must be checked for overlap on their raw
/// addresses first, as two aliasing `&mut` slices may not exist even for a moment.
#[derive(Debug)]
pub(crate) struct RawArray<T> {
    ptr: *mut T,
    len: usize,
    bytes: Range<usize>,
}

impl<T> RawArray<T> {
    /// Checks `len` elements at `ptr`; `what` names the argument in the error. NULL (or any
    /// pointer) with length 0 is the empty array.
    pub(crate) fn new(ptr: *mut T, len: usize, what: &str) -> Result<Self, Failure> {
        let addr = ptr as usize;
        if len == 0 {
            return Ok(RawArray { ptr, len, bytes: addr..addr });
        }
        if ptr.is_null() {
            return Err(Failure::invalid(format!("{what} is NULL but the length is {len}")));
        }
        let size = size_of::<T>();
        let Some(bytes) = byte_range(addr, len, size) else {
            return Err(Failure::invalid(format!(
                "{what} at {addr:#x} with {len} elements of {size} bytes runs past the end of the address space"
            )));
        };
        if !addr.is_multiple_of(align_of::<T>()) {
            return Err(Failure::invalid(format!("{what} is not aligned to {} bytes", align_of::<T>())));
        }
        Ok(RawArray { ptr, len, bytes })
    }

    /// The checked array as a slice.
    ///
    /// # Safety
    /// The pointer given to `new` must point to `len` initialized elements, valid for reads and
    /// writes and not accessed by anything else (another slice included) while the slice lives.
    pub(crate) unsafe fn into_slice<'a>(self) -> &'a mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        std::slice::from_raw_parts_mut(self.ptr, self.len)
    }

    /// The checked array as a shared slice, for inputs C passes as `const T *`.
    ///
    /// # Safety
    /// The pointer given to `new` must point to `len` initialized elements, valid for reads and
    /// not written by anything (another slice included) while the slice lives.
    pub(crate) unsafe fn into_ref<'a>(self) -> &'a [T] {
        if self.len == 0 {
            return &[];
        }
        std::slice::from_raw_parts(self.ptr, self.len)
    }
}

/// Fails when two checked arrays share a byte: they are about to become slices, one of them
/// `&mut`. `what` names the pair in the error ("the key and value arrays").
pub(crate) fn disjoint<A, B>(a: &RawArray<A>, b: &RawArray<B>, what: &str) -> Result<(), Failure> {
    let (a, b) = (&a.bytes, &b.bytes);
    if !a.is_empty() && !b.is_empty() && a.start < b.end && b.start < a.end {
        return Err(Failure::invalid(format!("{what} overlap")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::key_types::*;
    use super::*;

    /// The last page of the address space, where the hostile tester's pointer pointed.
    const TOP: usize = usize::MAX & !0xFFF;

    fn raw<T>(addr: usize, len: usize) -> Result<RawArray<T>, String> {
        RawArray::new(addr as *mut T, len, "keys").map_err(|f| f.message)
    }

    #[test]
    fn options_reject_unknown_values() {
        assert!(order(GPUSORT_DESCENDING).is_ok() && order(2).is_err() && order(u32::MAX).is_err());
        assert!(algorithm(GPUSORT_ALGORITHM_ODD_EVEN_MERGE).is_ok() && algorithm(4).is_err());
        assert_eq!(key_type(GPUSORT_KEY_F64).map(KeyType::size).ok(), Some(8));
        assert_eq!(key_type(GPUSORT_KEY_I16).map(KeyType::size).ok(), Some(2));
        assert_eq!(key_type(GPUSORT_KEY_U8).map(KeyType::size).ok(), Some(1));
        assert_eq!(key_type(GPUSORT_KEY_I32).map(KeyType::size).ok(), Some(4));
        assert_eq!(key_type(GPUSORT_KEY_U32).ok(), Some(KeyType::U32));
        assert_eq!(key_type(GPUSORT_KEY_I8).ok(), Some(KeyType::I8));
        let message = key_type(12).unwrap_err().message;
        assert_eq!(message, "key type 12 is not one of the GPUSORT_KEY_* values (0..=11)");
        assert!(key_type(u32::MAX).is_err());
        assert_eq!(float_order(GPUSORT_FLOAT_ORDER_DEFAULT).ok(), Some(None));
        assert_eq!(float_order(GPUSORT_FLOAT_ORDER_NAN_LARGEST).ok(), Some(Some(FloatOrder::NanLargest)));
        let message = float_order(5).unwrap_err().message;
        assert_eq!(message, "float order 5 is not one of the GPUSORT_FLOAT_ORDER_* values (0..=4)");
        assert!(float_order(u32::MAX).is_err());
        assert_eq!(null_placement(GPUSORT_NULLS_FIRST).ok(), Some(NullPlacement::First));
        assert!(null_placement(2).unwrap_err().message.contains("null placement 2"));
    }

    #[test]
    fn byte_ranges_never_overflow_or_wrap() {
        assert_eq!(byte_range(0x1000, 4, 8), Some(0x1000..0x1020));
        assert_eq!(byte_range(TOP, 0x1000 / 4 - 1, 4), Some(TOP..usize::MAX - 3));
        // Ending on the last byte is fine; one byte more wraps to 0.
        assert_eq!(byte_range(usize::MAX - 4, 4, 1), Some(usize::MAX - 4..usize::MAX));
        assert_eq!(byte_range(usize::MAX - 4, 5, 1), None);
        assert_eq!(byte_range(TOP, 0x1000 / 4, 4), None);
        assert_eq!(byte_range(TOP, 1 << 40, 4), None, "the tester's 0xfffffffffffff000 with 2^40 u32");
        assert_eq!(byte_range(8, usize::MAX / 8 + 1, 8), None, "len * size overflows");
        assert_eq!(byte_range(0, isize::MAX as usize / 4 + 1, 4), None, "more than isize::MAX bytes");
        assert_eq!(byte_range(usize::MAX, 0, 8), Some(usize::MAX..usize::MAX));
    }

    #[test]
    fn arrays_reject_what_c_can_get_wrong_before_any_slice_exists() {
        assert!(raw::<u32>(0, 0).is_ok() && raw::<u32>(TOP + 2, 0).is_ok(), "length 0: any pointer");
        assert!(raw::<u32>(0, 1).unwrap_err().contains("keys is NULL"));
        for len in [1 << 40, 0x1000 / 4, usize::MAX / 64] {
            let e = raw::<u32>(TOP, len).unwrap_err();
            assert!(e.contains("keys at 0xfffffffffffff000") && e.contains("address space"), "{e}");
            assert!(raw::<gpusort_core::Kvp>(TOP, len).is_err() && raw::<u64>(TOP, len).is_err());
        }
        assert!(raw::<u64>(0x1000, usize::MAX).unwrap_err().contains("address space"));
        assert!(raw::<u64>(0x1004, 1).unwrap_err().contains("aligned"));
        assert!(raw::<u32>(TOP, 0x1000 / 4 - 1).is_ok(), "the top page, short of its last element");
        let mut v = [1u64, 2, 3, 4];
        let slice = unsafe { RawArray::new(v.as_mut_ptr(), 4, "keys").unwrap().into_slice() };
        slice[3] = 9;
        assert_eq!(v, [1, 2, 3, 9]);
        assert!(unsafe { RawArray::<u32>::new(std::ptr::null_mut(), 0, "keys").unwrap().into_slice() }.is_empty());
    }

    #[test]
    fn overlap_is_decided_on_addresses() {
        let arr = |addr: usize, len: usize| RawArray::<u32>::new(addr as *mut u32, len, "a").unwrap();
        let disjoint = |a: &RawArray<u32>, b: &RawArray<u32>| disjoint(a, b, "a and b");
        assert!(disjoint(&arr(0x1000, 2), &arr(0x1008, 2)).is_ok(), "adjacent");
        assert!(disjoint(&arr(0x1008, 2), &arr(0x1000, 2)).is_ok(), "adjacent, the other way");
        assert!(disjoint(&arr(0x1000, 3), &arr(0x1008, 2)).is_err());
        assert!(disjoint(&arr(0x1000, 4), &arr(0x1004, 1)).is_err(), "one inside the other");
        assert!(disjoint(&arr(0x1000, 0), &arr(0x1000, 0)).is_ok(), "empty arrays share nothing");
        assert!(disjoint(&arr(TOP, 0x3FF), &arr(TOP + 0xFF8, 1)).is_err(), "at the top of the address space");
        let kvp = RawArray::<u64>::new(0x1000 as *mut u64, 2, "k").unwrap();
        let e = super::disjoint(&kvp, &arr(0x100C, 1), "k and a").unwrap_err();
        assert_eq!(e.message, "k and a overlap");
        assert!(super::disjoint(&kvp, &arr(0x1010, 1), "k and a").is_ok());
    }
}
