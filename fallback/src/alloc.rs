//! Fallible allocation for the sort path: under a memory limit a sort reports what it could not
//! get instead of aborting the process.
//!
//! Every buffer that grows with the input is asked for with `try_reserve_exact` before the sort
//! writes anything, or has a fallback that needs no memory (a sequential path, a plain scatter).
//! What stays infallible is bounded: the 2 KiB histograms and offset tables on the stack, the
//! thread pool's few small allocations when it is made, and rayon's job queues.

use std::fmt;

/// Memory a CPU sort could not allocate. The sort wrote nothing: its slices hold what they held.
///
/// ```
/// let e = gpusort_cpu::AllocError { bytes: 1 << 30 };
/// assert_eq!(e.to_string(), "the CPU sort could not allocate 1073741824 bytes of host memory");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AllocError {
    /// The size of the allocation that failed.
    pub bytes: usize,
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the CPU sort could not allocate {} bytes of host memory", self.bytes)
    }
}

impl std::error::Error for AllocError {}

/// An empty vector with room for exactly `n` items, or the error naming the bytes asked for.
pub(crate) fn try_vec<T>(n: usize) -> Result<Vec<T>, AllocError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| AllocError { bytes: n.saturating_mul(std::mem::size_of::<T>()) })?;
    Ok(v)
}

/// Types whose all-zero bit pattern is a valid value.
///
/// # Safety
/// Only for types where every bit being zero is a valid value.
pub(crate) unsafe trait ZeroBits: Copy {}
// SAFETY: zero is a valid integer, and a pair of them.
unsafe impl ZeroBits for u32 {}
// SAFETY: as above.
unsafe impl ZeroBits for u64 {}
// SAFETY: as above.
unsafe impl ZeroBits for (u64, u64) {}

/// `n` zero items from the allocator's zeroed pages: no pass over memory on the calling thread;
/// the pages fault in where the items are first written, on all the cores that write them.
pub(crate) fn try_zeroed<T: ZeroBits>(n: usize) -> Result<Vec<T>, AllocError> {
    let err = AllocError { bytes: n.saturating_mul(std::mem::size_of::<T>()) };
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| err)?;
    // SAFETY: the layout has a non-zero size (n > 0, and no `ZeroBits` type is zero-sized).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return Err(err);
    }
    // SAFETY: allocated by the global allocator with the layout of `n` T, all valid as zero
    // bits (`ZeroBits`); the Vec frees it with the same layout.
    Ok(unsafe { Vec::from_raw_parts(ptr, n, n) })
}
