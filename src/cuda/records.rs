//! Host records put in the order of host positions on the device: the second half of
//! `Sorter::sort_by_key` (the first is the keys' stable argsort). On the CPU that permutation is a
//! random gather over host memory, bound by its latency (2 GiB of 32-byte records: about 200 ms
//! on the 16-core GPU host); here the records cross the bus twice at its rate and the gather runs
//! in device memory (`kernels-cuda/cuda/records.cu`).
//!
//! The positions and the records go up through the held pinned buffer, which keeps them until the
//! download is over: a download that fails after writing some records puts those back from it, so
//! the caller's records end untouched or in the new order. Device memory: the records twice and a
//! `u32` per record.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};

use super::device::Gpu;
use super::hostdata::{Direct, ReadOnly};
use super::staging::{split_offset, Plain};
use super::transfer::{begin, chunks, device_buffer, download, finish, held_fits, upload};
use super::CudaBackend;
use crate::backend::RecordWord;
use crate::hooks::{self, Step};
use crate::hostcopy::par_copy;
use crate::SortError;

impl Plain for RecordWord {}
// SAFETY: four plain bytes, no pointers; the kernels only copy them.
unsafe impl cudarc::driver::DeviceRepr for RecordWord {}

impl CudaBackend {
    /// Whether `bytes` of records are worth putting in order here rather than on the host
    /// (`tuning::RECORDS_ON_DEVICE_FROM_BYTES`, which the test hooks may lower).
    pub(crate) fn records_on_device(&self, bytes: usize) -> bool {
        bytes >= hooks::records_on_device_from().unwrap_or(crate::tuning::RECORDS_ON_DEVICE_FROM_BYTES)
    }

    /// `records` (one record per position, each `records.len() / positions.len()` words) put in
    /// the order `positions` gives: record `i` becomes the one that stood at `positions[i]`. The
    /// positions are a permutation of `0..positions.len()` (an argsort's). `OutOfMemory` when the
    /// records do not fit the device budget or the held pinned buffer (the caller then gathers on
    /// the CPU); on any failure the records hold their original contents.
    pub(crate) fn permute_host(&self, positions: &[u32], records: &mut [RecordWord]) -> Result<(), SortError> {
        let n = positions.len();
        if n < 2 {
            return Ok(());
        }
        debug_assert!(records.len().is_multiple_of(n));
        let width = records.len() / n;
        self.bind()?;
        let record_bytes = std::mem::size_of_val(records);
        let need = record_bytes.saturating_mul(2).saturating_add(n * 4).saturating_add(1 << 20);
        if self.budget(need)?.is_some_and(|limit| need > limit) {
            return Err(SortError::OutOfMemory { op: "records on the device (device memory)", bytes: need });
        }
        let held_bytes = split_offset::<u32>(n) + record_bytes;
        if !held_fits(held_bytes) {
            return Err(SortError::OutOfMemory { op: "records past the pinned staging cap", bytes: held_bytes });
        }
        let (cp, cr) = (chunks::<u32>(n), chunks::<RecordWord>(records.len()));
        let ring_bytes = cr.ring * 4;
        let gpu = &self.gpu;
        let stream = begin(gpu)?;
        let mut lease = gpu.staging.lease(&gpu.ctx, held_bytes, ring_bytes, true)?;
        let (positions_up, records_up, ring) = lease.split_held::<u32, RecordWord>(n, records.len());
        let result = (|| {
            let mut at = device_buffer::<u32>(&stream, n)?;
            let mut from = device_buffer::<RecordWord>(&stream, records.len())?;
            let mut to = device_buffer::<RecordWord>(&stream, records.len())?;
            upload(&stream, &ReadOnly(positions), 0, positions_up, &mut at, cp.chunk)?;
            upload(&stream, &ReadOnly(&*records), 0, records_up, &mut from, cr.chunk)?;
            hooks::hit(Step::Sort)?;
            launch::gather(gpu, &stream, &from, &at, &mut to, width)?;
            let ring = ring.view::<RecordWord>(0, cr.ring);
            download(&stream, &to.as_view(), &mut Direct(&mut *records), 0, ring, cr.chunk).map_err(|(e, written)| {
                // The held buffer still holds the records as they were: put back what was overwritten.
                par_copy(&mut records[..written], &records_up[..written]);
                e
            })
        })();
        finish(&stream, result)
    }
}

/// The typed wrapper of `records_gather_<unit>`.
mod launch {
    use super::*;

    const THREADS: u32 = 256;

    /// `to[i] = from[at[i]]` for records of `width` words, as the widest unit (16, 8 or 4 bytes)
    /// that divides a record.
    pub(super) fn gather(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        from: &CudaSlice<RecordWord>,
        at: &CudaSlice<u32>,
        to: &mut CudaSlice<RecordWord>,
        width: usize,
    ) -> Result<(), SortError> {
        let n = at.len();
        assert!(width > 0 && from.len() == n * width && to.len() == n * width);
        let (kernel, unit_words) = match width {
            w if w.is_multiple_of(4) => ("records_gather_16", 4),
            w if w.is_multiple_of(2) => ("records_gather_8", 2),
            _ => ("records_gather_4", 1),
        };
        let units = (width / unit_words) as u32;
        let f = gpu.function(&gpusort_kernels::RECORDS, kernel)?;
        let count = n as u64;
        let (fp, _gf) = from.device_ptr(stream);
        let (ap, _ga) = at.device_ptr(stream);
        let (tp, _gt) = to.device_ptr_mut(stream);
        let total = n * units as usize;
        let blocks = total.div_ceil(THREADS as usize).clamp(1, gpu.multiprocessors as usize * 32) as u32;
        let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let mut b = stream.launch_builder(&f);
        b.arg(&fp).arg(&ap).arg(&tp).arg(&count).arg(&units);
        // SAFETY: matches records_gather_<unit>(const U* in, const unsigned* positions, U* out,
        // u64 n, unsigned units): the buffers, borrowed until the launch is queued on their
        // stream, hold n records of `units` units (device buffers are 256-byte aligned, a record
        // a whole number of units), and every position is below n.
        unsafe { b.launch(config) }.map(drop).map_err(SortError::driver("records_gather", 0))
    }
}
