//! Page-locked staging for host-memory sorts. Copies from pageable memory run at 8.7 GB/s up and
//! 15.4 GB/s down on the H200 machine, from pinned memory at 55 GB/s (shared/anchors/README.md);
//! a parallel host memcpy into a pinned buffer is faster than the driver's own pageable path, so
//! host sorts go caller -> pinned (all cores) -> device and back the same way.
//!
//! One buffer per device, grown on demand up to `tuning::PINNED_STAGING_MAX_BYTES` and kept for
//! the next call: pinning memory costs about as much as copying it, so a buffer pinned per call
//! would give the gain back.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use cudarc::driver::{result, CudaContext};
use rayon::prelude::*;

use crate::{tuning, SortError};

struct Pinned {
    ptr: *mut u8,
    bytes: usize,
    ctx: Arc<CudaContext>,
}

// SAFETY: the buffer is plain host memory owned by this struct; access goes through the mutex.
unsafe impl Send for Pinned {}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `ptr` came from cuMemHostAlloc and no copy using it is in flight (every lease
        // synchronizes its stream before it ends).
        let _ = unsafe { result::free_host(self.ptr as _) };
    }
}

#[derive(Default)]
pub(crate) struct Staging {
    slot: Mutex<Option<Pinned>>,
}

/// Exclusive use of the staging buffer for one round trip.
pub(crate) struct Lease<'a> {
    guard: MutexGuard<'a, Option<Pinned>>,
}

impl Staging {
    /// The buffer, grown to at least `bytes`; `None` when the size is over the cap or another
    /// sort is using it (the caller then takes the pageable path instead of waiting).
    pub(crate) fn lease(&self, ctx: &Arc<CudaContext>, bytes: usize) -> Result<Option<Lease<'_>>, SortError> {
        if bytes > tuning::PINNED_STAGING_MAX_BYTES {
            return Ok(None);
        }
        let mut guard = match self.slot.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return Ok(None),
        };
        if guard.as_ref().is_none_or(|p| p.bytes < bytes) {
            *guard = None;
            let size = bytes.next_power_of_two().clamp(1 << 20, tuning::PINNED_STAGING_MAX_BYTES.max(bytes));
            ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))?;
            // SAFETY: plain page-locked allocation; freed in `Pinned::drop`.
            let ptr = unsafe { result::malloc_host(size, 0) }.map_err(SortError::driver("cuMemHostAlloc", size))?;
            // Zeroed once so that typed views never expose uninitialised memory.
            // SAFETY: `ptr` points to `size` writable bytes.
            unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, size) };
            *guard = Some(Pinned { ptr: ptr as *mut u8, bytes: size, ctx: ctx.clone() });
        }
        Ok(Some(Lease { guard }))
    }
}

/// Element types the staging buffer may be viewed as: every bit pattern is a valid value.
pub(crate) trait Plain: Copy + Send + Sync {}
impl Plain for u32 {}
impl Plain for crate::Kvp {}

impl Lease<'_> {
    /// The first `len` elements of the buffer as `T`.
    pub(crate) fn slice<T: Plain>(&mut self, len: usize) -> &mut [T] {
        let p = self.guard.as_mut().expect("a lease always holds a buffer");
        assert!(len * std::mem::size_of::<T>() <= p.bytes);
        // SAFETY: the buffer is page aligned (so aligned for T), initialised (zeroed at allocation,
        // then only ever holding T values), at least `len` elements long, and borrowed mutably
        // through the lease alone.
        unsafe { std::slice::from_raw_parts_mut(p.ptr as *mut T, len) }
    }
}

/// `dst.copy_from_slice(src)` on all cores: one thread copies far below the memory bandwidth.
pub(crate) fn par_copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    const CHUNK_BYTES: usize = 4 << 20;
    let chunk = (CHUNK_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    dst.par_chunks_mut(chunk).zip(src.par_chunks(chunk)).for_each(|(d, s)| d.copy_from_slice(s));
}
