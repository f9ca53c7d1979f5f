//! Sorts of data already on the device (`cuda` feature): the caller's buffers and stream, no host
//! round trip.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};

use super::Sorter;
use crate::gpu::GpuBackend;
use crate::{Kvp, SortError};

impl Sorter {
    /// Sorts pairs already on the device by key, in place, in the sorter's order, on the caller's
    /// stream; stable with [`Algorithm::Auto`](crate::Algorithm::Auto) and `Radix`. Returns once
    /// the work is queued: synchronize `stream` before reading `data`. Allocate `data` in
    /// [`Sorter::cuda_context`]'s context.
    ///
    /// `Unsupported` on a sorter without a GPU (the CPU cannot read device memory).
    ///
    /// ```no_run
    /// use gpusort::{Kvp, Sorter};
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let mut data = stream.clone_htod(&[Kvp::new(2, 0), Kvp::new(1, 1)]).expect("upload");
    /// sorter.sort_kvp_device(&mut data, &stream)?;
    /// let sorted = stream.clone_dtoh(&data).expect("download");
    /// assert_eq!(sorted, [Kvp::new(1, 1), Kvp::new(2, 0)]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_kvp_device(&self, data: &mut CudaSlice<Kvp>, stream: &Arc<CudaStream>) -> Result<(), SortError> {
        let r = self.device_backend()?.sort_kvp_device(stream, data, self.order, self.algorithm);
        self.after_sort(r)
    }

    /// Sorts `u32` keys already on the device, in place, in the sorter's order, on the caller's
    /// stream (see [`Sorter::sort_kvp_device`]).
    pub fn sort_keys_device(&self, data: &mut CudaSlice<u32>, stream: &Arc<CudaStream>) -> Result<(), SortError> {
        let r = self.device_backend()?.sort_keys_u32_device(stream, data, self.order, self.algorithm);
        self.after_sort(r)
    }

    /// Sorts split `u32` key and value arrays already on the device, in place, in the sorter's
    /// order, on the caller's stream; stable (radix only). `InvalidArgument` when the lengths
    /// differ.
    pub fn sort_pairs_device(
        &self,
        keys: &mut CudaSlice<u32>,
        values: &mut CudaSlice<u32>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        let r = self.device_backend()?.sort_pairs_u32_device(stream, keys, values, self.order, self.algorithm);
        self.after_sort(r)
    }

    /// The CUDA context this sorter's GPU work runs in, for callers that allocate device buffers
    /// for the `*_device` methods; `None` without a GPU.
    #[must_use]
    pub fn cuda_context(&self) -> Option<Arc<CudaContext>> {
        self.gpu.as_ref().map(|g| g.gpu.ctx.clone())
    }

    fn device_backend(&self) -> Result<&GpuBackend, SortError> {
        self.check_config()?;
        self.gpu.as_deref().ok_or_else(|| SortError::Unsupported {
            backend: "cpu",
            what: "device-resident sorts need a CUDA device".into(),
        })
    }
}
