//! The CUDA backend: host-memory sorts (copy up, sort on the device, copy back) and the
//! device-resident entry points the host path and GPU pipelines share.

mod device;
mod modules;
pub(crate) mod network;
pub(crate) mod radix;

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

pub(crate) use device::{gpu, Gpu};

use crate::backend::{BackendKind, SortBackend, SortJob};
use crate::{Algorithm, Kvp, Order, SortError};

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
fn round_trip<T: DeviceRepr + Default + Copy>(
    backend: &CudaBackend,
    host: &mut [T],
    sort: impl FnOnce(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
) -> Result<(), SortError> {
    let bytes = std::mem::size_of_val(host);
    backend.bind()?;
    let stream = backend.gpu.ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
    let mut dev = stream.clone_htod(host).map_err(SortError::driver("copy to device", bytes))?;
    sort(&stream, &mut dev)?;
    let mut out = vec![T::default(); host.len()];
    stream.memcpy_dtoh(&dev, &mut out).map_err(SortError::driver("copy to host", bytes))?;
    stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
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
            SortJob::KeysU32(v) => round_trip(self, v, |s, d| self.sort_keys_u32_device(s, d, order, algorithm)),
        }
    }
}
