//! The CUDA backend: host-memory sorts (copy up, sort on the device, copy back) and the
//! device-resident entry points the host path and GPU pipelines share.

mod device;
mod host_keys;
mod modules;
pub(crate) mod network;
pub(crate) mod radix;
#[cfg(test)]
mod smoke;
mod staging;

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

pub(crate) use device::{gpu, Gpu};

use crate::backend::{BackendKind, KeySlice, SortBackend, SortJob};
use crate::{Algorithm, Kvp, Order, SortError};
use host_keys::Bits32;
use staging::Plain;

#[derive(Debug, Clone)]
pub(crate) struct CudaBackend {
    pub(crate) gpu: Arc<Gpu>,
}

impl CudaBackend {
    pub(crate) fn open(ordinal: usize) -> Result<Self, SortError> {
        Ok(CudaBackend { gpu: gpu(ordinal)? })
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
            Algorithm::Auto | Algorithm::Radix => radix::sort_keys_u32(&self.gpu, stream, data, order),
            Algorithm::Bitonic => network::bitonic_keys_u32(&self.gpu, stream, data, order),
            Algorithm::OddEvenMerge => network::odd_even_keys_u32(&self.gpu, stream, data, order),
        }
    }

    /// Driver calls act on the calling thread's current context; `Sorter`s move between threads.
    fn bind(&self) -> Result<(), SortError> {
        self.gpu.ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))
    }
}

/// Copies `host` to the device, runs `sort` there and copies the result back. The caller's slice
/// is written only once everything succeeded, in one infallible copy: a failure at any step
/// leaves it as it was.
fn round_trip<T: DeviceRepr + Default + Plain>(
    backend: &CudaBackend,
    host: &mut [T],
    sort: impl FnOnce(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
) -> Result<(), SortError> {
    let bytes = std::mem::size_of_val(host);
    backend.bind()?;
    let stream = backend.gpu.ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
    let sync = |s: &Arc<CudaStream>| s.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0));
    if let Some(mut lease) = backend.gpu.staging.lease(&backend.gpu.ctx, bytes)? {
        let pinned = lease.slice::<T>(host.len());
        staging::par_copy(pinned, host);
        let result = (|| {
            let mut dev = stream.clone_htod(&*pinned).map_err(SortError::driver("copy to device", bytes))?;
            sort(&stream, &mut dev)?;
            stream.memcpy_dtoh(&dev, &mut *pinned).map_err(SortError::driver("copy to host", bytes))
        })();
        // The pinned buffer must be idle before it is read or handed to the next sort, also when
        // a step failed.
        let synced = sync(&stream);
        result?;
        synced?;
        staging::par_copy(host, pinned);
        return Ok(());
    }
    let mut dev = stream.clone_htod(host).map_err(SortError::driver("copy to device", bytes))?;
    sort(&stream, &mut dev)?;
    let mut out = vec![T::default(); host.len()];
    stream.memcpy_dtoh(&dev, &mut out).map_err(SortError::driver("copy to host", bytes))?;
    sync(&stream)?;
    host.copy_from_slice(&out);
    Ok(())
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
        match job {
            SortJob::Kvp(v) => round_trip(self, v, |s, d| self.sort_kvp_device(s, d, order, algorithm)),
            SortJob::Keys(KeySlice::U32(k)) => {
                round_trip(self, k, |s, d| self.sort_keys_u32_device(s, d, order, algorithm))
            }
            SortJob::Keys(KeySlice::I32(k)) => self.sort_keys_as_bits(k, order, algorithm),
            SortJob::Keys(KeySlice::F32(k)) => self.sort_keys_as_bits(k, order, algorithm),
            SortJob::Pairs(KeySlice::U32(k), v) if matches!(algorithm, Algorithm::Auto | Algorithm::Radix) => {
                self.sort_pairs_split_u32(k, v, order)
            }
            SortJob::Pairs(KeySlice::U32(k), v) => self.sort_pairs_as_kvp(k, v, order, algorithm),
            SortJob::Pairs(KeySlice::I32(k), v) => self.sort_pairs_as_kvp(k, v, order, algorithm),
            SortJob::Pairs(KeySlice::F32(k), v) => self.sort_pairs_as_kvp(k, v, order, algorithm),
            SortJob::Keys(KeySlice::U64(_)) | SortJob::Pairs(KeySlice::U64(_), _) => {
                Err(SortError::Unsupported { backend: "cuda", what: "u64 keys are not sorted on the GPU yet".into() })
            }
        }
    }
}

impl CudaBackend {
    /// Split u32 pairs go to the radix kernels as two arrays (no interleaving on the host).
    fn sort_pairs_split_u32(&self, keys: &mut [u32], values: &mut [u32], order: Order) -> Result<(), SortError> {
        let bytes = std::mem::size_of_val(keys);
        self.bind()?;
        let stream = self.gpu.ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
        let mut dk = stream.clone_htod(keys).map_err(SortError::driver("copy keys to device", bytes))?;
        let mut dv = stream.clone_htod(values).map_err(SortError::driver("copy values to device", bytes))?;
        radix::sort_pairs_u32(&self.gpu, &stream, &mut dk, &mut dv, order)?;
        let mut out_k = vec![0u32; keys.len()];
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
            Algorithm::Auto | Algorithm::Radix => radix::sort_pairs_u32(&self.gpu, stream, keys, values, order),
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
        round_trip(self, &mut bits, |s, d| self.sort_keys_u32_device(s, d, order, algorithm))?;
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
        round_trip(self, &mut pairs, |s, d| self.sort_kvp_device(s, d, order, algorithm))?;
        host_keys::from_pairs(&pairs, keys, values);
        Ok(())
    }
}
