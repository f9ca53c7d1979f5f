//! Page-locked staging for host-memory sorts. Copies from pageable memory run at 8.7 GB/s up and
//! 15.4 GB/s down on the H200 machine, from pinned memory at 55 GB/s (shared/anchors/README.md);
//! a parallel host memcpy into a pinned buffer is faster than the driver's own pageable path, so
//! host sorts go caller -> pinned (all cores) -> device and back the same way, in chunks that
//! overlap (see `pipeline.rs`).
//!
//! Two buffers per device, grown on demand and kept for the next call (pinning memory costs about
//! as much as copying it, so a buffer pinned per call would give the gain back):
//! - the upload buffer, up to `PINNED_STAGING_MAX_BYTES`: it holds the whole input when it fits,
//!   which is also what lets a failed download put the caller's data back; larger inputs use it
//!   as a ring;
//! - the download ring, a few chunks.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use cudarc::driver::{result, CudaContext};
use gpusort_cpu::SortKey;
use rayon::prelude::*;

use crate::{tuning, Kvp, SortError};

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

impl Pinned {
    /// `slot` grown to at least `bytes` (powers of two from 1 MiB, so sizes that vary a little
    /// between calls do not re-pin).
    fn grow(slot: &mut Option<Pinned>, ctx: &Arc<CudaContext>, bytes: usize) -> Result<(), SortError> {
        if slot.as_ref().is_some_and(|p| p.bytes >= bytes) {
            return Ok(());
        }
        *slot = None;
        let size = bytes.next_power_of_two().max(1 << 20);
        ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))?;
        // SAFETY: plain page-locked allocation; freed in `Pinned::drop`.
        let ptr = unsafe { result::malloc_host(size, 0) }.map_err(SortError::driver("cuMemHostAlloc", size))?;
        // Zeroed once so that typed views never expose uninitialised memory.
        // SAFETY: `ptr` points to `size` writable bytes.
        unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, size) };
        *slot = Some(Pinned { ptr: ptr as *mut u8, bytes: size, ctx: ctx.clone() });
        Ok(())
    }

    fn view<T: Plain>(&mut self, len: usize) -> &mut [T] {
        assert!(len * std::mem::size_of::<T>() <= self.bytes);
        // SAFETY: the buffer is page aligned (so aligned for T), initialised (zeroed at
        // allocation, then only ever holding Plain values), at least `len` elements long, and
        // borrowed mutably through the lease alone.
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut T, len) }
    }
}

#[derive(Default)]
struct Buffers {
    up: Option<Pinned>,
    down: Option<Pinned>,
}

#[derive(Default)]
pub(crate) struct Staging {
    slot: Mutex<Buffers>,
}

/// Exclusive use of the staging buffers for one round trip.
pub(crate) struct Lease<'a> {
    guard: MutexGuard<'a, Buffers>,
}

impl Staging {
    /// The buffers, grown to at least `up` and `down` bytes; `None` when the upload size is over
    /// the cap or another sort is using them (the caller then takes the pageable path instead of
    /// waiting).
    pub(crate) fn lease(&self, ctx: &Arc<CudaContext>, up: usize, down: usize) -> Result<Option<Lease<'_>>, SortError> {
        if up > tuning::PINNED_STAGING_MAX_BYTES {
            return Ok(None);
        }
        let mut guard = match self.slot.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return Ok(None),
        };
        Pinned::grow(&mut guard.up, ctx, up)?;
        Pinned::grow(&mut guard.down, ctx, down)?;
        Ok(Some(Lease { guard }))
    }

    /// Unpins both buffers (waits for a sort using them to finish).
    pub(crate) fn release(&self) {
        let mut guard = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        *guard = Buffers::default();
    }
}

/// Element types the staging buffers may be viewed as: every bit pattern is a valid value.
pub(crate) trait Plain: Copy + Send + Sync + 'static {}
impl Plain for u32 {}
impl Plain for i32 {}
impl Plain for f32 {}
impl Plain for u64 {}
impl Plain for Kvp {}

/// Items the out-of-core merge can order: a 32-bit key whose ascending order is the sort's.
pub(crate) trait MergeKey: Plain {
    fn merge_key(&self) -> u32;
}
impl MergeKey for u32 {
    fn merge_key(&self) -> u32 {
        *self
    }
}
impl MergeKey for i32 {
    fn merge_key(&self) -> u32 {
        self.to_ordered_bits()
    }
}
impl MergeKey for f32 {
    fn merge_key(&self) -> u32 {
        self.to_ordered_bits()
    }
}
impl MergeKey for Kvp {
    fn merge_key(&self) -> u32 {
        self.key
    }
}

/// The download ring of a lease, viewed as one item type at a time.
pub(crate) struct DownRing<'a>(&'a mut Pinned);

impl DownRing<'_> {
    pub(crate) fn view<T: Plain>(&mut self, len: usize) -> &mut [T] {
        self.0.view(len)
    }
}

/// Where the second array starts when the upload buffer holds `a` items of `A` and then another
/// array: the next 64-byte boundary, which aligns every item type.
pub(crate) fn split_offset<A>(a: usize) -> usize {
    (a * std::mem::size_of::<A>()).next_multiple_of(64)
}

impl Lease<'_> {
    /// The upload buffer as `a` items of `A` followed, from `split_offset::<A>(a)`, by `b` items
    /// of `B` (split pairs: keys, then values); and the download ring.
    pub(crate) fn split_regions<A: Plain, B: Plain>(
        &mut self,
        a: usize,
        b: usize,
    ) -> (&mut [A], &mut [B], DownRing<'_>) {
        let buf = &mut *self.guard;
        let (u, d) = (buf.up.as_mut().expect("leased"), buf.down.as_mut().expect("leased"));
        let off = split_offset::<A>(a);
        assert!(off + b * std::mem::size_of::<B>() <= u.bytes, "split regions exceed the lease");
        // SAFETY: two disjoint ranges of the page-aligned buffer (the second starts on a 64-byte
        // boundary, so both are aligned), initialised and holding Plain values only, borrowed
        // mutably through the lease alone.
        let (pa, pb) = unsafe {
            (
                std::slice::from_raw_parts_mut(u.ptr as *mut A, a),
                std::slice::from_raw_parts_mut(u.ptr.add(off) as *mut B, b),
            )
        };
        (pa, pb, DownRing(d))
    }

    /// The first `up` elements of the upload buffer and the first `down` of the download ring.
    pub(crate) fn regions<T: Plain>(&mut self, up: usize, down: usize) -> (&mut [T], &mut [T]) {
        let b = &mut *self.guard;
        let (u, d) = (b.up.as_mut().expect("leased"), b.down.as_mut().expect("leased"));
        (u.view(up), d.view(down))
    }
}

/// A zero-filled host buffer of `Plain` items from the allocator's zeroed pages: no pass over
/// memory to initialise it, and the pages fault in on first write, in parallel, where the data
/// lands.
pub(crate) struct ZeroedBuf<T: Plain> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
}

// SAFETY: owns its memory like a Vec<T>.
unsafe impl<T: Plain> Send for ZeroedBuf<T> {}
// SAFETY: as above; shared access is read-only.
unsafe impl<T: Plain> Sync for ZeroedBuf<T> {}

impl<T: Plain> ZeroedBuf<T> {
    pub(crate) fn new(len: usize) -> Result<Self, SortError> {
        let layout = std::alloc::Layout::array::<T>(len.max(1))
            .map_err(|_| SortError::InvalidArgument(format!("{len} items do not fit in memory")))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
        // Reported as memory exhaustion, so that `auto()` may still try the CPU.
        let ptr = std::ptr::NonNull::new(ptr).ok_or(SortError::OutOfMemory {
            op: "host scratch buffer (host memory, not device)",
            bytes: layout.size(),
        })?;
        Ok(ZeroedBuf { ptr, len })
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: `len` zero-initialised items (zero bits are valid for Plain types), owned.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Plain> Drop for ZeroedBuf<T> {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::array::<T>(self.len.max(1)).expect("checked in new");
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) };
    }
}

/// `dst.copy_from_slice(src)` on all cores: one thread copies far below the memory bandwidth
/// (1 thread 52 ms, 16 threads 14 ms for 512 MB on the H200 machine). Copies up to 1 MiB stay on
/// the calling thread: waking the pool cost more than it saved (H200 machine, host to host, 64K
/// pairs: 0.285 ms with two 256 KiB pieces per copy, against 0.134 ms for 32K copied on one
/// thread). Pieces are at most 4 MiB. Copies of 16 MiB and more store with non-temporal writes
/// (`gpusort_cpu::copy_streaming`), which skip reading each destination line first: 64M pairs host
/// to host 30.4 ms against 41.4 before; smaller copies, whose destination may still be in cache,
/// keep ordinary stores (1M pairs took 1.51 ms streamed, against 1.25 ms).
pub(crate) fn par_copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    const SEQ_MAX: usize = 1 << 20;
    const MAX_PIECE: usize = 4 << 20;
    const STREAM_MIN: usize = 16 << 20;
    assert_eq!(dst.len(), src.len(), "par_copy lengths");
    let size = std::mem::size_of::<T>().max(1);
    let bytes = std::mem::size_of_val(src);
    if bytes <= SEQ_MAX {
        dst.copy_from_slice(src);
        return;
    }
    let piece = (bytes / rayon::current_num_threads().max(1)).clamp(SEQ_MAX / 4, MAX_PIECE);
    let chunk = (piece / size).max(1);
    let pieces = dst.par_chunks_mut(chunk).zip(src.par_chunks(chunk));
    if bytes >= STREAM_MIN {
        pieces.for_each(|(d, s)| gpusort_cpu::copy_streaming(d, s));
    } else {
        pieces.for_each(|(d, s)| d.copy_from_slice(s));
    }
}
