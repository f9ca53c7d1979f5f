//! Where a device-resident call takes its scratch memory: the stream-ordered pool (allocated and
//! freed on the caller's stream), or one buffer the caller lent for the call (`Arena`), carved
//! front to back so that the call allocates nothing and can be captured in a CUDA graph without
//! memory nodes.
//!
//! A call that takes an arena checks up front that it holds the call's `need` (the same sums of
//! `Scratch::bytes` its steps carve), so a carve never comes up short once work is queued.

use std::mem::{size_of, ManuallyDrop};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::transfer::device_buffer;
use crate::SortError;

/// Every carve starts on this boundary (the kernels' widest loads, and the pool's own alignment).
pub(crate) const ALIGN: usize = 256;

/// A caller's device buffer lent to one call, carved by its steps in order.
#[derive(Debug)]
pub(crate) struct Arena {
    base: CUdeviceptr,
    len: usize,
    used: AtomicUsize,
}

impl Arena {
    /// `len` bytes at `base`, which the caller keeps allocated and unused elsewhere until the
    /// work queued with them has finished. `base` is `ALIGN`ed by the caller's allocator or is
    /// rounded up here (the bytes before the boundary are not used).
    pub(crate) fn new(base: CUdeviceptr, len: usize) -> Arena {
        match (base as usize).checked_next_multiple_of(ALIGN) {
            Some(aligned) => {
                let skip = aligned - base as usize;
                Arena { base: aligned as u64, len: len.saturating_sub(skip), used: AtomicUsize::new(0) }
            }
            // No boundary left in the address space: nothing to carve.
            None => Arena { base, len: 0, used: AtomicUsize::new(0) },
        }
    }

    /// The bytes it can carve, from the first aligned address.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bytes carved so far.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    fn carve(&self, bytes: usize) -> Option<CUdeviceptr> {
        let step = bytes.checked_next_multiple_of(ALIGN)?;
        let at = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |at| {
                at.checked_add(step).filter(|&end| end <= self.len)
            })
            .ok()?;
        Some(self.base + at as u64)
    }
}

/// The scratch source of one call: the pool (`Scratch::POOL`) or a caller's arena.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scratch<'a>(Option<&'a Arena>);

impl<'a> Scratch<'a> {
    /// Allocated from the stream-ordered pool, as every call without caller scratch.
    pub(crate) const POOL: Scratch<'static> = Scratch(None);

    /// From `arena` where there is one, else the pool.
    pub(crate) fn of(arena: Option<&'a Arena>) -> Scratch<'a> {
        Scratch(arena)
    }

    /// What `take::<T>(n)` carves from an arena: the sums of these are a call's `need`.
    pub(crate) fn bytes<T>(n: usize) -> usize {
        n.saturating_mul(size_of::<T>()).next_multiple_of(ALIGN)
    }

    /// `n` items of `T`, uninitialised, for `what` (named in a driver error): from the pool on
    /// `stream`, or the next bytes of the arena (`InvalidArgument` when it is short, which the
    /// call's up-front check rules out).
    pub(crate) fn take<T: DeviceRepr>(
        self,
        stream: &Arc<CudaStream>,
        n: usize,
        what: &'static str,
    ) -> Result<Buf<T>, SortError> {
        match self.0 {
            // SAFETY: uninitialised memory, as the arena's; every caller writes before it reads.
            None => unsafe { stream.alloc::<T>(n.max(1)) }
                .map(Buf::Owned)
                .map_err(SortError::driver(what, n.saturating_mul(size_of::<T>()))),
            Some(arena) => {
                let bytes = n.saturating_mul(size_of::<T>());
                let at = arena.carve(bytes).ok_or_else(|| {
                    SortError::InvalidArgument(format!(
                        "the caller's scratch holds {} bytes; {what} needs {bytes} more past {}",
                        arena.len,
                        arena.used.load(Ordering::Relaxed)
                    ))
                })?;
                // SAFETY: `bytes` of the arena, carved once, live and unshared for the call
                // (`Arena::new`'s contract).
                Ok(Buf::Lent(unsafe { Borrowed::new(stream, at, n) }))
            }
        }
    }
}

impl Scratch<'_> {
    /// `take` for the buffers a pipeline step allocates as any device buffer (`device_buffer`:
    /// the `DeviceAlloc` failure step applies to them from the pool).
    pub(crate) fn buffer<T: DeviceRepr>(self, stream: &Arc<CudaStream>, n: usize) -> Result<Buf<T>, SortError> {
        match self.0 {
            None => device_buffer::<T>(stream, n).map(Buf::Owned),
            Some(_) => self.take(stream, n, "device buffer"),
        }
    }
}

/// A scratch buffer of one call: owned (freed on the stream when dropped) or carved from an arena.
pub(crate) enum Buf<T> {
    Owned(CudaSlice<T>),
    Lent(Borrowed<T>),
}

impl<T> Deref for Buf<T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        match self {
            Buf::Owned(s) => s,
            Buf::Lent(b) => b,
        }
    }
}

impl<T> DerefMut for Buf<T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        match self {
            Buf::Owned(s) => s,
            Buf::Lent(b) => b,
        }
    }
}

/// Memory gpusort does not own seen as a `CudaSlice` for one call: leaked on drop (even when
/// unwinding), never freed, as its owner frees it.
pub(crate) struct Borrowed<T>(ManuallyDrop<CudaSlice<T>>);

impl<T> Borrowed<T> {
    /// # Safety
    /// `len` items of `T` at `ptr` in `stream`'s context, live and unshared while this exists.
    pub(crate) unsafe fn new(stream: &Arc<CudaStream>, ptr: CUdeviceptr, len: usize) -> Borrowed<T> {
        Borrowed(ManuallyDrop::new(unsafe { stream.upgrade_device_ptr(ptr, len) }))
    }
}

impl<T> Drop for Borrowed<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; `leak` drops the wrapper's events and stream handle only.
        let _ = unsafe { ManuallyDrop::take(&mut self.0) }.leak();
    }
}

impl<T> Deref for Borrowed<T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        &self.0
    }
}

impl<T> DerefMut for Borrowed<T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carves_aligned_and_refuses_past_the_end() {
        // 253 bytes go to the alignment; 3 * ALIGN remain.
        let a = Arena::new(0x1000 + 3, 253 + 3 * ALIGN);
        assert_eq!(a.base, 0x1100);
        assert_eq!(a.carve(1), Some(0x1100));
        assert_eq!(a.carve(ALIGN + 1), Some(0x1200));
        assert_eq!(a.used(), 3 * ALIGN);
        assert_eq!(a.carve(0), Some(0x1400));
        assert_eq!(a.carve(1), None);
        assert_eq!(Scratch::bytes::<u64>(33), 512);
        assert_eq!(Scratch::bytes::<u8>(0), 0);
    }
}
