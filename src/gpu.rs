//! The GPU backend as `Sorter` sees it; `gpu_none.rs` stands in for it without the `cuda` feature,
//! so that `Sorter` is written once for both builds.

use crate::SortError;

pub(crate) use crate::cuda::CudaBackend as GpuBackend;

impl GpuBackend {
    /// CUDA devices present (0 without a usable driver).
    pub(crate) fn device_count() -> usize {
        crate::cuda::device_count()
    }

    /// The same backend, handing sorts that would need more than `runs` out-of-core runs back
    /// (`OutOfMemory`), for the CPU to take.
    pub(crate) fn with_max_runs(self, runs: usize) -> GpuBackend {
        GpuBackend { max_runs: Some(runs), ..self }
    }

    /// The same backend with at most `bytes` of device memory per host sort.
    pub(crate) fn with_device_limit(&self, bytes: usize) -> GpuBackend {
        GpuBackend { device_limit: Some(bytes), ..self.clone() }
    }

    /// The same backend spreading host sorts of at least `items` over its devices.
    pub(crate) fn with_spread_from(&self, items: usize) -> GpuBackend {
        GpuBackend { spread_from: items, ..self.clone() }
    }

    pub(crate) fn spread_from(&self) -> Option<usize> {
        (!self.spread.is_empty()).then_some(self.spread_from)
    }

    pub(crate) fn device_limit(&self) -> Option<usize> {
        self.device_limit
    }

    /// `Err` in a process forked after the device was opened.
    pub(crate) fn check_process(&self) -> Result<(), SortError> {
        self.gpu.check_process()
    }
}
