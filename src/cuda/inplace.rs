//! Round trips of host data that already lies in page-locked memory: the copy engine reads each
//! chunk from the caller's memory and writes the sorted chunk straight back, with no host copy
//! either way (`docs/host-path.md`, "Page-locked caller memory").
//!
//! The caller's data still ends up untouched or sorted. Each chunk, once up, is copied back down
//! into the held buffer on a second stream, in the direction the upload leaves idle; the sort
//! waits for the last of these, and the downloads are queued only once that backup is whole. A
//! failure after some chunks have landed puts those back from it.

use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::{result, CudaEvent, CudaSlice, CudaStream, DevicePtr, DeviceRepr};

use super::device::Gpu;
use super::dispatch::{DeviceItem, DeviceStep};
use super::radix::RadixKey;
use super::transfer::{device_buffer, driver};
use crate::hooks::{self, Step};
use crate::hostcopy::par_copy;
use crate::{tuning, SortError};

/// Whether page-locked data of `bytes` in all goes in place: below `tuning::IN_PLACE_FROM_BYTES`
/// staging it is faster.
pub(crate) fn pays(bytes: usize) -> bool {
    bytes >= hooks::in_place_from().unwrap_or(tuning::IN_PLACE_FROM_BYTES)
}

/// Sorts `items` in place on the device, `backup` (the held buffer) receiving the input.
pub(crate) fn sort<T: DeviceItem, S: DeviceStep>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    items: &mut [T],
    backup: &mut [T],
    sort: &S,
    chunk: usize,
) -> Result<(), SortError> {
    hooks::in_place();
    let echo = gpu.streams.get(&gpu.ctx)?;
    let mut data = Array::new(stream, items, backup)?;
    let result = (|| {
        data.up(stream, &echo, chunk)?;
        let echoed = backed_up(stream, &echo)?;
        hooks::hit(Step::Sort)?;
        sort.run(stream, &mut data.dev)?;
        // Errors of the uploads and the backup surface here, before anything is written.
        echoed.synchronize().map_err(driver("copy to host (backup)", 0))?;
        data.down(stream, chunk)?;
        stream.synchronize().map_err(driver("cuStreamSynchronize", 0))
    })();
    settle(stream, &echo, &result);
    if result.is_err() {
        data.restore();
    }
    result
}

/// Split pairs sorted in place on the device as two arrays, the keys' and the values' backups in
/// the held buffer; `chunks` are the keys' and the values' chunk lengths.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sort_pairs<K: DeviceItem + RadixKey, S: DeviceStep>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &mut [K],
    values: &mut [u32],
    key_backup: &mut [K],
    value_backup: &mut [u32],
    sort: &S,
    chunks: (usize, usize),
) -> Result<(), SortError> {
    hooks::in_place();
    let echo = gpu.streams.get(&gpu.ctx)?;
    let mut k = Array::new(stream, keys, key_backup)?;
    let mut v = Array::new(stream, values, value_backup)?;
    let result = (|| {
        k.up(stream, &echo, chunks.0)?;
        v.up(stream, &echo, chunks.1)?;
        let echoed = backed_up(stream, &echo)?;
        hooks::hit(Step::Sort)?;
        sort.run_pairs(stream, &mut k.dev, &mut v.dev)?;
        echoed.synchronize().map_err(driver("copy to host (backup)", 0))?;
        k.down(stream, chunks.0)?;
        v.down(stream, chunks.1)?;
        stream.synchronize().map_err(driver("cuStreamSynchronize", 0))
    })();
    settle(stream, &echo, &result);
    if result.is_err() {
        k.restore();
        v.restore();
    }
    result
}

/// The event that says the backup is whole; the sort on `stream` waits for it.
fn backed_up(stream: &Arc<CudaStream>, echo: &Arc<CudaStream>) -> Result<CudaEvent, SortError> {
    let echoed = echo.record_event(None).map_err(driver("cuEventRecord", 0))?;
    stream.wait(&echoed).map_err(driver("cuStreamWaitEvent", 0))?;
    Ok(echoed)
}

/// Nothing reads or writes host memory after this: the backup may be read and the held buffer
/// handed back.
fn settle(stream: &Arc<CudaStream>, echo: &Arc<CudaStream>, result: &Result<(), SortError>) {
    let _ = echo.synchronize();
    if result.is_err() {
        let _ = stream.synchronize();
    }
}

/// One array of an in-place round trip: the caller's items, their backup, their device buffer,
/// and how many leading items have had their download queued.
struct Array<'a, T: DeviceRepr> {
    items: &'a mut [T],
    backup: &'a mut [T],
    dev: CudaSlice<T>,
    queued: usize,
}

impl<'a, T: DeviceRepr + Copy + Send + Sync> Array<'a, T> {
    fn new(stream: &Arc<CudaStream>, items: &'a mut [T], backup: &'a mut [T]) -> Result<Self, SortError> {
        debug_assert_eq!(items.len(), backup.len());
        Ok(Array { dev: device_buffer(stream, items.len())?, items, backup, queued: 0 })
    }

    /// Queues each chunk's upload on `stream` and its echo into the backup on `echo`.
    fn up(&mut self, stream: &Arc<CudaStream>, echo: &Arc<CudaStream>, chunk: usize) -> Result<(), SortError> {
        // The echo orders itself by an event per chunk; a read recorded on `dev` would make each
        // next upload wait for the echo before it, and the two directions would take turns.
        let (base, guard) = self.dev.device_ptr(stream);
        std::mem::forget(guard);
        for (a, b) in spans(self.items.len(), chunk) {
            let bytes = (b - a) * size_of::<T>();
            hooks::hit(Step::Upload)?;
            stream
                .memcpy_htod(&self.items[a..b], &mut self.dev.slice_mut(a..b))
                .map_err(driver("copy to device", bytes))?;
            let up = stream.record_event(None).map_err(driver("cuEventRecord", 0))?;
            echo.wait(&up).map_err(driver("cuStreamWaitEvent", 0))?;
            hooks::hit(Step::PinnedCopy)?;
            // SAFETY: `base + a` is item `a` of `dev`, which the event just waited for has
            // written; the backup outlives the copy (`settle` synchronises the echo on every path).
            unsafe {
                result::memcpy_dtoh_async(&mut self.backup[a..b], base + (a * size_of::<T>()) as u64, echo.cu_stream())
            }
            .map_err(driver("copy to host (backup)", bytes))?;
        }
        Ok(())
    }

    /// Queues each chunk's download into the caller's items.
    fn down(&mut self, stream: &Arc<CudaStream>, chunk: usize) -> Result<(), SortError> {
        download_direct(stream, &self.dev, self.items, chunk, &mut self.queued)
    }

    /// Puts back, from the backup, whatever a queued download may have written.
    fn restore(&mut self) {
        let q = self.queued;
        par_copy(&mut self.items[..q], &self.backup[..q]);
    }
}

/// `0..n` in spans of `chunk` items.
pub(crate) fn spans(n: usize, chunk: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).step_by(chunk.max(1)).map(move |a| (a, (a + chunk).min(n)))
}

/// Queues copies of `dev` into the page-locked `items` by the copy engine, `chunk` items each;
/// `queued` is how many leading items the copies queued so far may have written (on error too).
pub(crate) fn download_direct<T: DeviceRepr>(
    stream: &Arc<CudaStream>,
    dev: &CudaSlice<T>,
    items: &mut [T],
    chunk: usize,
    queued: &mut usize,
) -> Result<(), SortError> {
    for (a, b) in spans(items.len(), chunk) {
        hooks::hit(Step::Download)?;
        *queued = b;
        let bytes = (b - a) * size_of::<T>();
        stream.memcpy_dtoh(&dev.slice(a..b), &mut items[a..b]).map_err(driver("copy to host", bytes))?;
    }
    Ok(())
}
