//! Sorters over several CUDA devices of one host: large host sorts spread over all of them
//! (`cuda/multi`), everything else on the first.

use std::sync::Arc;

use super::{Policy, Sorter};
use crate::gpu::GpuBackend;
use crate::SortError;

impl Sorter {
    /// Every usable CUDA device of the host. Host sorts with `Auto` or `Radix` from
    /// [`Sorter::multi_gpu_from`] items are spread over all of them: each device sorts an equal
    /// share, the devices swap key ranges peer to peer (NVLink where present), and each sends its
    /// range back, every PCIe link busy at once. The result is the one stable sort of the input.
    /// Everything else (device-resident calls, the sorting networks, smaller sorts, split pairs
    /// of 64-bit keys, sorts that do not fit every device in core) runs on the first device, as
    /// with [`Sorter::cuda`]. With one usable device, the same as [`Sorter::cuda`].
    ///
    /// ```
    /// match gpusort::Sorter::cuda_all() {
    ///     Ok(all) => println!("{all}"),
    ///     Err(e) => println!("no GPU here: {e}"),
    /// }
    /// ```
    pub fn cuda_all() -> Result<Sorter, SortError> {
        Sorter::cuda_devices(&usable_devices()?)
    }

    /// The CUDA devices `ordinals`, first one first, as [`Sorter::cuda_all`] uses them. A device
    /// listed twice takes two shares, each with its own stream and buffers: on one GPU, that
    /// runs the whole multi-device algorithm (for testing it; it is slower than one share).
    /// `InvalidArgument` for an empty list; the error of the first device that cannot be used.
    ///
    /// ```
    /// if let Ok(two_shares) = gpusort::Sorter::cuda_devices(&[0, 0]) {
    ///     let mut v: Vec<u32> = (0..100_000u32).rev().collect();
    ///     two_shares.with_multi_gpu_from(1).sort_keys(&mut v)?;
    ///     assert!(v.windows(2).all(|w| w[0] <= w[1]));
    /// }
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn cuda_devices(ordinals: &[usize]) -> Result<Sorter, SortError> {
        if ordinals.is_empty() {
            return Err(SortError::InvalidArgument("a list of CUDA devices needs at least one".into()));
        }
        let gpu = GpuBackend::open_devices(ordinals)?;
        Ok(Sorter { gpu: Some(Arc::new(gpu)), policy: Policy::GpuOnly, ..Sorter::cpu() })
    }

    /// The same sorter, spreading host sorts of at least `items` over its devices (the default is
    /// 64M items); no effect on a sorter with one device.
    ///
    /// ```
    /// let sorter = gpusort::Sorter::auto().with_multi_gpu_from(1 << 26);
    /// if let Some(from) = sorter.multi_gpu_from() {
    ///     assert_eq!(from, 1 << 26);
    /// }
    /// ```
    #[must_use = "with_multi_gpu_from returns a new sorter; the original is unchanged"]
    pub fn with_multi_gpu_from(mut self, items: usize) -> Sorter {
        if let Some(g) = &self.gpu {
            self.gpu = Some(Arc::new(g.with_spread_from(items)));
        }
        self
    }

    /// From how many items host sorts are spread over several devices; `None` for a sorter with
    /// fewer than two.
    ///
    /// ```
    /// assert_eq!(gpusort::Sorter::cpu().multi_gpu_from(), None);
    /// ```
    #[must_use]
    pub fn multi_gpu_from(&self) -> Option<usize> {
        self.gpu.as_ref().and_then(|g| g.spread_from())
    }
}

/// The ordinals of the devices that open, in order; the first device's error when none does.
fn usable_devices() -> Result<Vec<usize>, SortError> {
    let count = GpuBackend::device_count();
    let usable: Vec<usize> = (0..count).filter(|&o| GpuBackend::open(o).is_ok()).collect();
    if usable.is_empty() {
        GpuBackend::open(0)?;
    }
    Ok(usable)
}
