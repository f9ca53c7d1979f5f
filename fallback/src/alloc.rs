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
