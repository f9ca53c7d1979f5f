//! Host records put in order by their keys on the device: `Sorter::sort_by_key` for large inputs.
//! On the CPU the permutation is a random gather over host memory, bound by its latency (2 GiB
//! of 32-byte records: about 200 ms on the 16-core GPU host); here the records cross the bus
//! twice at its rate and the gather runs in device memory (`kernels-cuda/cuda/records.cu`).
//!
//! One pipeline: the keys go up (through the held pinned buffer), their positions are made on the
//! device and sorted with them (a stable radix sort of split pairs), the records go up behind
//! them, are gathered by the sorted positions and come back. The positions never visit the host.
//! The held buffer keeps the keys and the records until the download is over: a download that
//! fails after writing some records puts those back from it, so the caller's records end
//! untouched or in the new order. Device memory at its peak: the larger of the sort (keys and
//! positions twice) and the gather (the records twice and the positions).

use super::scratch::Scratch;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig};

use super::device::Gpu;
use super::host_keys::Bits32;
use super::hostdata::{narrow, widen, Direct, ReadOnly};
use super::key_class::CudaKey;
use super::radix::{self, RadixKey};
use super::staging::{split_offset, Plain};
use super::transfer::{begin, chunks, device_buffer, download, finish, held_fits, upload};
use super::{split_need, CudaBackend};
use crate::backend::{with_keys, with_view, KeySlice, KeyView, RecordWord};
use crate::hooks::{self, Step};
use crate::hostcopy::par_copy;
use crate::{Order, SortError};

impl Plain for RecordWord {}
// SAFETY: four plain bytes, no pointers; the kernels only copy them.
unsafe impl cudarc::driver::DeviceRepr for RecordWord {}

impl CudaBackend {
    /// Whether `bytes` of records are worth putting in order here rather than on the host
    /// (`tuning::RECORDS_ON_DEVICE_FROM_BYTES`, which the test hooks may lower).
    pub(crate) fn records_on_device(&self, bytes: usize) -> bool {
        bytes >= hooks::records_on_device_from().unwrap_or(crate::tuning::RECORDS_ON_DEVICE_FROM_BYTES)
    }

    /// `records` (one record per key, each `records.len() / keys.len()` words) put in the order of
    /// `keys` (record `i`'s key is `keys[i]`), stably, in `order`; the keys are only read. Keys
    /// narrower than 32 bits sort as their 32-bit ordered bits. `OutOfMemory` when the sort does
    /// not fit the device budget or the held pinned buffer (the caller then sorts on the host); on
    /// any failure the records hold their original contents.
    pub(crate) fn sort_records(
        &self,
        keys: KeyView<'_>,
        records: &mut [RecordWord],
        order: Order,
    ) -> Result<(), SortError> {
        with_view!(keys, k => CudaKey::records(self, k, records, order))
    }

    /// Split pairs whose values are records of whole words (8-byte values: two words each), keys
    /// and values both put in order, as `sort_records` does; on any failure both hold their
    /// original contents.
    pub(crate) fn sort_pairs_by_records(
        &self,
        keys: KeySlice<'_>,
        values: &mut [RecordWord],
        order: Order,
    ) -> Result<(), SortError> {
        with_keys!(keys, k => CudaKey::pairs_by_records(self, k, values, order))
    }

    /// Small keys travel as their ordered bits and are written back once the sort has succeeded.
    pub(super) fn narrow_pairs_by_records<K: Bits32>(
        &self,
        keys: &mut [K],
        values: &mut [RecordWord],
        order: Order,
    ) -> Result<(), SortError> {
        let mut bits = widen(keys)?;
        self.records_round_trip(Keys::Sorted(bits.as_mut_slice()), values, order)?;
        narrow(keys, bits.as_slice());
        Ok(())
    }

    /// The pipeline of the module docs; the sorted keys come back too when they are `Sorted`.
    pub(super) fn records_round_trip<K: RadixKey + Plain>(
        &self,
        mut keys: Keys<'_, K>,
        records: &mut [RecordWord],
        order: Order,
    ) -> Result<(), SortError> {
        let n = keys.read().len();
        if n < 2 {
            return Ok(());
        }
        debug_assert!(records.len().is_multiple_of(n));
        let width = records.len() / n;
        self.bind()?;
        let record_bytes = std::mem::size_of_val(records);
        let key_bytes = if matches!(keys, Keys::Sorted(_)) { std::mem::size_of_val(keys.read()) } else { 0 };
        let (_, sort_need) = split_need::<K>(n);
        let need =
            sort_need.max(record_bytes.saturating_mul(2).saturating_add(n * 4 + key_bytes).saturating_add(1 << 20));
        if self.budget(need)?.is_some_and(|limit| need > limit) {
            return Err(SortError::OutOfMemory { op: "records on the device (device memory)", bytes: need });
        }
        let held_bytes = split_offset::<K>(n) + record_bytes;
        if !held_fits(held_bytes) {
            return Err(SortError::OutOfMemory { op: "records past the pinned staging cap", bytes: held_bytes });
        }
        let (ck, cr) = (chunks::<K>(n), chunks::<RecordWord>(records.len()));
        let gpu = &self.gpu;
        let stream = begin(gpu)?;
        let ring_bytes = (cr.ring * 4).max(ck.ring * size_of::<K>());
        let mut lease = gpu.staging.lease(&gpu.ctx, held_bytes, ring_bytes, true)?;
        let (keys_up, records_up, ring) = lease.split_held::<K, RecordWord>(n, records.len());
        let result = (|| {
            let mut at = device_buffer::<u32>(&stream, n)?;
            let mut dk = device_buffer::<K>(&stream, n)?;
            upload(&stream, &ReadOnly(keys.read()), 0, keys_up, &mut dk, ck.chunk)?;
            super::positions::iota(gpu, &stream, &mut at)?;
            hooks::hit(Step::Sort)?;
            radix::sort_pairs(gpu, &stream, &mut dk, &mut at, order, Scratch::POOL)?;
            // Keys that are only read are spent: their memory goes back to the stream's pool for
            // the records.
            let sorted = matches!(keys, Keys::Sorted(_)).then_some(dk);
            let mut from = device_buffer::<RecordWord>(&stream, records.len())?;
            upload(&stream, &ReadOnly(&*records), 0, records_up, &mut from, cr.chunk)?;
            let mut to = device_buffer::<RecordWord>(&stream, records.len())?;
            launch::gather(gpu, &stream, &from, &at, &mut to, width)?;
            drop(from);
            if let (Keys::Sorted(k), Some(dk)) = (&mut keys, &sorted) {
                let ring = ring.view::<K>(0, ck.ring);
                download(&stream, &dk.as_view(), &mut Direct(k), 0, ring, ck.chunk).map_err(|(e, written)| {
                    par_copy(&mut k[..written], &keys_up[..written]);
                    e
                })?;
            }
            let ring = ring.view::<RecordWord>(0, cr.ring);
            download(&stream, &to.as_view(), &mut Direct(&mut *records), 0, ring, cr.chunk).map_err(|(e, written)| {
                // The held buffer still holds the input as it was: put back what was overwritten.
                if let Keys::Sorted(k) = &mut keys {
                    par_copy(k, keys_up);
                }
                par_copy(&mut records[..written], &records_up[..written]);
                e
            })
        })();
        finish(&stream, result)
    }
}

/// The keys of a records sort: only read (`sort_by_key`), or put in order too (pairs).
pub(super) enum Keys<'a, K> {
    Read(&'a [K]),
    Sorted(&'a mut [K]),
}

impl<K> Keys<'_, K> {
    fn read(&self) -> &[K] {
        match self {
            Keys::Read(k) => k,
            Keys::Sorted(k) => k,
        }
    }
}

/// The typed wrapper of `records_gather_<unit>`, launched as `Launch::Plain` (records.cu's kernels
/// do not wait for the previous grid).
mod launch {
    use super::*;
    use crate::cuda::overlap::{self, Args, Launch};

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
        let mut a = Args::new();
        a.arg(fp).arg(ap).arg(tp).arg(count).arg(units);
        // SAFETY: matches records_gather_<unit>(const U* in, const unsigned* positions, U* out,
        // u64 n, unsigned units): the buffers, borrowed until the launch is queued on their
        // stream, hold n records of `units` units (device buffers are 256-byte aligned, a record
        // a whole number of units), and every position is below n.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config, &mut a) }
            .map_err(SortError::driver("records_gather", 0))
    }
}
