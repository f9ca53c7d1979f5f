//! Device-resident sorts spread over several devices: the caller's buffers, one per device, each
//! with the stream its work is queued on (`Sorter::sort_kvp_across`, `Sorter::sort_keys_across`).

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, DeviceRepr};

use super::sort_device;
use crate::cuda::{gpu, CudaBackend, Gpu};
use crate::sorter::DeviceShare;
use crate::{Algorithm, Kvp, Order, SortError};

impl CudaBackend {
    /// Sorts the concatenation of `shares` stably in `order`: each share keeps its length and
    /// ends with the items of its own places in the sorted concatenation. `T` is `Kvp` or a
    /// `Key` type. Returns once the work is queued on the shares' streams.
    pub(crate) fn sort_across<T: DeviceRepr + Any>(
        &self,
        shares: &mut [DeviceShare<'_, T>],
        order: Order,
        algorithm: Algorithm,
    ) -> Result<(), SortError> {
        self.gpu.check_process()?;
        if !matches!(algorithm, Algorithm::Auto | Algorithm::Radix) {
            return Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("{algorithm:?} across devices: the exchange needs the stable radix sort"),
            });
        }
        let gpus = share_devices(shares)?;
        let streams: Vec<_> = shares.iter().map(|s| s.stream.clone()).collect();
        macro_rules! as_type {
            ($($t:ty),*) => {$(
                if std::any::TypeId::of::<T>() == std::any::TypeId::of::<$t>() {
                    let mut data: Vec<&mut CudaSlice<$t>> = shares
                        .iter_mut()
                        .map(|s| (&mut *s.data as &mut dyn Any).downcast_mut::<CudaSlice<$t>>().expect("same type"))
                        .collect();
                    return sort_device(&gpus, &streams, &mut data, order);
                }
            )*};
        }
        as_type!(Kvp, u32, i32, f32, u64, i64, f64);
        Err(SortError::Unsupported { backend: "cuda", what: format!("{} across devices", std::any::type_name::<T>()) })
    }
}

/// The device of every share, checked: at least one share, each buffer in its stream's context,
/// and that context the device's primary one (where gpusort's kernels are loaded; PyTorch and
/// CuPy use it too).
fn share_devices<T>(shares: &[DeviceShare<'_, T>]) -> Result<Vec<Arc<Gpu>>, SortError> {
    if shares.is_empty() {
        return Err(SortError::InvalidArgument("a sort across devices needs at least one share".into()));
    }
    let mut gpus = Vec::with_capacity(shares.len());
    for (i, s) in shares.iter().enumerate() {
        let ctx = s.stream.context();
        let g = gpu(ctx.ordinal())?;
        if g.ctx.cu_ctx() != ctx.cu_ctx() {
            return Err(SortError::InvalidArgument(format!(
                "share {i}: its stream is not in the primary context of device {}; make it from \
                 Sorter::cuda_context or the device's default context",
                ctx.ordinal()
            )));
        }
        if s.data.stream().context().cu_ctx() != ctx.cu_ctx() {
            return Err(SortError::InvalidArgument(format!(
                "share {i}: its buffer is on another device than its stream (device {})",
                ctx.ordinal()
            )));
        }
        gpus.push(g);
    }
    Ok(gpus)
}
