//! Page-locked host memory, and how much of it the host path may keep.
//!
//! The driver's own allocator (`cuMemHostAlloc`) took 306 ms for 512 MiB and 1376 ms for 2 GiB
//! on the H200 machine (2026-11-25, `benches/probe/host_bw.cu`), as long as the copies it serves. Plain
//! anonymous memory, advised to transparent huge pages, touched on all cores and then registered
//! with the driver is pinned far faster: first touch 45 GB/s and registration 13 ms per 512 MiB
//! with huge pages (26 ms with 4 KiB pages), so about 50 ms per GiB. Where registration is refused
//! (no huge pages, another OS) the driver's allocator is the fallback.

use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{result, sys, CudaContext};

use crate::SortError;

/// Page-locked host memory owned by the backend, zero-filled when made.
pub(crate) struct Pinned {
    ptr: NonNull<u8>,
    bytes: usize,
    /// The huge-page mapping registered with the driver, or `None` for the driver's allocation.
    mapping: Option<gpusort_cpu::HugePages>,
    ctx: Arc<CudaContext>,
}

// SAFETY: plain host memory owned by this struct; every access goes through `&mut self` or a
// lease that holds the staging mutex.
unsafe impl Send for Pinned {}

impl Pinned {
    /// At least `bytes` of page-locked memory.
    pub(crate) fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Pinned, SortError> {
        let bytes = bytes.max(1);
        ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))?;
        if let Some((ptr, mapping)) = registered(bytes) {
            return Ok(Pinned { ptr, bytes: mapping.bytes(), mapping: Some(mapping), ctx: ctx.clone() });
        }
        // SAFETY: a plain page-locked allocation, freed in `drop`.
        let ptr = unsafe { result::malloc_host(bytes, 0) }
            .map_err(SortError::driver("cuMemHostAlloc (pinned staging, host memory)", bytes))?;
        let ptr = NonNull::new(ptr as *mut u8)
            .ok_or(SortError::OutOfMemory { op: "cuMemHostAlloc (pinned staging, host memory)", bytes })?;
        // Zeroed so that typed views never expose uninitialised memory (mapped memory is already).
        // SAFETY: `bytes` writable bytes at `ptr`.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, bytes) };
        Ok(Pinned { ptr, bytes, mapping: None, ctx: ctx.clone() })
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// `len` items of `T` from byte `offset` on.
    ///
    /// # Panics
    /// When the range is not inside the buffer or not aligned for `T` (internal errors).
    pub(crate) fn view<T: super::staging::Plain>(&mut self, offset: usize, len: usize) -> &mut [T] {
        let end = len.checked_mul(std::mem::size_of::<T>()).and_then(|b| b.checked_add(offset));
        assert!(end.is_some_and(|e| e <= self.bytes), "pinned view past the buffer");
        assert_eq!(offset % std::mem::align_of::<T>(), 0, "pinned view misaligned");
        // SAFETY: in bounds and aligned (checked above; the buffer is page aligned), initialised
        // (zeroed when made, then only ever holding Plain values), borrowed mutably through
        // `&mut self` alone.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(offset) as *mut T, len) }
    }

    /// Two disjoint views: `a` items of `A` from the start and `b` items of `B` from `offset`.
    pub(crate) fn two_views<A: super::staging::Plain, B: super::staging::Plain>(
        &mut self,
        a: usize,
        offset: usize,
        b: usize,
    ) -> (&mut [A], &mut [B]) {
        assert!(a * std::mem::size_of::<A>() <= offset, "pinned views overlap");
        let second = self.view::<B>(offset, b) as *mut [B];
        let first = self.view::<A>(0, a);
        // SAFETY: the two ranges are disjoint (checked above), both borrowed from `&mut self`.
        (first, unsafe { &mut *second })
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `ptr` was registered or allocated by the driver in `new`, and no copy using it
        // is in flight (every lease synchronises its streams before it ends). A mapping is
        // unregistered here and unmapped after, when `self.mapping` drops.
        unsafe {
            if self.mapping.is_some() {
                let _ = sys::cuMemHostUnregister(self.ptr.as_ptr() as _);
            } else {
                let _ = result::free_host(self.ptr.as_ptr() as _);
            }
        }
    }
}

/// Whether the driver knows all of `items` as page-locked host memory (the caller's own: from
/// `cuMemHostAlloc`, a registration, torch's `pin_memory()`, `cupyx.empty_pinned`), which the
/// copy engine reads and writes in place. The first and the last byte are asked (a page-locked
/// range is one allocation or registration); a wrong answer costs speed only, since the driver's
/// copies take any host memory. The caller has bound the device's context.
pub(crate) fn page_locked<T>(items: &[T]) -> bool {
    let bytes = std::mem::size_of_val(items);
    if bytes == 0 {
        return false;
    }
    let host = |at: *const u8| {
        let mut kind = 0u32;
        // SAFETY: the driver writes one unsigned int for this attribute; an address it does not
        // know is an error code, not a fault.
        let r = unsafe {
            sys::cuPointerGetAttribute(
                (&mut kind as *mut u32).cast(),
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                at as sys::CUdeviceptr,
            )
        };
        r == sys::CUresult::CUDA_SUCCESS && kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32
    };
    let first = items.as_ptr().cast::<u8>();
    // SAFETY: `bytes - 1` is inside the slice.
    host(first) && host(unsafe { first.add(bytes - 1) })
}

/// Anonymous memory in huge pages where the kernel gives them, faulted in on all cores (the driver
/// would fault it in on one thread, five times slower), then registered with the driver; `None`
/// where any step is refused.
fn registered(bytes: usize) -> Option<(NonNull<u8>, gpusort_cpu::HugePages)> {
    let mut mapping = gpusort_cpu::HugePages::new(bytes).ok()?;
    let ptr = NonNull::new(mapping.as_ptr())?;
    mapping.fault_in();
    const CU_MEMHOSTREGISTER_PORTABLE: u32 = 1;
    // SAFETY: the range is our mapping, registered once and unregistered before it is unmapped
    // (`Pinned::drop`); on failure it was never registered and is unmapped as it drops.
    let r = unsafe { sys::cuMemHostRegister_v2(mapping.as_ptr() as _, mapping.bytes(), CU_MEMHOSTREGISTER_PORTABLE) };
    (r == sys::CUresult::CUDA_SUCCESS).then_some((ptr, mapping))
}

/// Host memory of this machine, or of this process's memory cgroup when that is smaller; `None`
/// where it cannot be read.
pub(crate) fn host_memory() -> Option<usize> {
    static MEMORY: OnceLock<Option<usize>> = OnceLock::new();
    *MEMORY.get_or_init(|| {
        #[cfg(unix)]
        {
            // SAFETY: sysconf only reads system constants.
            let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
            let physical = (pages > 0 && page > 0).then(|| (pages as usize).saturating_mul(page as usize));
            let cgroup = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
                .iter()
                .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse::<usize>().ok());
            match (physical, cgroup) {
                (Some(p), Some(c)) => Some(p.min(c)),
                (p, c) => p.or(c),
            }
        }
        #[cfg(not(unix))]
        None
    })
}
