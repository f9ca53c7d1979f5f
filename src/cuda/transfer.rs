//! The transfer steps every host sort is made of: chunk sizes, the staging lease, the stream of
//! one sort, device buffers, and the chunked upload and download through pinned memory.
//!
//! Upload: chunk i+1 is gathered from the caller into pinned memory on all cores while the copy
//! engine moves chunk i to the device. Download: the copy engine fills the ring's slots, and each
//! slot is scattered into the caller's data as soon as it has arrived, then refilled. One stream
//! keeps the order upload -> sort -> download without host waits in between; an event per chunk
//! says when a pinned slot may be refilled or read.

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, CudaView, DeviceRepr};

use super::device::Gpu;
use super::hostdata::{HostData, HostSource};
use super::staging::{held_cap, Lease};
use crate::crew;
use crate::hooks::{self, Step};
use crate::hostcopy::Staging;
use crate::{tuning, SortError};

pub(crate) fn driver(op: &'static str, bytes: usize) -> impl FnOnce(cudarc::driver::DriverError) -> SortError {
    SortError::driver(op, bytes)
}

/// Chunk and ring sizes of a sort of `n` items, in items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunks {
    pub(crate) chunk: usize,
    pub(crate) ring: usize,
}

pub(crate) fn chunks<T>(n: usize) -> Chunks {
    let size = std::mem::size_of::<T>().max(1);
    let bytes = n.saturating_mul(size);
    let chunk_bytes = hooks::chunk_bytes()
        .unwrap_or_else(|| (bytes / tuning::MIN_CHUNKS).clamp(tuning::MIN_CHUNK_BYTES, tuning::CHUNK_BYTES));
    let chunk = (chunk_bytes / size).max(1);
    Chunks { chunk, ring: (chunk * tuning::RING_SLOTS).min(n.max(1)) }
}

/// Whether `bytes` of staged input fit the held buffer.
pub(crate) fn held_fits(bytes: usize) -> bool {
    bytes <= held_cap()
}

/// The staging for a sort of `n` items of `T`, and how many items its held buffer takes: `n`
/// when the input fits the held cap and the held buffer can be had, else 0 (the ring alone).
pub(crate) fn lease<T>(gpu: &Gpu, n: usize, c: Chunks) -> Result<(Lease<'_>, usize), SortError> {
    let size = std::mem::size_of::<T>();
    let (lease, held) = lease_bytes(gpu, n * size, c.ring * size)?;
    Ok((lease, if held { n } else { 0 }))
}

/// A held buffer of `held` bytes where it fits the held cap and can be had (`true`), and a ring
/// of `ring` bytes either way.
pub(crate) fn lease_bytes(gpu: &Gpu, held: usize, ring: usize) -> Result<(Lease<'_>, bool), SortError> {
    if held_fits(held) {
        match gpu.staging.lease(&gpu.ctx, held, ring, false) {
            Ok(mut lease) => {
                let got = lease.held_bytes() >= held;
                return Ok((lease, got));
            }
            // Too much to pin now: the ring alone needs little.
            Err(SortError::OutOfMemory { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok((gpu.staging.lease(&gpu.ctx, 0, ring, false)?, false))
}

/// What one host sort holds from its start to its end: a stream on the device's context (bound
/// to this thread), and the copy crew kept awake between the sort's copies (`crate::crew`).
pub(crate) struct Begun {
    stream: Arc<CudaStream>,
    _awake: crew::Awake,
}

impl std::ops::Deref for Begun {
    type Target = Arc<CudaStream>;
    fn deref(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

/// Starts a host sort on `gpu` (see `Begun`).
pub(crate) fn begin(gpu: &Gpu) -> Result<Begun, SortError> {
    gpu.ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent", 0))?;
    Ok(Begun { stream: gpu.streams.get(&gpu.ctx)?, _awake: crew::awake() })
}

/// Every copy that reads or writes pinned memory must be over before the lease ends, also when a
/// step failed.
pub(crate) fn finish(stream: &Arc<CudaStream>, result: Result<(), SortError>) -> Result<(), SortError> {
    let synced = stream.synchronize().map_err(driver("cuStreamSynchronize", 0));
    result.and(synced)
}

pub(crate) fn device_buffer<T: DeviceRepr>(stream: &Arc<CudaStream>, n: usize) -> Result<CudaSlice<T>, SortError> {
    let bytes = n * std::mem::size_of::<T>();
    hooks::hit(Step::DeviceAlloc)?;
    // SAFETY: the upload writes every element before the sort reads any.
    unsafe { stream.alloc::<T>(n.max(1)) }.map_err(driver("device buffer", bytes))
}

/// Copies `src` items `start..start + dev.len()` to `dev` through `room`. When `room` holds all of
/// them every chunk has its own place; otherwise `room` is a ring and a slot is refilled only
/// after the copy that read it finished. Either way the last copies may still be reading `room`
/// when this returns: the stream says when they are over.
pub(crate) fn upload<H: HostSource>(
    stream: &Arc<CudaStream>,
    src: &H,
    start: usize,
    room: &mut [H::Item],
    dev: &mut CudaSlice<H::Item>,
    chunk: usize,
) -> Result<(), SortError> {
    let mut up = Upload::new(stream, src, start, room, dev, chunk);
    while up.step()? {}
    Ok(())
}

/// An upload in progress (see `upload`), one chunk per `step`, so that one thread can keep the
/// uploads to several devices going at once (`multi`).
pub(crate) struct Upload<'a, H: HostSource> {
    stream: &'a Arc<CudaStream>,
    src: &'a H,
    start: usize,
    room: &'a mut [H::Item],
    dev: &'a mut CudaSlice<H::Item>,
    chunk: usize,
    n: usize,
    /// Ring slots; `usize::MAX` when `room` holds the whole input.
    slots: usize,
    next: usize,
    pending: VecDeque<CudaEvent>,
}

impl<'a, H: HostSource> Upload<'a, H> {
    pub(crate) fn new(
        stream: &'a Arc<CudaStream>,
        src: &'a H,
        start: usize,
        room: &'a mut [H::Item],
        dev: &'a mut CudaSlice<H::Item>,
        chunk: usize,
    ) -> Self {
        let n = dev.len().min(src.len() - start);
        let slots = if room.len() < n { (room.len() / chunk).max(1) } else { usize::MAX };
        Upload { stream, src, start, room, dev, chunk, n, slots, next: 0, pending: VecDeque::new() }
    }

    /// Gathers and queues the next chunk; `false` once every chunk is queued.
    pub(crate) fn step(&mut self) -> Result<bool, SortError> {
        let (i, chunk) = (self.next, self.chunk);
        let a = i * chunk;
        if a >= self.n {
            return Ok(false);
        }
        let b = (a + chunk).min(self.n);
        let ring = self.slots != usize::MAX;
        let place = if ring { (i % self.slots) * chunk..(i % self.slots) * chunk + (b - a) } else { a..b };
        if ring && i >= self.slots {
            let e = self.pending.pop_front().expect("one event per chunk in flight");
            e.synchronize().map_err(driver("cuEventSynchronize", 0))?;
        }
        hooks::hit(Step::PinnedCopy)?;
        let to = if ring { Staging::Ring } else { Staging::Held };
        self.src.gather(self.start + a, &mut self.room[place.clone()], to);
        hooks::hit(Step::Upload)?;
        let bytes = (b - a) * std::mem::size_of::<H::Item>();
        self.stream
            .memcpy_htod(&self.room[place], &mut self.dev.slice_mut(a..b))
            .map_err(driver("copy to device", bytes))?;
        if ring {
            self.pending.push_back(self.stream.record_event(None).map_err(driver("cuEventRecord", 0))?);
        }
        self.next += 1;
        Ok(true)
    }
}

/// Copies `dev` into `dst` items `start..start + dev.len()` through the ring `ring`: all slots
/// are queued at once, each refilled as soon as the host has scattered it. On error, also returns
/// how many leading items (from `start`) were written.
pub(crate) fn download<H: HostData>(
    stream: &Arc<CudaStream>,
    dev: &CudaView<H::Item>,
    dst: &mut H,
    start: usize,
    ring: &mut [H::Item],
    chunk: usize,
) -> Result<(), (SortError, usize)> {
    let mut down = Download::new(stream, dev, start, ring, chunk)?;
    while down.step(dst)? {}
    Ok(())
}

/// A download in progress (see `download`): `new` queues the first slots, each `step` scatters
/// one chunk into the caller's data and queues the next, so that one thread can keep the
/// downloads from several devices going at once (`multi`).
pub(crate) struct Download<'a, 'v, T: DeviceRepr> {
    stream: &'a Arc<CudaStream>,
    dev: &'a CudaView<'v, T>,
    start: usize,
    ring: &'a mut [T],
    chunk: usize,
    chunks: usize,
    slots: usize,
    next: usize,
    pending: VecDeque<CudaEvent>,
}

impl<'a, 'v, T: DeviceRepr> Download<'a, 'v, T> {
    pub(crate) fn new(
        stream: &'a Arc<CudaStream>,
        dev: &'a CudaView<'v, T>,
        start: usize,
        ring: &'a mut [T],
        chunk: usize,
    ) -> Result<Self, (SortError, usize)> {
        let chunks = dev.len().div_ceil(chunk);
        let slots = (ring.len() / chunk).max(1);
        let mut down = Download { stream, dev, start, ring, chunk, chunks, slots, next: 0, pending: VecDeque::new() };
        for i in 0..chunks.min(slots) {
            down.queue(i).map_err(|e| (e, 0))?;
        }
        Ok(down)
    }

    fn span(&self, i: usize) -> (usize, usize) {
        (i * self.chunk, ((i + 1) * self.chunk).min(self.dev.len()))
    }

    fn place(&self, i: usize) -> std::ops::Range<usize> {
        let (a, b) = self.span(i);
        (i % self.slots) * self.chunk..(i % self.slots) * self.chunk + (b - a)
    }

    fn queue(&mut self, i: usize) -> Result<(), SortError> {
        let (a, b) = self.span(i);
        hooks::hit(Step::Download)?;
        let bytes = (b - a) * std::mem::size_of::<T>();
        let place = self.place(i);
        self.stream.memcpy_dtoh(&self.dev.slice(a..b), &mut self.ring[place]).map_err(driver("copy to host", bytes))?;
        self.pending.push_back(self.stream.record_event(None).map_err(driver("cuEventRecord", 0))?);
        Ok(())
    }

    /// Waits for the next chunk, scatters it into `dst` and queues the chunk that takes its slot;
    /// `false` once every chunk has been scattered.
    pub(crate) fn step<H: HostData<Item = T>>(&mut self, dst: &mut H) -> Result<bool, (SortError, usize)> {
        let i = self.next;
        if i >= self.chunks {
            return Ok(false);
        }
        let (a, b) = self.span(i);
        let e = self.pending.pop_front().expect("one event per chunk in flight");
        // Errors of the upload and the sort surface here too, before anything is written.
        e.synchronize().map_err(|e| (SortError::driver("copy to host", 0)(e), a))?;
        dst.scatter(self.start + a, &self.ring[self.place(i)]);
        self.next += 1;
        if i + self.slots < self.chunks {
            self.queue(i + self.slots).map_err(|e| (e, b))?;
        }
        Ok(true)
    }

    /// Leading items (from `start`) scattered so far.
    pub(crate) fn written(&self) -> usize {
        (self.next * self.chunk).min(self.dev.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cut_small_and_large_inputs() {
        // 1M pairs: two chunks of the minimum size, a ring of both.
        assert_eq!(chunks::<crate::Kvp>(1 << 20), Chunks { chunk: tuning::MIN_CHUNK_BYTES / 8, ring: 1 << 20 });
        // 64M pairs: the tuned chunk, a ring of RING_SLOTS of them.
        let chunk = tuning::CHUNK_BYTES / 8;
        assert_eq!(chunks::<crate::Kvp>(64 << 20), Chunks { chunk, ring: chunk * tuning::RING_SLOTS });
        // Tiny inputs: one chunk of the minimum size covers them.
        assert_eq!(chunks::<u32>(5), Chunks { chunk: tuning::MIN_CHUNK_BYTES / 4, ring: 5 });
        assert_eq!(chunks::<u32>(0).ring, 1);
    }

    #[test]
    fn hooks_shrink_chunks() {
        hooks::set_chunk_bytes(800);
        assert_eq!(chunks::<crate::Kvp>(1000), Chunks { chunk: 100, ring: 100 * tuning::RING_SLOTS });
        hooks::set_chunk_bytes(0);
    }
}
