//! The integer options C passes (order, algorithm, backend) and raw pointers turned into slices.
//!
//! Options are plain integers, not Rust enums, so an out-of-range value from C is an
//! `GPUSORT_INVALID_ARGUMENT` instead of undefined behaviour.

use std::mem::{align_of, size_of};

use gpusort_core::{Algorithm, Order};

use crate::error::Failure;

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
/// Bitonic sorting network: GPU only (`GPUSORT_UNSUPPORTED` without one), not stable.
pub const GPUSORT_ALGORITHM_BITONIC: gpusort_algorithm = 2;
/// Batcher's odd-even merge sorting network: GPU only, not stable.
pub const GPUSORT_ALGORITHM_ODD_EVEN_MERGE: gpusort_algorithm = 3;

/// Backend of a sorter handle: one of the `GPUSORT_BACKEND_*` values.
pub type gpusort_backend = u32;
/// The first CUDA GPU when one is usable (from a few thousand items up), else the CPU. Never
/// fails. The environment variable `GPUSORT_BACKEND=cpu|cuda|auto` overrides the choice.
pub const GPUSORT_BACKEND_AUTO: gpusort_backend = 0;
/// The CPU (all cores) only.
pub const GPUSORT_BACKEND_CPU: gpusort_backend = 1;
/// The first CUDA GPU only, for every length; `gpusort_sorter_new` fails without one.
pub const GPUSORT_BACKEND_CUDA: gpusort_backend = 2;

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

/// `len` elements at `ptr` as a slice, after the checks `slice::from_raw_parts_mut` needs that C
/// callers can get wrong: NULL, misalignment, a byte size past `isize::MAX`. NULL with length 0 is
/// the empty slice.
///
/// # Safety
/// When `len > 0`, `ptr` must point to `len` initialized elements, valid for reads and writes and
/// not accessed by anything else during the call.
pub(crate) unsafe fn slice_mut<'a, T>(ptr: *mut T, len: usize, what: &str) -> Result<&'a mut [T], Failure> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Failure::invalid(format!("{what} is NULL but the length is {len}")));
    }
    if len > isize::MAX as usize / size_of::<T>() {
        return Err(Failure::invalid(format!(
            "a length of {len} elements of {} bytes exceeds the address space",
            size_of::<T>()
        )));
    }
    if (ptr as usize) % align_of::<T>() != 0 {
        return Err(Failure::invalid(format!("{what} is not aligned to {} bytes", align_of::<T>())));
    }
    Ok(std::slice::from_raw_parts_mut(ptr, len))
}

/// Fails when two arrays of `len` elements overlap: two `&mut` slices may not alias.
pub(crate) fn disjoint<A, B>(a: *const A, b: *const B, len: usize) -> Result<(), Failure> {
    let (a0, b0) = (a as usize, b as usize);
    // Lengths are already checked against isize::MAX bytes, so these cannot overflow.
    let (a1, b1) = (a0 + len * size_of::<A>(), b0 + len * size_of::<B>());
    if len > 0 && a0 < b1 && b0 < a1 {
        return Err(Failure::invalid("the key and value arrays overlap".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_slices_reject_what_c_can_get_wrong() {
        assert!(order(GPUSORT_DESCENDING).is_ok() && order(2).is_err() && order(u32::MAX).is_err());
        assert!(algorithm(GPUSORT_ALGORITHM_ODD_EVEN_MERGE).is_ok() && algorithm(4).is_err());
        unsafe {
            assert!(slice_mut::<u32>(std::ptr::null_mut(), 0, "data").unwrap().is_empty());
            assert!(slice_mut::<u32>(std::ptr::null_mut(), 1, "data").is_err());
            let mut v = [0u64; 4];
            assert!(slice_mut(v.as_mut_ptr(), usize::MAX, "data").is_err());
            assert!(slice_mut(v.as_mut_ptr().cast::<u8>().add(4).cast::<u64>(), 1, "data").is_err());
            assert_eq!(slice_mut(v.as_mut_ptr(), 4, "data").unwrap().len(), 4);
            let p = v.as_ptr();
            assert!(disjoint(p, p.cast::<u32>().add(8), 1).is_ok());
            assert!(disjoint(p, p.cast::<u32>().add(7), 4).is_err());
            assert!(disjoint(p, p, 0).is_ok());
        }
    }
}
