//! The CUDA backend: host-memory sorts (copy up, sort on the device, copy back) and the
//! device-resident entry points the host path and GPU pipelines share.

mod device;
mod host_keys;
mod modules;
pub(crate) mod network;
mod outofcore;
mod overlap;
mod pipeline;
pub(crate) mod radix;
#[cfg(test)]
mod smoke;
mod staging;

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

pub(crate) use device::{gpu, Gpu};
pub(crate) use staging::par_copy;

use crate::backend::{BackendKind, KeySlice, SortBackend, SortJob};
use crate::{Algorithm, Kvp, Order, SortError};
use host_keys::Bits32;
use radix::RadixKey;
use staging::{MergeKey, Plain};

#[derive(Debug, Clone)]
pub(crate) struct CudaBackend {
    pub(crate) gpu: Arc<Gpu>,
    /// Device bytes a host sort may use; larger sorts run out of core (see `host_sort`).
    pub(crate) device_limit: Option<usize>,
}

/// Without a set limit, a sort that needs more than this share of the device's total memory
/// first checks the free memory, and runs out of core within `AUTO_LIMIT_SHARE` of it when it
/// would not fit (other users and fragmentation take the rest).
const CHECK_FREE_ABOVE_SHARE: usize = 2;
const AUTO_LIMIT_SHARE: (usize, usize) = (8, 10);

impl CudaBackend {
    pub(crate) fn open(ordinal: usize) -> Result<Self, SortError> {
        Ok(CudaBackend { gpu: gpu(ordinal)?, device_limit: None })
    }

    /// Frees what the backend keeps between calls: the pinned staging and the device memory the
    /// stream-ordered pool holds.
    pub(crate) fn release_memory(&self) {
        pipeline::release_memory(&self.gpu);
    }

    /// The device budget for a host sort needing `need` bytes: the set limit, else 80% of the
    /// free memory when the sort would not fit in it, else none.
    fn budget(&self, need: usize) -> Result<Option<usize>, SortError> {
        if let Some(limit) = self.device_limit {
            return Ok(Some(limit));
        }
        if need <= self.gpu.total_memory / CHECK_FREE_ABOVE_SHARE {
            return Ok(None);
        }
        self.bind()?;
        // What the pool keeps from earlier sorts is free for this one.
        pipeline::trim_pool(&self.gpu);
        let (free, _) = self.gpu.ctx.mem_get_info().map_err(SortError::driver("cuMemGetInfo", 0))?;
        let usable = free / AUTO_LIMIT_SHARE.1 * AUTO_LIMIT_SHARE.0;
        Ok((need > usable).then_some(usable))
    }

    /// Sorts host items on the device: one pipelined round trip when the sort fits the budget,
    /// else out of core (runs sorted on the GPU, merged on the CPU). Either way the slice is
    /// left untouched when an error is returned.
    fn host_sort<T: DeviceRepr + MergeKey>(
        &self,
        host: &mut [T],
        order: Order,
        algorithm: Algorithm,
        sort: impl Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
    ) -> Result<(), SortError> {
        let need = outofcore::need_bytes::<T>(host.len(), algorithm);
        match self.budget(need)? {
            Some(limit) if need > limit => {
                // A budget derived from the free memory that holds not even one run is the device
                // being full: out of memory (so that `auto()` sorts on the CPU), not a bad limit.
                let run = outofcore::run_len::<T>(limit, algorithm).map_err(|e| match self.device_limit {
                    Some(_) => e,
                    None => SortError::OutOfMemory { op: "out-of-core run", bytes: need },
                })?;
                outofcore::sort(&self.gpu, host, run, order, sort)
            }
            _ => pipeline::round_trip(&self.gpu, host, sort),
        }
    }

    pub(crate) fn sort_kvp_device(
        &self,
        stream: &Arc<CudaStream>,
        data: &mut CudaSlice<Kvp>,
        order: Order,
        algorithm: Algorithm,
    ) -> Result<(), SortError> {
        self.bind()?;
        match algorithm {
            Algorithm::Auto | Algorithm::Radix => radix::sort_kvp(&self.gpu, stream, data, order),
            Algorithm::Bitonic => network::bitonic_kvp(&self.gpu, stream, data, order),
            Algorithm::OddEvenMerge => network::odd_even_kvp(&self.gpu, stream, data, order),
        }
    }

    pub(crate) fn sort_keys_u32_device(
        &self,
        stream: &Arc<CudaStream>,
        data: &mut CudaSlice<u32>,
        order: Order,
        algorithm: Algorithm,
    ) -> Result<(), SortError> {
        self.bind()?;
        match algorithm {
            Algorithm::Auto | Algorithm::Radix => radix::sort_keys(&self.gpu, stream, data, order),
            Algorithm::Bitonic => network::bitonic_keys_u32(&self.gpu, stream, data, order),
            Algorithm::OddEvenMerge => network::odd_even_keys_u32(&self.gpu, stream, data, order),
        }
    }

    /// Driver calls act on the calling thread's current context; `Sorter`s move between threads.
    fn bind(&self) -> Result<(), SortError> {
        self.gpu.check_process()?;
        self.gpu.ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))
    }
}

impl SortBackend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn describe(&self) -> String {
        format!("cuda: {}", self.gpu.describe())
    }

    fn sort(&self, job: SortJob<'_>, order: Order, algorithm: Algorithm) -> Result<(), SortError> {
        if job.len() < 2 {
            return Ok(());
        }
        let radix = matches!(algorithm, Algorithm::Auto | Algorithm::Radix);
        match job {
            SortJob::Kvp(v) => self.host_sort(v, order, algorithm, |s, d| self.sort_kvp_device(s, d, order, algorithm)),
            SortJob::Keys(KeySlice::U32(k)) => {
                self.host_sort(k, order, algorithm, |s, d| self.sort_keys_u32_device(s, d, order, algorithm))
            }
            // Signed and float keys go to the radix kernels as they are (the kernels flip their
            // bits on the fly); the sorting networks take them as ordered u32 bits.
            SortJob::Keys(KeySlice::I32(k)) if radix => self.host_sort(k, order, algorithm, self.radix_keys(order)),
            SortJob::Keys(KeySlice::F32(k)) if radix => self.host_sort(k, order, algorithm, self.radix_keys(order)),
            SortJob::Keys(KeySlice::I32(k)) => self.sort_keys_as_bits(k, order, algorithm),
            SortJob::Keys(KeySlice::F32(k)) => self.sort_keys_as_bits(k, order, algorithm),
            SortJob::Keys(KeySlice::U64(k)) if radix => self.sort_in_core(k, self.radix_keys(order)),
            SortJob::Pairs(KeySlice::U32(k), v) if radix && self.split_in_core(k.len())? => {
                self.sort_pairs_split(k, v, order)
            }
            SortJob::Pairs(KeySlice::I32(k), v) if radix && self.split_in_core(k.len())? => {
                self.sort_pairs_split(k, v, order)
            }
            SortJob::Pairs(KeySlice::F32(k), v) if radix && self.split_in_core(k.len())? => {
                self.sort_pairs_split(k, v, order)
            }
            SortJob::Pairs(KeySlice::U64(k), v) if radix => {
                self.require_in_core(outofcore::need_bytes::<(u64, u32)>(k.len(), Algorithm::Radix))?;
                self.sort_pairs_split(k, v, order)
            }
            SortJob::Pairs(KeySlice::U32(k), v) => self.sort_pairs_as_kvp(k, v, order, algorithm),
            SortJob::Pairs(KeySlice::I32(k), v) => self.sort_pairs_as_kvp(k, v, order, algorithm),
            SortJob::Pairs(KeySlice::F32(k), v) => self.sort_pairs_as_kvp(k, v, order, algorithm),
            SortJob::Keys(KeySlice::U64(_)) | SortJob::Pairs(KeySlice::U64(_), _) => Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("u64 keys with {algorithm:?}: the GPU sorting networks take 32-bit keys; use Radix"),
            }),
        }
    }
}

impl CudaBackend {
    /// Split 32-bit pairs take the device as two arrays in one run, staged through the pinned
    /// upload buffer; when they do not fit the device budget or that buffer, they go as `Kvp`s
    /// instead (out of core, or through the pinned ring).
    fn split_in_core(&self, n: usize) -> Result<bool, SortError> {
        Ok(pipeline::pairs_fit_staging::<u32>(n)
            && !self.over_budget(outofcore::need_bytes::<Kvp>(n, Algorithm::Radix))?)
    }

    /// Whether a one-run sort needing `need` device bytes exceeds the budget.
    fn over_budget(&self, need: usize) -> Result<bool, SortError> {
        Ok(self.budget(need)?.is_some_and(|limit| need > limit))
    }

    /// 64-bit keys have no out-of-core merge yet: beyond the device budget they are refused
    /// (`OutOfMemory`), and `Sorter::auto()` sorts them on the CPU.
    fn require_in_core(&self, need: usize) -> Result<(), SortError> {
        if self.over_budget(need)? {
            return Err(SortError::OutOfMemory {
                op: "u64 key sort (no out-of-core merge for 64-bit keys)",
                bytes: need,
            });
        }
        Ok(())
    }

    /// The radix sort of device keys of any type the kernels take, for the host paths.
    fn radix_keys<K: RadixKey>(
        &self,
        order: Order,
    ) -> impl Fn(&Arc<CudaStream>, &mut CudaSlice<K>) -> Result<(), SortError> + '_ {
        move |s, d| {
            self.bind()?;
            radix::sort_keys(&self.gpu, s, d, order)
        }
    }

    /// One pipelined round trip when the sort fits the device budget, else `OutOfMemory`: for
    /// items the out-of-core merge cannot order.
    fn sort_in_core<T: DeviceRepr + Plain>(
        &self,
        host: &mut [T],
        sort: impl Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
    ) -> Result<(), SortError> {
        self.require_in_core(outofcore::need_bytes::<T>(host.len(), Algorithm::Radix))?;
        pipeline::round_trip(&self.gpu, host, sort)
    }

    /// Split pairs go to the radix kernels as two arrays (no interleaving on the host).
    fn sort_pairs_split<K: RadixKey + Plain + Default>(
        &self,
        keys: &mut [K],
        values: &mut [u32],
        order: Order,
    ) -> Result<(), SortError> {
        self.bind()?;
        let staged = pipeline::round_trip_pairs(&self.gpu, keys, values, |s, dk, dv| {
            self.bind()?;
            radix::sort_pairs(&self.gpu, s, dk, dv, order)
        });
        if let Some(result) = staged {
            return result;
        }
        // Beyond the pinned cap (u64 keys only: 32-bit ones go as Kvp), or while another sort
        // holds the staging: the driver's pageable copies.
        let bytes = std::mem::size_of_val(keys);
        let stream = self.gpu.ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
        let mut dk = stream.clone_htod(keys).map_err(SortError::driver("copy keys to device", bytes))?;
        let mut dv = stream.clone_htod(values).map_err(SortError::driver("copy values to device", bytes))?;
        radix::sort_pairs(&self.gpu, &stream, &mut dk, &mut dv, order)?;
        let mut out_k = vec![K::default(); keys.len()];
        let mut out_v = vec![0u32; values.len()];
        stream.memcpy_dtoh(&dk, &mut out_k).map_err(SortError::driver("copy keys to host", bytes))?;
        stream.memcpy_dtoh(&dv, &mut out_v).map_err(SortError::driver("copy values to host", bytes))?;
        stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
        // Both results are complete before either caller slice is written.
        keys.copy_from_slice(&out_k);
        values.copy_from_slice(&out_v);
        Ok(())
    }

    pub(crate) fn sort_pairs_u32_device(
        &self,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<u32>,
        values: &mut CudaSlice<u32>,
        order: Order,
        algorithm: Algorithm,
    ) -> Result<(), SortError> {
        self.bind()?;
        match algorithm {
            Algorithm::Auto | Algorithm::Radix => radix::sort_pairs(&self.gpu, stream, keys, values, order),
            other => Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("{other:?} on split device arrays; sort Kvp structs with it instead"),
            }),
        }
    }

    fn sort_keys_as_bits<K: Bits32>(
        &self,
        keys: &mut [K],
        order: Order,
        algorithm: Algorithm,
    ) -> Result<(), SortError> {
        let mut bits = host_keys::to_bits(keys);
        self.host_sort(&mut bits, order, algorithm, |s, d| self.sort_keys_u32_device(s, d, order, algorithm))?;
        host_keys::from_bits(&bits, keys);
        Ok(())
    }

    fn sort_pairs_as_kvp<K: Bits32>(
        &self,
        keys: &mut [K],
        values: &mut [u32],
        order: Order,
        algorithm: Algorithm,
    ) -> Result<(), SortError> {
        let mut pairs = host_keys::to_pairs(keys, values);
        self.host_sort(&mut pairs, order, algorithm, |s, d| self.sort_kvp_device(s, d, order, algorithm))?;
        host_keys::from_pairs(&pairs, keys, values);
        Ok(())
    }
}
