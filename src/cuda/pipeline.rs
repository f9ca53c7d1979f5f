//! The host round trip, chunked so that copies overlap: the upload copies chunk i+1 into pinned
//! memory (all cores) while the copy engine moves chunk i to the device, and the download copies
//! chunk i out of pinned memory while chunk i+1 comes back. One stream keeps the order
//! upload -> sort -> download without host waits in between; events per chunk say when a pinned
//! slot may be refilled (upload ring) or read (download ring).
//!
//! The caller's slice ends up either untouched or completely sorted:
//! - nothing is written to it before the first downloaded chunk has arrived, which implies the
//!   upload and the sort finished without error;
//! - when the input fits in the pinned upload buffer (up to `PINNED_STAGING_MAX_BYTES`), that
//!   buffer still holds the input during the download, so chunks are copied into the caller's
//!   slice as they arrive, and if a later chunk fails the chunks already written are put back
//!   from it (an infallible host copy) before the error is returned;
//! - larger inputs pass the upload buffer as a ring and no copy of the input survives, so their
//!   download lands in a host scratch buffer first and is copied to the caller only once every
//!   chunk has arrived.

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::{result, CudaEvent, CudaSlice, CudaStream, DeviceRepr};

use super::staging::{self, par_copy, Plain, ZeroedBuf};
use super::Gpu;
use crate::hooks::{self, Step};
use crate::{tuning, SortError};

/// Chunk size for large inputs. 32 MB chunks filled by 16 threads moved 64M pairs in 13.8 ms up
/// and 14.9 ms down on the H200 machine, against 28.9 / 28.7 ms with 8 MB chunks and 8 threads
/// (shared/anchors/README.md).
pub(crate) const CHUNK_BYTES: usize = 32 << 20;
/// Smaller inputs are cut into at least this many chunks, so their copies overlap too ...
pub(crate) const MIN_CHUNKS: usize = 4;
/// ... but no chunk is smaller than this: each costs an event and a rayon hand-off (~10-20 us).
pub(crate) const MIN_CHUNK_BYTES: usize = 1 << 20;
/// Chunks of the download ring: while the host copies one out, the next ones are in flight.
pub(crate) const DOWN_SLOTS: usize = 4;

fn driver(op: &'static str, bytes: usize) -> impl FnOnce(cudarc::driver::DriverError) -> SortError {
    SortError::driver(op, bytes)
}

/// Sizes for `n` items: (chunk, upload region, download region), in items.
pub(super) fn layout<T>(n: usize) -> (usize, usize, usize) {
    let size = std::mem::size_of::<T>().max(1);
    let bytes = n.saturating_mul(size);
    let chunk_bytes = hooks::chunk_bytes().unwrap_or_else(|| (bytes / MIN_CHUNKS).clamp(MIN_CHUNK_BYTES, CHUNK_BYTES));
    let chunk = (chunk_bytes / size).max(1);
    let cap = pinned_cap() / size;
    let up = if n <= cap { n } else { (cap / chunk).max(1) * chunk };
    let chunks = n.div_ceil(chunk);
    let down = (chunks.min(DOWN_SLOTS) * chunk).min(n);
    (chunk, up, down)
}

/// Sorts `host` in place on the device: upload, `sort`, download (see the module docs for what
/// the caller's slice holds after a failure).
pub(crate) fn round_trip<T, S>(gpu: &Gpu, host: &mut [T], sort: S) -> Result<(), SortError>
where
    T: DeviceRepr + Plain,
    S: Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
{
    let n = host.len();
    let (chunk, up_len, down_len) = layout::<T>(n);
    let size = std::mem::size_of::<T>();
    let stream = begin(gpu)?;
    let Some(mut lease) = gpu.staging.lease(&gpu.ctx, up_len * size, down_len * size)? else {
        return pageable(&stream, host, None, &sort);
    };
    let (up, down) = lease.regions::<T>(up_len, down_len);
    let result = (|| {
        let dev = upload_sorted(&stream, host, up, chunk, &sort)?;
        if up_len == n {
            download(&stream, &dev, host, down, chunk).map_err(|(e, written)| {
                // The upload buffer still holds the input: put back what was overwritten.
                par_copy(&mut host[..written], &up[..written]);
                e
            })
        } else {
            let mut aux = ZeroedBuf::<T>::new(n)?;
            download(&stream, &dev, aux.as_mut_slice(), down, chunk).map_err(|(e, _)| e)?;
            par_copy(host, aux.as_slice());
            Ok(())
        }
    })();
    finish(&stream, result)
}

/// Whether `n` split pairs with keys of type `K` fit the pinned upload buffer together.
pub(crate) fn pairs_fit_staging<K>(n: usize) -> bool {
    let bytes = staging::split_offset::<K>(n).saturating_add(n.saturating_mul(4));
    bytes <= pinned_cap()
}

/// Split pairs (keys and their u32 values) sorted in place on the device, the way `round_trip`
/// sorts one array: both arrays go up through the pinned upload buffer (keys, then values), and
/// come back through the download ring, keys first. The upload buffer keeps both inputs until the
/// end, so a failed download puts back whatever it overwrote. `None` when the two arrays do not
/// fit the pinned cap together, or the staging is in use: the caller then takes another path.
pub(crate) fn round_trip_pairs<K, S>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [u32],
    sort: S,
) -> Option<Result<(), SortError>>
where
    K: DeviceRepr + Plain,
    S: Fn(&Arc<CudaStream>, &mut CudaSlice<K>, &mut CudaSlice<u32>) -> Result<(), SortError>,
{
    let n = keys.len();
    debug_assert_eq!(n, values.len());
    let (key_chunk, _, key_down) = layout::<K>(n);
    let (value_chunk, _, value_down) = layout::<u32>(n);
    if !pairs_fit_staging::<K>(n) {
        return None;
    }
    let up_bytes = staging::split_offset::<K>(n) + std::mem::size_of_val(values);
    let down_bytes = (key_down * std::mem::size_of::<K>()).max(std::mem::size_of_val(&values[..value_down]));
    let stream = match begin(gpu) {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    let mut lease = match gpu.staging.lease(&gpu.ctx, up_bytes, down_bytes) {
        Ok(Some(l)) => l,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    let (key_up, value_up, mut down) = lease.split_regions::<K, u32>(n, n);
    let result = (|| {
        let mut dk = device_buffer::<K>(&stream, n)?;
        let mut dv = device_buffer::<u32>(&stream, n)?;
        upload(&stream, keys, key_up, &mut dk, key_chunk)?;
        upload(&stream, values, value_up, &mut dv, value_chunk)?;
        hooks::hit(Step::Sort)?;
        sort(&stream, &mut dk, &mut dv)?;
        download(&stream, &dk, keys, down.view::<K>(key_down), key_chunk).map_err(|(e, written)| {
            par_copy(&mut keys[..written], &key_up[..written]);
            e
        })?;
        download(&stream, &dv, values, down.view::<u32>(value_down), value_chunk).map_err(|(e, written)| {
            // Every key was written already: put all of them back.
            par_copy(keys, key_up);
            par_copy(&mut values[..written], &value_up[..written]);
            e
        })
    })();
    Some(finish(&stream, result))
}

/// Sorts `src` on the device into `dst` (same length, scratch owned by the caller: written in
/// any state on failure). The out-of-core sort's runs go this way.
pub(crate) fn sort_into<T, S>(gpu: &Gpu, src: &[T], dst: &mut [T], sort: &S) -> Result<(), SortError>
where
    T: DeviceRepr + Plain,
    S: Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
{
    debug_assert_eq!(src.len(), dst.len());
    let n = src.len();
    let (chunk, up_len, down_len) = layout::<T>(n);
    let size = std::mem::size_of::<T>();
    let stream = begin(gpu)?;
    let Some(mut lease) = gpu.staging.lease(&gpu.ctx, up_len * size, down_len * size)? else {
        return pageable(&stream, dst, Some(src), sort);
    };
    let (up, down) = lease.regions::<T>(up_len, down_len);
    let result = (|| {
        let dev = upload_sorted(&stream, src, up, chunk, sort)?;
        download(&stream, &dev, dst, down, chunk).map_err(|(e, _)| e)
    })();
    finish(&stream, result)
}

/// The pinned upload buffer's cap in bytes (the test hooks may lower it).
fn pinned_cap() -> usize {
    hooks::pinned_cap().unwrap_or(tuning::PINNED_STAGING_MAX_BYTES)
}

/// A device buffer holding `src`, uploaded through `up`, then sorted on `stream`.
fn upload_sorted<T, S>(
    stream: &Arc<CudaStream>,
    src: &[T],
    up: &mut [T],
    chunk: usize,
    sort: &S,
) -> Result<CudaSlice<T>, SortError>
where
    T: DeviceRepr + Plain,
    S: Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
{
    let mut dev = device_buffer(stream, src.len())?;
    upload(stream, src, up, &mut dev, chunk)?;
    hooks::hit(Step::Sort)?;
    sort(stream, &mut dev)?;
    Ok(dev)
}

pub(super) fn begin(gpu: &Gpu) -> Result<Arc<CudaStream>, SortError> {
    gpu.ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent", 0))?;
    gpu.ctx.new_stream().map_err(driver("cuStreamCreate", 0))
}

/// Every copy that reads or writes pinned memory must be over before the lease ends, also when a
/// step failed.
pub(super) fn finish(stream: &Arc<CudaStream>, result: Result<(), SortError>) -> Result<(), SortError> {
    let synced = stream.synchronize().map_err(driver("cuStreamSynchronize", 0));
    result.and(synced)
}

pub(super) fn device_buffer<T: DeviceRepr>(stream: &Arc<CudaStream>, n: usize) -> Result<CudaSlice<T>, SortError> {
    let bytes = n * std::mem::size_of::<T>();
    // SAFETY: the upload writes every element before the sort reads any.
    unsafe { stream.alloc::<T>(n) }.map_err(driver("device buffer", bytes))
}

/// Copies `src` to `dev` through `up`. When `up` holds all of `src` every chunk has its own room;
/// otherwise `up` is a ring and a slot is refilled only after the copy that read it finished.
pub(super) fn upload<T: DeviceRepr + Plain>(
    stream: &Arc<CudaStream>,
    src: &[T],
    up: &mut [T],
    dev: &mut CudaSlice<T>,
    chunk: usize,
) -> Result<(), SortError> {
    let n = src.len();
    let ring = up.len() < n;
    let slots = if ring { up.len() / chunk } else { usize::MAX };
    let mut pending: VecDeque<CudaEvent> = VecDeque::new();
    for (i, start) in (0..n).step_by(chunk).enumerate() {
        let end = (start + chunk).min(n);
        let room = if ring { (i % slots) * chunk..(i % slots) * chunk + (end - start) } else { start..end };
        if ring && i >= slots {
            let e = pending.pop_front().expect("one event per chunk in flight");
            e.synchronize().map_err(driver("cuEventSynchronize", 0))?;
        }
        hooks::hit(Step::PinnedCopy)?;
        par_copy(&mut up[room.clone()], &src[start..end]);
        hooks::hit(Step::Upload)?;
        let bytes = (end - start) * std::mem::size_of::<T>();
        stream.memcpy_htod(&up[room], &mut dev.slice_mut(start..end)).map_err(driver("copy to device", bytes))?;
        if ring {
            pending.push_back(stream.record_event(None).map_err(driver("cuEventRecord", 0))?);
        }
    }
    Ok(())
}

/// Copies `dev` into `dst` through the ring `down`: all slots are queued at once, each refilled
/// as soon as the host has copied it out. On error, also returns how many leading items of `dst`
/// were written.
pub(super) fn download<T: DeviceRepr + Plain>(
    stream: &Arc<CudaStream>,
    dev: &CudaSlice<T>,
    dst: &mut [T],
    down: &mut [T],
    chunk: usize,
) -> Result<(), (SortError, usize)> {
    let n = dst.len();
    let chunks = n.div_ceil(chunk);
    let slots = down.len().div_ceil(chunk).max(1);
    let span = |i: usize| (i * chunk, ((i + 1) * chunk).min(n));
    let room = |i: usize| {
        let (a, b) = span(i);
        (i % slots) * chunk..(i % slots) * chunk + (b - a)
    };
    let mut pending: VecDeque<CudaEvent> = VecDeque::new();
    let queue = |i: usize, down: &mut [T], pending: &mut VecDeque<CudaEvent>| -> Result<(), SortError> {
        let (a, b) = span(i);
        hooks::hit(Step::Download)?;
        let bytes = (b - a) * std::mem::size_of::<T>();
        stream.memcpy_dtoh(&dev.slice(a..b), &mut down[room(i)]).map_err(driver("copy to host", bytes))?;
        pending.push_back(stream.record_event(None).map_err(driver("cuEventRecord", 0))?);
        Ok(())
    };
    for i in 0..chunks.min(slots) {
        queue(i, down, &mut pending).map_err(|e| (e, 0))?;
    }
    for i in 0..chunks {
        let (a, b) = span(i);
        let e = pending.pop_front().expect("one event per chunk in flight");
        // Errors of the upload and the sort surface here too, before anything is written.
        e.synchronize().map_err(|e| (SortError::driver("copy to host", 0)(e), a))?;
        par_copy(&mut dst[a..b], &down[room(i)]);
        if i + slots < chunks {
            queue(i + slots, down, &mut pending).map_err(|e| (e, b))?;
        }
    }
    Ok(())
}

/// The path without pinned staging (another sort holds it): the driver's pageable copies. `host`
/// is written only after everything succeeded; with `src`, the data comes from there instead.
fn pageable<T, S>(stream: &Arc<CudaStream>, host: &mut [T], src: Option<&[T]>, sort: &S) -> Result<(), SortError>
where
    T: DeviceRepr + Plain,
    S: Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
{
    let bytes = std::mem::size_of_val(host);
    let n = host.len();
    let result = (|| {
        hooks::hit(Step::Upload)?;
        let mut dev = stream.clone_htod(src.unwrap_or(&*host)).map_err(driver("copy to device", bytes))?;
        hooks::hit(Step::Sort)?;
        sort(stream, &mut dev)?;
        hooks::hit(Step::Download)?;
        let mut out = ZeroedBuf::<T>::new(n)?;
        stream.memcpy_dtoh(&dev, out.as_mut_slice()).map_err(driver("copy to host", bytes))?;
        stream.synchronize().map_err(driver("cuStreamSynchronize", 0))?;
        Ok(out)
    })();
    let synced = stream.synchronize().map_err(driver("cuStreamSynchronize", 0));
    let out = result?;
    synced?;
    par_copy(host, out.as_slice());
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
    fn layout_cuts_small_and_large_inputs() {
        // 1M pairs: four 2 MB chunks, everything staged.
        assert_eq!(layout::<crate::Kvp>(1 << 20), (1 << 18, 1 << 20, 1 << 20));
        // 64M pairs: 32 MB chunks, the whole input staged, a 4-chunk download ring.
        assert_eq!(layout::<crate::Kvp>(64 << 20), (4 << 20, 64 << 20, 16 << 20));
        // Beyond the cap the upload buffer is a ring of whole chunks.
        let (chunk, up, down) = layout::<crate::Kvp>(256 << 20);
        assert_eq!((chunk, up, down), (4 << 20, tuning::PINNED_STAGING_MAX_BYTES / 8, 16 << 20));
        // Tiny inputs: one chunk of the minimum size covers them.
        assert_eq!(layout::<u32>(5), (MIN_CHUNK_BYTES / 4, 5, 5));
        assert_eq!(layout::<u32>(0).1, 0);
    }

    #[test]
    fn hooks_shrink_chunks_and_the_pinned_cap() {
        hooks::set_chunk_bytes(800);
        hooks::set_pinned_cap(2000);
        assert_eq!(layout::<crate::Kvp>(1000), (100, 200, 400));
        assert_eq!(layout::<crate::Kvp>(150), (100, 150, 150));
        hooks::set_chunk_bytes(0);
        hooks::set_pinned_cap(0);
    }
}
