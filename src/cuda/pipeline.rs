//! The host pipeline of an in-core sort, and the transfer steps the out-of-core sort shares.
//!
//! Upload: chunk i+1 is gathered from the caller into pinned memory on all cores while the copy
//! engine moves chunk i to the device. Download: the copy engine fills the ring's slots, and each
//! slot is scattered into the caller's data as soon as it has arrived, then refilled. One stream
//! keeps the order upload -> sort -> download without host waits in between; an event per chunk
//! says when a pinned slot may be refilled or read.
//!
//! The caller's data ends up either untouched or completely sorted:
//! - nothing is written to it before the first downloaded chunk has arrived, which implies that
//!   the upload and the sort finished without error;
//! - when the input fits in the held buffer (`staging::held_cap`), that buffer still holds the
//!   staged input during the download, so if a chunk fails after others were written, they are
//!   put back from it (an infallible host copy) before the error is returned;
//! - larger inputs pass through the ring both ways and no copy of the input survives, so their
//!   download lands in a host scratch buffer first and reaches the caller only once every chunk
//!   has arrived.

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::{result, CudaEvent, CudaSlice, CudaStream, CudaView, DeviceRepr};

use super::dispatch::DeviceSort;
use super::hostdata::{par_copy, Direct, HostData, ZeroedBuf};
use super::staging::{held_cap, Lease};
use super::Gpu;
use crate::hooks::{self, Step};
use crate::{tuning, SortError};

fn driver(op: &'static str, bytes: usize) -> impl FnOnce(cudarc::driver::DriverError) -> SortError {
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
    let ring = c.ring * size;
    if held_fits(n * size) {
        match gpu.staging.lease(&gpu.ctx, n * size, ring, false) {
            Ok(mut lease) => {
                let held = if lease.held_bytes() >= n * size { n } else { 0 };
                return Ok((lease, held));
            }
            // Too much to pin now: the ring alone needs little.
            Err(SortError::OutOfMemory { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok((gpu.staging.lease(&gpu.ctx, 0, ring, false)?, 0))
}

/// Sorts `data` in place on the device: upload, sort, download (see the module docs for what the
/// caller's data holds after a failure).
pub(crate) fn round_trip<H: HostData>(gpu: &Gpu, data: &mut H, sort: &DeviceSort) -> Result<(), SortError> {
    let n = data.len();
    let c = chunks::<H::Item>(n);
    let stream = begin(gpu)?;
    let (mut lease, held_len) = lease::<H::Item>(gpu, n, c)?;
    let (held_items, ring) = lease.held_and_ring::<H::Item>(held_len, c.ring);
    let result = (|| {
        let held = held_len == n;
        // Past the held cap the download lands in host scratch first: had before any GPU work.
        let mut aux = if held { None } else { Some(ZeroedBuf::<H::Item>::new(n)?) };
        let mut dev = device_buffer(&stream, n)?;
        upload(&stream, &*data, 0, if held { &mut *held_items } else { &mut *ring }, &mut dev, c.chunk)?;
        hooks::hit(Step::Sort)?;
        sort.run(&stream, &mut dev)?;
        match aux.as_mut() {
            None => download(&stream, &dev.as_view(), data, 0, ring, c.chunk).map_err(|(e, written)| {
                // The held buffer still holds the input: put back what was overwritten.
                data.scatter(0, &held_items[..written]);
                e
            }),
            Some(aux) => {
                download(&stream, &dev.as_view(), &mut Direct(aux.as_mut_slice()), 0, ring, c.chunk)
                    .map_err(|(e, _)| e)?;
                data.scatter(0, aux.as_slice());
                Ok(())
            }
        }
    })();
    finish(&stream, result)
}

/// Split pairs with keys the `Kvp` layout cannot carry (u64) sorted in place on the device, the
/// way `round_trip` sorts one array: both arrays go up through the held buffer (keys, then
/// values) and come back through the ring, keys first. The held buffer keeps both inputs until
/// the end, so a failed download puts back whatever it overwrote. `OutOfMemory` when the two
/// arrays do not fit the held buffer together.
pub(crate) fn round_trip_pairs(
    gpu: &Gpu,
    keys: &mut [u64],
    values: &mut [u32],
    sort: &DeviceSort,
) -> Result<(), SortError> {
    let n = keys.len();
    debug_assert_eq!(n, values.len());
    type K = u64;
    let (ck, cv) = (chunks::<K>(n), chunks::<u32>(n));
    let held_bytes = super::staging::split_offset::<K>(n) + std::mem::size_of_val(values);
    if !held_fits(held_bytes) {
        return Err(SortError::OutOfMemory { op: "split u64 pairs past the pinned staging cap", bytes: held_bytes });
    }
    let ring_bytes = (ck.ring * std::mem::size_of::<K>()).max(cv.ring * 4);
    let stream = begin(gpu)?;
    let mut lease = gpu.staging.lease(&gpu.ctx, held_bytes, ring_bytes, true)?;
    let (key_up, value_up, ring) = lease.split_held::<K, u32>(n, n);
    let result =
        (|| {
            let mut dk = device_buffer::<K>(&stream, n)?;
            let mut dv = device_buffer::<u32>(&stream, n)?;
            upload(&stream, &Direct(&mut *keys), 0, key_up, &mut dk, ck.chunk)?;
            upload(&stream, &Direct(&mut *values), 0, value_up, &mut dv, cv.chunk)?;
            hooks::hit(Step::Sort)?;
            sort.run_pairs(&stream, &mut dk, &mut dv)?;
            download(&stream, &dk.as_view(), &mut Direct(&mut *keys), 0, ring.view::<K>(0, ck.ring), ck.chunk)
                .map_err(|(e, written)| {
                    par_copy(&mut keys[..written], &key_up[..written]);
                    e
                })?;
            download(&stream, &dv.as_view(), &mut Direct(&mut *values), 0, ring.view::<u32>(0, cv.ring), cv.chunk)
                .map_err(|(e, written)| {
                    // Every key was written already: put all of them back.
                    par_copy(keys, key_up);
                    par_copy(&mut values[..written], &value_up[..written]);
                    e
                })
        })();
    finish(&stream, result)
}

/// A stream for one host sort, on the device's context.
pub(crate) fn begin(gpu: &Gpu) -> Result<Arc<CudaStream>, SortError> {
    gpu.ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent", 0))?;
    gpu.ctx.new_stream().map_err(driver("cuStreamCreate", 0))
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
/// after the copy that read it finished.
pub(crate) fn upload<H: HostData>(
    stream: &Arc<CudaStream>,
    src: &H,
    start: usize,
    room: &mut [H::Item],
    dev: &mut CudaSlice<H::Item>,
    chunk: usize,
) -> Result<(), SortError> {
    let n = dev.len().min(src.len() - start);
    let ring = room.len() < n;
    let slots = if ring { (room.len() / chunk).max(1) } else { usize::MAX };
    let mut pending: VecDeque<CudaEvent> = VecDeque::new();
    for (i, a) in (0..n).step_by(chunk).enumerate() {
        let b = (a + chunk).min(n);
        let place = if ring { (i % slots) * chunk..(i % slots) * chunk + (b - a) } else { a..b };
        if ring && i >= slots {
            let e = pending.pop_front().expect("one event per chunk in flight");
            e.synchronize().map_err(driver("cuEventSynchronize", 0))?;
        }
        hooks::hit(Step::PinnedCopy)?;
        src.gather(start + a, &mut room[place.clone()]);
        hooks::hit(Step::Upload)?;
        let bytes = (b - a) * std::mem::size_of::<H::Item>();
        stream.memcpy_htod(&room[place], &mut dev.slice_mut(a..b)).map_err(driver("copy to device", bytes))?;
        if ring {
            pending.push_back(stream.record_event(None).map_err(driver("cuEventRecord", 0))?);
        }
    }
    Ok(())
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
    let n = dev.len();
    let chunks = n.div_ceil(chunk);
    let slots = (ring.len() / chunk).max(1);
    let span = |i: usize| (i * chunk, ((i + 1) * chunk).min(n));
    let place = |i: usize| {
        let (a, b) = span(i);
        (i % slots) * chunk..(i % slots) * chunk + (b - a)
    };
    let mut pending: VecDeque<CudaEvent> = VecDeque::new();
    let queue = |i: usize, ring: &mut [H::Item], pending: &mut VecDeque<CudaEvent>| -> Result<(), SortError> {
        let (a, b) = span(i);
        hooks::hit(Step::Download)?;
        let bytes = (b - a) * std::mem::size_of::<H::Item>();
        stream.memcpy_dtoh(&dev.slice(a..b), &mut ring[place(i)]).map_err(driver("copy to host", bytes))?;
        pending.push_back(stream.record_event(None).map_err(driver("cuEventRecord", 0))?);
        Ok(())
    };
    for i in 0..chunks.min(slots) {
        queue(i, ring, &mut pending).map_err(|e| (e, 0))?;
    }
    for i in 0..chunks {
        let (a, b) = span(i);
        let e = pending.pop_front().expect("one event per chunk in flight");
        // Errors of the upload and the sort surface here too, before anything is written.
        e.synchronize().map_err(|e| (SortError::driver("copy to host", 0)(e), a))?;
        dst.scatter(start + a, &ring[place(i)]);
        if i + slots < chunks {
            queue(i + slots, ring, &mut pending).map_err(|e| (e, b))?;
        }
    }
    Ok(())
}

/// Returns the device memory the pool keeps and unpins the staging buffers.
pub(crate) fn release_memory(gpu: &Gpu) {
    gpu.staging.release();
    trim_pool(gpu);
}

/// Returns the device memory the default pool keeps but does not use to the driver, so that the
/// free memory the driver reports counts it.
pub(crate) fn trim_pool(gpu: &Gpu) {
    if gpu.ctx.bind_to_thread().is_ok() {
        // Memory still in use (a sort on another thread) stays; the pool frees it when done.
        // SAFETY: the device comes from its live context.
        let _ = unsafe {
            result::device::get_default_mem_pool(gpu.ctx.cu_device())
                .and_then(|pool| result::mem_pool::trim_to(pool, 0))
        };
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
